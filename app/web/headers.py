"""Security and caching headers on every response, built in one place per path.

Scripts come only from this origin (no inline code, no eval); Plotly sets inline styles, so
style-src allows them. Only /embed/* may be framed, by EMBED_FRAME_ANCESTORS.

Responses name no server software or version: `Server: Collective Lab`. Werkzeug's development
server adds `Server: Werkzeug/x Python/y` at the socket, after the app; `RequestHandler` is its
handler without that header, for `python -m app` and the tests' live server. A redirect to this
site (Werkzeug's own /lessons -> /lessons/ among them) is made relative, so the Host header a
client sent is never repeated back.
"""

from __future__ import annotations

import re

from flask import Flask, Response, request
from werkzeug.serving import WSGIRequestHandler

EMBED_PREFIX = "/embed/"
STATIC_PREFIX = "/static/"
VENDOR_PREFIX = "/static/vendor/"  # file names carry the library's version
YEAR_S = 365 * 24 * 3600
SERVER_NAME = "Collective Lab"  # the whole Server header: no product versions to look up
_UNSAFE = re.compile(r"[;,\x00-\x1f\x7f]")  # would end the directive or split the header


def init_app(app: Flask) -> None:
    """Check the framing setting and add the headers to every response of `app`."""
    ancestors = str(app.config["EMBED_FRAME_ANCESTORS"]).strip()
    if not ancestors or _UNSAFE.search(ancestors):
        raise ValueError(
            "EMBED_FRAME_ANCESTORS must be space-separated CSP sources such as "
            f'"*" or "\'self\' https://wiki.example.com"; got {ancestors!r}'
        )

    static_max_age = int(app.config["STATIC_MAX_AGE_S"])

    @app.after_request
    def add_headers(response: Response) -> Response:
        for name, value in policy(request.path, ancestors).items():
            if value is None:
                response.headers.pop(name, None)
            else:
                response.headers[name] = value
        if request.path.startswith(STATIC_PREFIX) and response.status_code in (200, 304):
            response.headers["Cache-Control"] = cache_control(request.path, static_max_age)
        response.headers["Server"] = SERVER_NAME
        location = response.headers.get("Location")
        if location is not None:
            response.headers["Location"] = relative_location(location, request.host_url)
        return response


def policy(path: str, embed_ancestors: str) -> dict[str, str | None]:
    """Return the security headers for a response to `path` (None: remove that header)."""
    embeddable = path.startswith(EMBED_PREFIX)
    ancestors = embed_ancestors if embeddable else "'none'"
    csp = {
        "default-src": "'self'",
        "script-src": "'self'",
        "style-src": "'self' 'unsafe-inline'",  # Plotly positions its SVG with inline styles
        "img-src": "'self' data:",
        "connect-src": "'self'",  # same-origin Socket.IO, websocket included
        "frame-src": "'self'",  # lessons frame the lab's and the calculators' embeds
        "object-src": "'none'",
        "base-uri": "'self'",
        "form-action": "'self'",
        "frame-ancestors": ancestors,
    }
    if embeddable and ancestors == "*":
        # "*" does not match a file:// or about:blank parent in Chromium, so a wiki page saved
        # to disk could not show the embed; leaving the directive out allows every parent.
        del csp["frame-ancestors"]
    return {
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "strict-origin-when-cross-origin",
        "Content-Security-Policy": "; ".join(f"{k} {v}" for k, v in csp.items()),
        "X-Frame-Options": None if embeddable else "DENY",  # legacy header; CSP is the policy
    }


def relative_location(location: str, host_url: str) -> str:
    """Return `location` without this site's scheme and host (taken from the Host header)."""
    if location.startswith(host_url):
        return "/" + location[len(host_url) :]
    return location


class RequestHandler(WSGIRequestHandler):
    """Werkzeug's request handler, minus its `Server: Werkzeug/x Python/y` header.

    The app's own responses carry `Server: Collective Lab` (set above); what Werkzeug answers
    by itself (a malformed request line) and Socket.IO's responses carry no Server header.
    """

    def send_response(self, code: int, message: str | None = None) -> None:
        self.log_request(code)
        self.send_response_only(code, message)
        self.send_header("Date", self.date_time_string())


def cache_control(path: str, max_age_s: int) -> str:
    """Return the Cache-Control of a static file: versioned vendor files never change."""
    if path.startswith(VENDOR_PREFIX):
        return f"public, max-age={YEAR_S}, immutable"
    return f"public, max-age={max_age_s}"
