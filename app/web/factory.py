"""The application factory: defaults, then environment, then the caller's config."""

from __future__ import annotations

from pathlib import Path

from flask import Flask

from ..drawing import palette as drawing_palette
from . import instance_secret, settings
from .extensions import socketio

ROOT = Path(__file__).resolve().parents[2]


def create_app(config: dict | None = None) -> Flask:
    """Create and configure the Flask app and bind Socket.IO to it."""
    app = Flask(
        __name__,
        static_folder=str(ROOT / "static"),
        template_folder=str(ROOT / "templates"),
    )
    _configure(app, config)
    _add_measured_presets(app)
    _init_http(app)
    _init_socketio(app)
    return app


def _configure(app: Flask, config: dict | None) -> None:
    """Load the settings' defaults, then COLLECTIVE_LAB_* variables, then `config`."""
    app.config.update(settings.defaults())
    app.config.from_prefixed_env("COLLECTIVE_LAB")
    if config:
        app.config.update(config)
    if app.config.get("INSTANCE_PATH"):
        app.instance_path = str(Path(app.config["INSTANCE_PATH"]).resolve())
    # One key for every process and every restart, or open quiz questions could not be graded.
    app.config["SECRET_KEY"] = instance_secret.resolve(
        app.config.get("SECRET_KEY"), app.instance_path
    )


def _add_measured_presets(app: Flask) -> None:
    """Offer a saved "this machine" preset (from /measure or --save-preset) after a restart."""
    from ..costs.hardware import MEASURED_FILE, add_measured

    path = Path(app.instance_path) / MEASURED_FILE
    if path.exists():
        try:
            add_measured(path)
        except (ValueError, OSError) as error:  # a broken file must not stop the server
            app.logger.warning("measured presets in %s not loaded: %s", path, error)


def _init_http(app: Flask) -> None:
    """Register the blueprints and the middleware every HTTP response passes through."""
    from . import compression, errors, headers, i18n
    from .api import costs, simulate
    from .api import nccl_log as nccl_log_api
    from .api import nccl_model as nccl_model_api
    from .api import nccl_tests as nccl_tests_api
    from .api import quiz as quiz_api
    from .api import race as race_api
    from .guard import limits
    from .pages import (
        calculators,
        classroom,
        home,
        lab,
        lessons,
        measure,
        nccl_log,
        nccl_tests,
        quiz,
        race,
        toolkit,
    )

    i18n.init_app(app)  # the page's language (Flask-Babel), before any view renders
    compression.init_app(app)  # plotly.js: 1.5 MB on disk, about 0.5 MB on the wire
    pages = (home, lab, calculators, lessons, quiz, classroom, toolkit, nccl_tests, nccl_log)
    pages += (measure, race)
    apis = (simulate, costs, quiz_api, nccl_tests_api, nccl_log_api, nccl_model_api)
    apis += (race_api,)
    for blueprint in (module.bp for module in pages + apis):
        app.register_blueprint(blueprint)
    errors.init_app(app)
    headers.init_app(app)
    # static/js/palette.js reads the one palette from every page (templates/base.html).
    app.jinja_env.globals["palette"] = drawing_palette.browser()
    limits.init_app(app)


def _init_socketio(app: Flask) -> None:
    """Bind Socket.IO to `app`, then the lab's events and the bounds on every connection."""
    from .live import bad_input, classroom, measure, socket_json, sockets, transport, ws_compat

    ws_compat.apply()
    # The extension keeps the queue manager an earlier app made in its options and would hand
    # it to this app's server too when this app has no MESSAGE_QUEUE: each app makes its own.
    socketio.server_options.pop("client_manager", None)
    origins = str(app.config["SOCKETIO_CORS_ORIGINS"]).split()
    socketio.init_app(
        app,
        async_mode="threading",
        cors_allowed_origins=origins or None,  # None: same origin only
        max_http_buffer_size=app.config["MAX_SOCKET_MESSAGE_BYTES"],
        # Several processes, one app: room broadcasts go through Redis (settings: MESSAGE_QUEUE).
        message_queue=app.config["MESSAGE_QUEUE"] or None,
        json=socket_json,
        serializer=bad_input.CheckedPacket,  # refuses what no client may send, by name
        # One client's events in the order sent: two quick `simulate`s must not race, or the
        # older could replace the newer. Handlers only validate and start a task.
        async_handlers=False,
        ping_interval=app.config["SOCKET_PING_INTERVAL_S"],
        ping_timeout=app.config["SOCKET_PING_TIMEOUT_S"],
    )
    sockets.init_app(app, socketio.server)  # this app's own server: see app/web/live/sockets.py
    classroom.init_app(app, socketio.server)  # the /class namespace (docs/classroom.md)
    measure.init_app(app, socketio.server)  # the /measure namespace (docs/measure.md)
    transport.init_app(app, socketio.server)  # bounded websockets, packets and sessions
