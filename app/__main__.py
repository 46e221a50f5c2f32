"""Serve Collective Lab: `python -m app [--host 127.0.0.1] [--port 5000]`."""

from __future__ import annotations

import argparse

from . import create_app
from .web.extensions import socketio
from .web.headers import RequestHandler


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve until Ctrl-C."""
    parser = argparse.ArgumentParser(prog="python -m app", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    parser.add_argument("--debug", action="store_true", help="Flask debug mode with reloader")
    args = parser.parse_args(argv)
    app = create_app()
    print(f"Collective Lab on http://{args.host}:{args.port}  (Ctrl-C to stop)", flush=True)
    try:
        socketio.run(
            app,
            host=args.host,
            port=args.port,
            debug=args.debug,
            use_reloader=args.debug,
            allow_unsafe_werkzeug=True,  # threading mode's server; fine for a teaching app
            log_output=args.debug,
            request_handler=RequestHandler,  # no `Server: Werkzeug/x Python/y` header
        )
    except KeyboardInterrupt:
        pass
    finally:
        # Streams run in daemon threads; tell them to stop emitting before the process ends.
        stopped = app.extensions["lab_runs"].cancel_all()
        print(f"Collective Lab stopped ({stopped} running simulations cancelled).", flush=True)


if __name__ == "__main__":
    main()
