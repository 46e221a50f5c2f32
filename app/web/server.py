"""Serve the app in production: gunicorn, one worker process of bounded threads, with timeouts.

`python -m app` (and `make run`) call `serve`. Why each choice:
- gunicorn's gthread worker, as Flask-SocketIO documents for its threading mode, and one worker
  process: a Socket.IO session lives in one process's memory, and gunicorn's workers share one
  socket with no stickiness, so a long-polling client's requests could land on a process that
  does not know it. More processes: one per port, a sticky proxy in front, and a message queue
  between them (`--message-queue`, README "Several processes", deploy/nginx.conf).
- Its threads are bounded: one per Socket.IO connection (MAX_CONNECTIONS) plus
  SERVER_HTTP_THREADS for everything else; open connections are bounded too.
- `LabWorker` keeps a connection that has sent nothing on its poller, holding no thread, and
  closes it after SERVER_IDLE_TIMEOUT_S; a request that stalls part-way is cut off after as
  long without a byte. (Werkzeug's development server spent a thread on every such socket,
  forever.)
- On SIGTERM it stops accepting, gives running simulations SHUTDOWN_GRACE_S to finish, ends the
  rest with sim_error "server shutting down", closes every session (browsers reconnect to the
  next server) and exits 0. Ctrl-C (SIGINT) does the same without the wait.
- Responses carry one `Server: Collective Lab` header, gunicorn's.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import math
import resource
import selectors
import threading
import time
from collections import deque
from collections.abc import Callable
from functools import partial
from pathlib import Path

import gunicorn.http.wsgi
from flask import Config, Flask
from gunicorn.app.base import BaseApplication
from gunicorn.workers.gthread import TConn, ThreadWorker

from . import settings
from .headers import SERVER_NAME
from .live.send_queue import emit_to
from .live.socket_json import Encoded, encode

ROOT = Path(__file__).resolve().parents[2]
BACKLOG = 256  # connections the kernel queues while every connection slot is taken
# Connections that have sent nothing cost a file descriptor and a poller entry, no thread: the
# worker holds many, but at most SILENT_PER_ADDRESS per address; past it an address's oldest
# silent connection is closed for its newest (a class behind one NAT opens a few per browser;
# a script opening thousands only displaces its own, and a real request still gets in).
MAX_OPEN_FILES = 16384
SILENT_PER_ADDRESS = 256
WORKER_TIMEOUT_S = 30  # gunicorn restarts a worker whose main loop stalls this long
SHUTTING_DOWN = "server shutting down"

log = logging.getLogger(__name__)


def serve(host: str, port: int, config: dict | None = None) -> None:
    """Serve the app on host:port until SIGTERM or Ctrl-C."""
    LabServer(host, port, config).run()


def load_settings(config: dict | None = None) -> Config:
    """The app's settings as `create_app` will see them: defaults, environment, `config`."""
    values = Config(str(ROOT))
    values.update(settings.defaults())
    values.from_prefixed_env("COLLECTIVE_LAB")
    values.update(config or {})
    return values


def gunicorn_options(host: str, port: int, values: Config) -> dict:
    """gunicorn's settings for the app's settings `values` (see app/web/settings.py)."""
    connections = int(values["MAX_CONNECTIONS"])
    threads = connections + int(values["SERVER_HTTP_THREADS"])
    files = _raise_open_files_limit()
    return {
        "bind": [f"[{host}]:{port}" if ":" in host else f"{host}:{port}"],
        "workers": 1,
        "worker_class": LabWorker,
        "threads": threads,
        # Every busy thread's connection plus silent and kept-alive ones, within the fd limit.
        "worker_connections": max(threads + connections, files - 2 * threads - 64),
        "backlog": BACKLOG,
        "keepalive": math.ceil(float(values["SERVER_IDLE_TIMEOUT_S"])),
        "timeout": WORKER_TIMEOUT_S,
        # The worker's own drain ends every session at SHUTDOWN_GRACE_S; a little more lets the
        # last sim_error reach its client before gunicorn would kill the worker.
        "graceful_timeout": math.ceil(float(values["SHUTDOWN_GRACE_S"])) + 5,
        "accesslog": None,
        "errorlog": "-",
        "loglevel": "warning",
        "proc_name": "collective-lab",
        "control_socket_disable": True,
        "when_ready": partial(_say_ready, f"http://{host}:{port}"),
    }


class LabServer(BaseApplication):
    """gunicorn running this app: its options come from the app's settings."""

    def __init__(self, host: str, port: int, config: dict | None = None) -> None:
        self.config = dict(config or {})
        self.values = load_settings(self.config)
        self.options = gunicorn_options(host, port, self.values)
        self.flask_app: Flask | None = None
        super().__init__()

    def load_config(self) -> None:
        for name, value in self.options.items():
            self.cfg.set(name, value)

    def load(self) -> Callable:
        """Create the app, in the worker process (no state is shared over the fork)."""
        from app import create_app

        self.flask_app = create_app(self.config)
        return _one_server_header(self.flask_app)


class SlowClientConn(TConn):
    """A connection whose reads and writes give up after SERVER_IDLE_TIMEOUT_S of silence.

    `on_first_word(conn)` is called once: when it first sends, or closes having sent nothing.
    """

    def __init__(self, cfg, sock, client, server, on_first_word: Callable) -> None:
        super().__init__(cfg, sock, client, server)
        self._on_first_word: Callable | None = on_first_word

    def spoke(self) -> None:
        callback, self._on_first_word = self._on_first_word, None
        if callback is not None:
            callback(self)

    def close(self, graceful: bool = False) -> None:
        self.spoke()
        super().close(graceful)

    def init(self) -> None:
        super().init()
        # The worker makes the socket blocking (no timeout) before each request; a client that
        # stops half-way through its headers would otherwise hold a thread for good.
        self.sock.settimeout(self.cfg.keepalive)


class LabWorker(ThreadWorker):
    """gunicorn's gthread worker: silent connections hold no thread; signals drain the lab."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._draining = False
        self._quitting = False
        self._ended = False  # the lab's runs are ended and its sessions closed
        self._end_lock = threading.Lock()
        self._silent: dict[str, deque] = {}  # address -> its connections that sent nothing

    def init_process(self) -> None:
        gunicorn.http.wsgi.SERVER = SERVER_NAME  # the Server header gunicorn writes
        logging.getLogger("gunicorn.error").addFilter(_quiet_timeouts)
        super().init_process()

    def accept(self, listener) -> None:
        """Accept a connection and wait on the poller, not in a thread, for its first bytes."""
        try:
            sock, address = listener.accept()
        except OSError as e:
            if e.errno in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                return  # another wake-up took it, or the client left first
            raise
        host = address[0] if isinstance(address, tuple) else str(address)
        silent = self._silent.setdefault(host, deque())
        if len(silent) >= SILENT_PER_ADDRESS:
            self._evict(silent[0])
        self.nr_conns += 1
        conn = SlowClientConn(
            self.cfg, sock, address, listener.getsockname(), partial(self._spoke, host)
        )
        silent.append(conn)
        conn.timeout = time.monotonic() + self.cfg.keepalive
        self.pending_conns.append(conn)  # in timeout order: the worker closes the oldest first
        self.poller.register(
            conn.sock, selectors.EVENT_READ, partial(self.on_pending_socket_readable, conn)
        )

    def on_pending_socket_readable(self, conn, client) -> None:
        conn.spoke()
        super().on_pending_socket_readable(conn, client)

    def _spoke(self, host: str, conn: SlowClientConn) -> None:
        silent = self._silent.get(host)
        if silent is not None:
            with contextlib.suppress(ValueError):
                silent.remove(conn)
            if not silent:
                del self._silent[host]

    def _evict(self, conn: SlowClientConn) -> None:
        """Close a connection that has sent nothing yet (it waits on the poller)."""
        with contextlib.suppress(OSError, KeyError, ValueError):
            self.poller.unregister(conn.sock)
        with contextlib.suppress(ValueError):
            self.pending_conns.remove(conn)
        self.nr_conns -= 1
        conn.close()

    def handle_exit(self, sig, frame) -> None:
        """SIGTERM: stop accepting (gunicorn), and drain the lab's runs in the background."""
        super().handle_exit(sig, frame)
        self.method_queue.defer(self._close_pending)
        if not self._draining:
            self._draining = True
            grace = float(self._settings()["SHUTDOWN_GRACE_S"])
            threading.Thread(target=self._stop_lab, args=(grace,), daemon=True).start()

    def handle_quit(self, sig, frame) -> None:
        """SIGINT or SIGQUIT: end the lab's runs now, then exit (gunicorn)."""
        # Ctrl-C signals this process and the master, which then sends SIGQUIT: that second
        # signal lands inside this handler, where gunicorn's thread-pool shutdown holds a lock
        # it would take again (a deadlock until the master's SIGKILL).
        if self._quitting:
            return
        self._quitting = True
        self._stop_lab(0)
        super().handle_quit(sig, frame)

    def _close_pending(self) -> None:
        """Close connections that never sent a request (on the main loop, as gunicorn does)."""
        now = time.monotonic()
        for conn in self.pending_conns:
            conn.timeout = min(conn.timeout, now)
        self.murder_pending()

    def _settings(self) -> dict:
        flask_app = self.app.flask_app
        return flask_app.config if flask_app is not None else self.app.values

    def _stop_lab(self, grace_s: float) -> None:
        """Let runs finish for `grace_s`, end the rest with sim_error, and close every session."""
        flask_app = self.app.flask_app
        if flask_app is None:  # stopped before the app was loaded
            return
        runs = flask_app.extensions["lab_runs"]
        running = len(runs.running())
        if grace_s > 0 and running:
            print(
                f"Collective Lab stopping: up to {grace_s:g} s for {running} running "
                "simulations to finish.",
                flush=True,
            )
            deadline = time.monotonic() + grace_s
            while not runs.idle() and time.monotonic() < deadline and not self._ended:
                time.sleep(0.05)
        with self._end_lock:  # once, whether the grace ran out or Ctrl-C came first
            if self._ended:
                return
            self._ended = True
            ended = end_runs(flask_app, SHUTTING_DOWN)
            close_sessions(flask_app)
        print(f"Collective Lab stopped ({ended} running simulations cancelled).", flush=True)


def end_runs(flask_app: Flask, reason: str) -> int:
    """End every live run of `flask_app` with sim_error `reason`; return how many there were."""
    runs = flask_app.extensions["lab_runs"]
    server = flask_app.extensions["socketio"].server
    ended = 0
    for run in runs.live():
        body = Encoded(encode({"error": reason}), run.run_id)
        if run.emit_unless_cancelled(lambda r=run, b=body: emit_to(server, r.sid, "sim_error", b)):
            ended += 1
        run.cancel()
    return ended


def close_sessions(flask_app: Flask) -> None:
    """Close every engine.io session after what is queued for it; clients will reconnect."""
    eio = flask_app.extensions["socketio"].server.eio
    for session in list(eio.sockets.values()):
        session.close(wait=False, reason=eio.reason.SERVER_DISCONNECT)


def _raise_open_files_limit() -> int:
    """Raise this process's open-files limit toward MAX_OPEN_FILES; return the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = MAX_OPEN_FILES if hard == resource.RLIM_INFINITY else min(MAX_OPEN_FILES, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
    return MAX_OPEN_FILES if soft == resource.RLIM_INFINITY else min(soft, MAX_OPEN_FILES)


def _one_server_header(flask_app: Flask) -> Callable:
    """Wrap the app so gunicorn's `Server` header is the only one (the app sets its own too)."""

    def app(environ: dict, start_response: Callable):
        def start(status, headers, exc_info=None):
            kept = [(k, v) for k, v in headers if k.lower() != "server"]
            return start_response(status, kept, exc_info)

        return flask_app(environ, start)

    return app


def _quiet_timeouts(record: logging.LogRecord) -> bool:
    """Drop gunicorn's traceback for a client that went silent mid-request: it is not a fault."""
    return not (record.exc_info and isinstance(record.exc_info[1], TimeoutError))


def _say_ready(url: str, _arbiter) -> None:
    print(f"Collective Lab on {url}  (Ctrl-C to stop)", flush=True)
