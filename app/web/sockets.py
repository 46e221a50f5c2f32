"""The live lab's Socket.IO events: run a simulation and stream its steps to the client that asked.

Protocol (docs/lab.md): the client emits `simulate` and gets an ack `{ok, run_id}` or
`{ok: false, error}`; a background task runs the engine and emits `sim_start`, one `sim_step`
per step (paced by `interval_ms`), then `sim_done` — or `sim_error` — to that client only.
`cancel`, a new `simulate` or a disconnect ends the client's run between two steps. A run
whose parameters match a recent run's is streamed from the run cache (app/web/runcache.py)
without the engine; every payload is encoded to JSON once (app/web/socket_json.py).

The handlers are bound to each app's own python-socketio server (`init_app(app, server)`)
rather than through `@socketio.on`: the module-level `SocketIO` extension dispatches events
through the server of the *last* app it was bound to, so any app created later (a test's)
would silently drop the events of an earlier one (a live server's). Streams still use that
server's `start_background_task`, `sleep` and `emit(..., to=sid)`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import uuid
from collections.abc import Callable, Iterator
from socket import IPPROTO_TCP, TCP_NODELAY

import socketio
from flask import Flask

from app.collectives import CollectiveError, simulate

from . import bad_input, memory, params, serialize
from .limits import RateLimited, TokenBuckets
from .runcache import EncodedRun, RunCache
from .socket_json import UNDECODABLE, Encoded, encode

NAMESPACE = "/"
SLICE_S = 0.05  # longest a paced task sleeps before looking at its cancel flag again
BUSY_RETRY_S = 2  # what a client is told to wait when every run slot is taken
# Engine runs at once, over all clients: the engine is CPU-bound, so more than the cores only
# adds memory (each run holds its buffers and trace) and delays everyone's first step.
ENGINE_SLOTS = threading.BoundedSemaphore(max(2, os.cpu_count() or 2))
KNOWN_EVENTS = ("simulate", "cancel")

log = logging.getLogger(__name__)


class Run:
    """One client's simulation: its id, its owner, and the flag its task checks between steps."""

    def __init__(self, sid: str) -> None:
        self.run_id = uuid.uuid4().hex[:16]
        self.sid = sid
        self._cancelled = threading.Event()
        self._lock = threading.Lock()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def cancel(self) -> None:
        """Stop the run; once this returns, the run emits nothing more."""
        with self._lock:
            self._cancelled.set()

    def emit_unless_cancelled(self, emit: Callable[[], None]) -> bool:
        """Call `emit` unless the run is cancelled, atomically with `cancel`; say if it ran."""
        with self._lock:
            if self._cancelled.is_set():
                return False
            emit()
            return True


class ServerBusy(Exception):
    """Every run slot is taken; the client should retry in a moment."""


class RunRegistry:
    """Every run whose task has not ended, and each client's current run; thread-safe."""

    def __init__(self, max_active: int, on_idle: Callable[[], None] | None = None) -> None:
        self.max_active = max_active
        self.on_idle = on_idle  # called, on the finishing thread, when the last live run ends
        self._lock = threading.Lock()
        self._current: dict[str, Run] = {}  # sid -> the run it started last
        self._live: dict[str, Run] = {}  # run_id -> run, until its task ends

    def start(self, sid: str) -> Run:
        """Register a new run for `sid`, cancelling the run it replaces; raise ServerBusy."""
        run = Run(sid)
        with self._lock:
            previous = self._current.get(sid)
            # The run this one replaces stops at its next step; it does not hold a slot.
            active = len(self._live) - (previous is not None and previous.run_id in self._live)
            if active >= self.max_active:
                raise ServerBusy(
                    f"server busy: {self.max_active} simulations are running; "
                    f"retry in {BUSY_RETRY_S} s"
                )
            self._current[sid] = run
            self._live[run.run_id] = run
        if previous is not None:
            previous.cancel()
        return run

    def cancel(self, sid: str, run_id: str | None = None) -> bool:
        """Cancel `sid`'s current run (only if it is `run_id`, when given); say if one was."""
        with self._lock:
            run = self._current.get(sid)
            if run is None or (run_id is not None and run.run_id != run_id):
                return False
            del self._current[sid]
        was_running = not run.cancelled
        run.cancel()
        return was_running

    def finish(self, run: Run) -> None:
        """Forget `run`: its task has ended. If it was the last live run, call `on_idle`."""
        with self._lock:
            emptied = self._live.pop(run.run_id, None) is not None and not self._live
            if self._current.get(run.sid) is run:
                del self._current[run.sid]
        if emptied and self.on_idle is not None:
            self.on_idle()

    def idle(self) -> bool:
        """Say whether no run's task is left."""
        with self._lock:
            return not self._live

    def cancel_all(self) -> int:
        """Cancel every run (the server is shutting down); return how many there were."""
        with self._lock:
            live = list(self._live.values())
            self._current.clear()
        for run in live:
            run.cancel()
        return len(live)

    def running(self) -> list[str]:
        """Return the ids of runs whose task has not ended yet."""
        with self._lock:
            return list(self._live)

    def live(self) -> list[Run]:
        """Return the runs whose task has not ended yet (to end them when the server stops)."""
        with self._lock:
            return list(self._live.values())


def init_app(app: Flask, server: socketio.Server) -> None:
    """Bind the lab's events to `server`, the Socket.IO server of `app`."""
    app.wsgi_app = _no_delay(app.wsgi_app)
    runs = RunRegistry(app.config["MAX_ACTIVE_RUNS"])
    memory.fix_mmap_threshold()
    trimmer = memory.IdleTrimmer(runs.idle, trim=memory.malloc_trim)
    runs.on_idle = trimmer.on_idle
    app.extensions["lab_runs"] = runs
    app.extensions["lab_trimmer"] = trimmer
    cache = RunCache(app.config["LAB_RUN_CACHE_BYTES"])
    app.extensions["lab_run_cache"] = cache
    noted = bad_input.BadInputLog(interval_s=app.config["BAD_INPUT_LOG_INTERVAL_S"])
    app.extensions["bad_input_log"] = noted
    bad_input.guard(app, server, noted)  # malformed packets: one log line, no traceback
    handlers = _Handlers(app, server, runs, cache, noted)
    server.on("simulate", handlers.simulate, namespace=NAMESPACE)
    server.on("cancel", handlers.cancel, namespace=NAMESPACE)
    server.on("disconnect", handlers.disconnect, namespace=NAMESPACE)
    server.on(UNDECODABLE, handlers.undecodable, namespace=NAMESPACE)
    server.on("*", handlers.unknown, namespace=NAMESPACE)


def _no_delay(wsgi_app: Callable) -> Callable:
    """Wrap `wsgi_app` so Socket.IO connections send each small frame at once.

    A stream is many small writes; with Nagle's algorithm on, each write after the first
    waits for the client's delayed ACK (40 ms on Linux), which delayed the first `sim_step`
    by that much behind `sim_start`. Werkzeug and gunicorn expose the client's socket.
    """

    def app(environ: dict, start_response: Callable):
        sock = environ.get("werkzeug.socket") or environ.get("gunicorn.socket")
        if sock is not None and environ.get("PATH_INFO", "").startswith("/socket.io"):
            with contextlib.suppress(OSError, AttributeError):
                sock.setsockopt(IPPROTO_TCP, TCP_NODELAY, 1)
        return wsgi_app(environ, start_response)

    return app


class _Handlers:
    """The event handlers of one app: validate, start or cancel a run, answer with an ack."""

    def __init__(
        self,
        app: Flask,
        server: socketio.Server,
        runs: RunRegistry,
        cache: RunCache,
        noted: bad_input.BadInputLog,
    ) -> None:
        self.app = app
        self.server = server
        self.runs = runs
        self.cache = cache
        self.noted = noted
        self.rate = TokenBuckets(
            "simulate requests", app.config["SIMULATE_RATE_PER_S"], app.config["SIMULATE_BURST"]
        )

    def simulate(self, sid: str, *args) -> dict:
        """Validate the parameters, replace the client's run with a new one, and ack its id."""
        try:
            p = params.parse(
                _single(args, "simulate"),
                max_ranks=self.app.config["LAB_MAX_RANKS"],
                max_cells=self.app.config["LAB_MAX_CELLS"],
            )
        except params.ParamError as e:
            return {"ok": False, "error": str(e)}
        try:
            self.rate.take(sid)
            run = self.runs.start(sid)
        except RateLimited as e:
            return {"ok": False, "error": str(e), "retry_after_s": round(e.retry_after_s, 3)}
        except ServerBusy as e:
            return {"ok": False, "error": str(e), "retry_after_s": BUSY_RETRY_S}
        self.server.start_background_task(_stream, self.server, self.runs, run, p, self.cache)
        return {"ok": True, "run_id": run.run_id}

    def cancel(self, sid: str, *args) -> dict:
        """Cancel the client's run; cancelling an unknown or finished run is harmless."""
        data = _single(args, "cancel") if args else {}
        run_id = data.get("run_id") if isinstance(data, dict) else None
        if not isinstance(data, dict) or not isinstance(run_id, str | None):
            return {"ok": False, "error": "cancel takes {run_id: <the id from the simulate ack>}"}
        return {"ok": True, "cancelled": self.runs.cancel(sid, run_id)}

    def undecodable(self, sid: str, *args) -> dict:
        """Answer a message whose JSON could not be loaded (see app/web/socket_json.py)."""
        reason = args[0] if args and isinstance(args[0], str) else "invalid JSON"
        self._note(sid, f"malformed event ({reason})")
        return {
            "ok": False,
            "error": f"the message could not be decoded ({reason}): send a JSON object of "
            "parameters; integers may have at most 100 digits",
        }

    def unknown(self, *args) -> dict:
        """Answer an event this server does not know (acked only if the client asked)."""
        # python-socketio calls the catch-all with (event, sid, *data), but an event named "*"
        # with (sid, *data): it is the catch-all's own name.
        if self.server.manager.is_connected(args[0], NAMESPACE):
            event, sid = "*", args[0]
        else:
            event, sid = args[0], args[1]
        name = event if len(event) <= 40 else event[:37] + "..."
        self._note(sid, f"unknown event {name!r}")
        known = ", ".join(KNOWN_EVENTS)
        return {"ok": False, "error": f"unknown event {name!r}; known events: {known}"}

    def _note(self, sid: str, what: str) -> None:
        """Log a client's bad input, at most once per address per interval."""
        environ = self.server.get_environ(sid, NAMESPACE) or {}
        self.noted.note(environ.get("REMOTE_ADDR") or "unknown", what)

    def disconnect(self, sid: str, reason: str | None = None) -> None:
        """Cancel the run of a client that went away, and forget its rate bucket."""
        if self.server.manager.is_connected(sid, NAMESPACE):
            # Still connected: a client *sent* an event named "disconnect". Ignore it, or it
            # could reset its own rate limit.
            return
        self.runs.cancel(sid)
        self.rate.forget(sid)


def _single(args: tuple, event: str) -> object:
    """Return the one argument an event carries (None when absent, so validation says so)."""
    return args[0] if len(args) == 1 else None if not args else list(args)


def _stream(
    server: socketio.Server,
    runs: RunRegistry,
    run: Run,
    p: params.SimParams,
    cache: RunCache | None = None,
) -> None:
    """Emit sim_start, each sim_step and sim_done to the run's client, pacing the steps."""

    def send(event: str, body: str) -> bool:
        payload = Encoded(body, run.run_id)  # the run's id goes in front as it is sent
        return run.emit_unless_cancelled(
            lambda: server.emit(event, payload, to=run.sid, namespace=NAMESPACE)
        )

    try:
        if run.cancelled:  # replaced or cancelled before its task started
            return
        cached = cache.get(p) if cache is not None else None
        events = _replayed(cached) if cached is not None else _simulated(run, p, cache)
        stepped = False
        for event, body in events:
            if event == "sim_step":
                if stepped:
                    _pause(server, run, p.interval_ms / 1000)
                stepped = True
            if not send(event, body):
                return
    except CollectiveError as e:
        send("sim_error", encode({"error": str(e)}))
    except Exception:
        log.exception("lab run %s (%s) failed", run.run_id, p)
        message = "the simulation failed unexpectedly; the error was logged on the server"
        send("sim_error", encode({"error": message}))
    finally:
        runs.finish(run)


def _replayed(cached: EncodedRun) -> Iterator[tuple[str, str]]:
    """Yield the events of a run the engine already ran for the same parameters."""
    yield "sim_start", cached.start
    for body in cached.steps:
        yield "sim_step", body
    yield "sim_done", cached.done


def _simulated(run: Run, p: params.SimParams, cache: RunCache | None) -> Iterator[tuple[str, str]]:
    """Run the engine and yield its events, each serialized when it is about to be sent.

    A run whose events were all serialized is kept in `cache`; none is yielded for a run
    cancelled while it waited for an engine slot.
    """
    with ENGINE_SLOTS:
        if run.cancelled:  # replaced or cancelled while waiting: skip the engine
            return
        trace = simulate(**p.simulate_kwargs())
    start = encode(serialize.start(trace))
    yield "sim_start", start
    steps = []
    for step in trace.steps:
        steps.append(encode(serialize.step(trace, step)))
        yield "sim_step", steps[-1]
    done = encode(serialize.done(trace))
    if cache is not None:
        cache.put(p, EncodedRun(start, tuple(steps), done))
    yield "sim_done", done


def _pause(server: socketio.Server, run: Run, seconds: float) -> None:
    """Sleep `seconds` in short slices, returning early once the run is cancelled."""
    server.sleep(0)  # yield even when unpaced, so other clients' tasks get their turn
    remaining = seconds
    while remaining > 0 and not run.cancelled:
        server.sleep(min(SLICE_S, remaining))
        remaining -= SLICE_S
