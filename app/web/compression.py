"""Compress text responses (Flask-Compress), compressing each static file only once.

Static files are streamed by Flask, and Flask-Compress recompresses a stream on every request
without gzip; so static text files are read into memory (they are small, the largest is
plotly.js at 1.5 MB) and their compressed bodies kept per (algorithm, path, mtime). Pages and
API answers are compressed per response and never cached.
"""

from __future__ import annotations

import itertools
import os

from flask import Flask, Request, Response, current_app, request
from flask_compress import Compress

TEXT_TYPES = [
    "text/html",
    "text/css",
    "text/javascript",
    "application/javascript",
    "application/json",
    "image/svg+xml",
]
STATIC_KEY = "static:"
_unique = itertools.count()


class StaticOnlyCache:
    """A dict that keeps only static files' compressed bodies; other keys never hit."""

    def __init__(self) -> None:
        self._bodies: dict[str, bytes] = {}

    def get(self, key: str) -> bytes | None:
        return self._bodies.get(key)

    def set(self, key: str, value: bytes) -> None:
        if STATIC_KEY in key:
            self._bodies[key] = value


def _cache_key(req: Request) -> str:
    """Key static files by path and modification time; every other response uniquely."""
    if req.endpoint != "static":
        return f"response:{next(_unique)}"
    full = os.path.join(current_app.static_folder or "", req.path.removeprefix("/static/"))
    try:
        mtime = os.stat(full).st_mtime_ns
    except OSError:
        mtime = 0
    return f"{STATIC_KEY}{req.path}:{mtime}"


def init_app(app: Flask) -> None:
    """Compress text responses of `app` with brotli or gzip."""
    app.config.update(
        COMPRESS_MIMETYPES=TEXT_TYPES,
        COMPRESS_ALGORITHM=["br", "gzip"],
        COMPRESS_CACHE_BACKEND=StaticOnlyCache,
        COMPRESS_CACHE_KEY=_cache_key,
    )
    Compress(app)

    # Registered after Compress, so it runs before it: hand Compress a whole body, not a stream.
    @app.after_request
    def buffer_static_text(response: Response) -> Response:
        if (
            request.endpoint == "static"
            and response.status_code == 200
            and response.mimetype in TEXT_TYPES
        ):
            response.direct_passthrough = False
            response.make_sequence()
        return response
