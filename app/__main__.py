"""Serve Collective Lab: `python -m app [--host 127.0.0.1] [--port 5000] [--message-queue URL]
[--no-measure]`.

The server is gunicorn with bounded threads, connection limits and timeouts
(app/web/server.py; settings in app/web/settings.py, docs/lab.md "Limits"). `--debug` runs
Werkzeug's development server with Flask's debugger and reloader instead: for development on
your own machine only, never for a class. `--message-queue redis://host:port/db` makes this
process one of several serving one app (settings: MESSAGE_QUEUE; README "Several processes").
`--no-measure` turns off the /measure page and its namespace, which run collectives on the
server's own cores: for a public or class server (setting MEASURE_ENABLED; docs/measure.md).
"""

from __future__ import annotations

import argparse
import os
import sys

EXIT_NO_MESSAGE_QUEUE = os.EX_UNAVAILABLE  # 69, sysexits.h: a service it needs is unavailable
EXIT_BAD_SETTING = os.EX_CONFIG  # 78, sysexits.h: something was found in an unconfigured state


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve until SIGTERM or Ctrl-C."""
    parser = argparse.ArgumentParser(prog="python -m app", description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    parser.add_argument(
        "--debug",
        action="store_true",
        help="Werkzeug's development server with Flask's debugger and reloader (not for a class)",
    )
    parser.add_argument(
        "--message-queue",
        metavar="URL",
        help="redis://host:port/db shared by several processes (default: one process, in memory)",
    )
    parser.add_argument(
        "--no-measure",
        action="store_true",
        help="turn off /measure, which runs collectives on this server's cores (for a public "
        "server; the setting MEASURE_ENABLED)",
    )
    args = parser.parse_args(argv)
    # The app reads its settings from the environment, in this process and in its workers.
    if args.message_queue:
        os.environ["COLLECTIVE_LAB_MESSAGE_QUEUE"] = args.message_queue
    if args.no_measure:
        os.environ["COLLECTIVE_LAB_MEASURE_ENABLED"] = "false"
    check_settings()
    check_message_queue()
    if args.debug:
        debug(args.host, args.port)
    else:
        from .web.server import serve

        serve(args.host, args.port)


def check_settings() -> None:
    """Exit with one line per setting the app could not start with (app/web/settings.py)."""
    from .web import settings
    from .web.server import load_settings

    found = settings.problems(load_settings())
    for problem in found:
        print(f"Collective Lab: setting COLLECTIVE_LAB_{problem}", file=sys.stderr, flush=True)
    if found:
        sys.exit(EXIT_BAD_SETTING)


def check_message_queue() -> None:
    """With a message queue configured: exit with one line if Redis does not answer.

    Also warn, once, when the processes' shared key would come from the instance folder.
    """
    from .web import message_queue
    from .web.server import load_settings

    values = load_settings()
    if not values["MESSAGE_QUEUE"]:
        return
    try:
        message_queue.check(str(values["MESSAGE_QUEUE"]))
    except message_queue.Unreachable as exc:
        print(f"Collective Lab: {exc}", file=sys.stderr, flush=True)
        sys.exit(EXIT_NO_MESSAGE_QUEUE)
    warning = message_queue.key_warning(values)
    if warning:
        print(f"Collective Lab warning: {warning}", file=sys.stderr, flush=True)


def debug(host: str, port: int) -> None:
    """Serve with Werkzeug's development server, reloading on code changes, until Ctrl-C."""
    from . import create_app
    from .web.extensions import socketio
    from .web.headers import RequestHandler

    app = create_app()
    print(f"Collective Lab (development server) on http://{host}:{port}", flush=True)
    try:
        socketio.run(
            app,
            host=host,
            port=port,
            debug=True,
            use_reloader=True,
            allow_unsafe_werkzeug=True,
            request_handler=RequestHandler,  # no `Server: Werkzeug/x Python/y` header
        )
    except KeyboardInterrupt:
        pass
    finally:
        stopped = app.extensions["lab_runs"].cancel_all()
        print(f"Collective Lab stopped ({stopped} running simulations cancelled).", flush=True)


if __name__ == "__main__":
    main()
