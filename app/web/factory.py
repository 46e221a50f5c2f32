"""The application factory: defaults, then environment, then the caller's config."""

from __future__ import annotations

from pathlib import Path

from flask import Flask

from . import settings
from .extensions import socketio

ROOT = Path(__file__).resolve().parents[2]


def create_app(config: dict | None = None) -> Flask:
    """Create and configure the Flask app and bind Socket.IO to it."""
    app = Flask(
        __name__,
        static_folder=str(ROOT / "static"),
        template_folder=str(ROOT / "templates"),
    )
    app.config.update(settings.defaults())
    app.config.from_prefixed_env("COLLECTIVE_LAB")
    if config:
        app.config.update(config)

    from . import api, headers, lessons, pages, sockets

    app.register_blueprint(pages.bp)
    from . import costs_api  # the cost model's API and the calculator pages

    app.register_blueprint(costs_api.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(lessons.bp)
    headers.init_app(app)

    origins = str(app.config["SOCKETIO_CORS_ORIGINS"]).split()
    socketio.init_app(
        app,
        async_mode="threading",
        cors_allowed_origins=origins or None,
        max_http_buffer_size=64 * 1024,
    )
    sockets.init_app(app, socketio.server)  # this app's own server: see app/web/sockets.py
    return app
