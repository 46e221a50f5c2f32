"""Security headers on every response, and the framing policy: only /embed/* may be framed."""

from __future__ import annotations

import re

from flask import Flask, Response, request

EMBED_PREFIX = "/embed/"
_UNSAFE = re.compile(r"[;,\x00-\x1f\x7f]")  # would end the directive or split the header


def init_app(app: Flask) -> None:
    """Check the framing setting and add the headers to every response of `app`."""
    ancestors = str(app.config["EMBED_FRAME_ANCESTORS"]).strip()
    if not ancestors or _UNSAFE.search(ancestors):
        raise ValueError(
            "EMBED_FRAME_ANCESTORS must be space-separated CSP sources such as "
            f'"*" or "\'self\' https://wiki.example.com"; got {ancestors!r}'
        )

    @app.after_request
    def add_headers(response: Response) -> Response:
        for name, value in policy(request.path, ancestors).items():
            if value is None:
                response.headers.pop(name, None)
            else:
                response.headers[name] = value
        return response


def policy(path: str, embed_ancestors: str) -> dict[str, str | None]:
    """Return the security headers for a response to `path` (None: remove that header)."""
    embeddable = path.startswith(EMBED_PREFIX)
    ancestors = embed_ancestors if embeddable else "'none'"
    return {
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "strict-origin-when-cross-origin",
        "Content-Security-Policy": f"frame-ancestors {ancestors}",
        "X-Frame-Options": None if embeddable else "DENY",  # legacy header; CSP is the policy
    }
