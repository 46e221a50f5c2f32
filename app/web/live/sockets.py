"""The live lab's Socket.IO events: run a simulation and stream its steps to the client that asked.

Protocol (docs/lab.md): the client emits `simulate` and gets an ack `{ok, run_id}` or
`{ok: false, error}`; a background task runs the engine and emits `sim_start`, one `sim_step`
per step (paced by `interval_ms`), then `sim_done` — or `sim_error` — to that client only.
`cancel`, a new `simulate` or a disconnect ends the client's run between two steps. A run
whose parameters match a recent run's is streamed from the run cache (app/web/live/runcache.py)
without the engine; every payload is encoded to JSON once (app/web/live/socket_json.py).

The handlers are bound to each app's own python-socketio server (`init_app(app, server)`)
rather than through `@socketio.on`: the module-level `SocketIO` extension dispatches events
through the server of the *last* app it was bound to, so any app created later (a test's)
would silently drop the events of an earlier one (a live server's). Streams still use that
server's `start_background_task`, `sleep` and `emit(..., to=sid)`.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from socket import IPPROTO_TCP, TCP_NODELAY

import socketio
from flask import Flask

from app.collectives import CollectiveError, simulate
from app.i18n.errors import translate_error

from .. import params
from ..errors import InputError
from ..guard import admission
from ..guard.admission import Busy, Lanes
from ..guard.limits import RateLimited, TokenBuckets
from . import bad_input, language, memory, send_queue
from .outbox import DEFAULT_PACING, Outbox, Pacing
from .runcache import EncodedRun, RunCache, encode_run
from .runs import Run, RunRegistry
from .socket_json import UNDECODABLE

NAMESPACE = "/"
SLICE_S = 0.05  # longest a paced task sleeps before looking at its cancel flag again
KNOWN_EVENTS = ("simulate", "cancel")

log = logging.getLogger(__name__)


def init_app(app: Flask, server: socketio.Server) -> None:
    """Bind the lab's events to `server`, the Socket.IO server of `app`."""
    app.wsgi_app = _no_delay(app.wsgi_app)
    lab_admission, lanes = admission.from_config(app.config)
    runs = RunRegistry(app.config["MAX_ACTIVE_RUNS"], admission=lab_admission)
    app.extensions["lab_admission"] = lab_admission
    app.extensions["lab_lanes"] = lanes
    send_queue.install(server)  # each connection counts the bytes waiting for its client
    memory.fix_mmap_threshold()
    memory.limit_arenas()
    # Trim when no run is left, Socket.IO or HTTP: both hold an admission ticket.
    trimmer = memory.IdleTrimmer(
        lab_admission.idle, trim=memory.malloc_trim, background=memory.start_daemon_thread
    )
    lab_admission.on_idle = trimmer.on_idle
    app.extensions["lab_runs"] = runs
    app.extensions["lab_trimmer"] = trimmer
    cache = RunCache(app.config["LAB_RUN_CACHE_BYTES"])
    app.extensions["lab_run_cache"] = cache
    noted = bad_input.BadInputLog(interval_s=app.config["BAD_INPUT_LOG_INTERVAL_S"])
    app.extensions["bad_input_log"] = noted
    bad_input.guard(app, server, noted)  # malformed packets: one log line, no traceback
    handlers = _Handlers(app, server, runs, cache, noted)
    server.on("connect", language.check, namespace=NAMESPACE)
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
        self.lanes: Lanes = app.extensions["lab_lanes"]
        self.pacing = Pacing.from_config(app.config)

    def simulate(self, sid: str, *args) -> dict:
        """Validate the parameters, replace the client's run with a new one, and ack its id."""
        try:
            p = params.parse(
                _single(args, "simulate"),
                max_ranks=self.app.config["LAB_MAX_RANKS"],
                max_cells=self.app.config["LAB_MAX_CELLS"],
            )
        except InputError as e:  # said in the connection's language (app/i18n/errors.py)
            lang = language.of(self.server, sid, NAMESPACE)
            return {"ok": False, "error": translate_error(lang, str(e))}
        if self._too_far_behind(sid):
            return {"ok": False, "error": "your connection is not keeping up: disconnected"}
        try:
            self.rate.take(sid)
            lang = language.of(self.server, sid, NAMESPACE)
            cached = self.cache.get(p, lang)
            # A cached run keeps only its text; any other reserves the engine's peak first.
            nbytes = _held_bytes(cached) if cached is not None else admission.stream_bytes(p)
            run = self.runs.start(sid, self._address(sid), nbytes, self.lanes.is_small(p), lang)
        except RateLimited as e:
            return {"ok": False, "error": str(e), "retry_after_s": round(e.retry_after_s, 3)}
        except Busy as e:
            return _refusal(e)
        self.server.start_background_task(
            _stream, self.server, self.runs, run, p, self.cache, self.lanes, cached, self.pacing
        )
        return {"ok": True, "run_id": run.run_id}

    def _too_far_behind(self, sid: str) -> bool:
        """Drop the connection of a client that asks for more while not reading what it has.

        A stream waits while more than `queue_bytes` wait for its client and ends when the
        client takes nothing for a while; a client that still sends `simulate` with twice that
        waiting is reading nothing at all. Closing it frees its queue.
        """
        bound = self.pacing.queue_bytes
        waiting = send_queue.pending_bytes(self.server, sid)
        if bound is None or waiting <= 2 * bound:
            return False
        self._note(sid, f"connection closed: {waiting} bytes were waiting to be sent to it")
        send_queue.drop(self.server, sid)
        return True

    def cancel(self, sid: str, *args) -> dict:
        """Cancel the client's run; cancelling an unknown or finished run is harmless."""
        data = _single(args, "cancel") if args else {}
        run_id = data.get("run_id") if isinstance(data, dict) else None
        if not isinstance(data, dict) or not isinstance(run_id, str | None):
            return {"ok": False, "error": "cancel takes {run_id: <the id from the simulate ack>}"}
        return {"ok": True, "cancelled": self.runs.cancel(sid, run_id)}

    def undecodable(self, sid: str, *args) -> dict:
        """Answer a message whose JSON could not be loaded (see app/web/live/socket_json.py)."""
        reason = args[0] if args and isinstance(args[0], str) else "invalid JSON"
        self._note(sid, f"malformed event ({reason})")
        return {
            "ok": False,
            "error": f"the message could not be decoded ({reason}): send a JSON object of "
            "parameters; integers may have at most 100 digits",
        }

    def unknown(self, *args) -> dict:
        """Answer an event this server does not know (acked only if the client asked)."""
        name, sid = bad_input.caught_event(self.server, NAMESPACE, args)
        self._note(sid, f"unknown event {name!r}")
        known = ", ".join(KNOWN_EVENTS)
        return {"ok": False, "error": f"unknown event {name!r}; known events: {known}"}

    def _note(self, sid: str, what: str) -> None:
        """Log a client's bad input, at most once per address per interval."""
        self.noted.note(self._address(sid), what)

    def _address(self, sid: str) -> str:
        """Return the address client `sid` connected from."""
        environ = self.server.get_environ(sid, NAMESPACE) or {}
        return environ.get("REMOTE_ADDR") or "unknown"

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


class TooLong(Exception):
    """A run's pace would hold it past LAB_MAX_RUN_S; the message names interval_ms."""


def _refusal(e: Busy) -> dict:
    """Return the ack of a run admission refused; retry_after_s only when a retry can help."""
    ack = {"ok": False, "error": str(e)}
    if e.retry_after_s is not None:
        ack["retry_after_s"] = e.retry_after_s
    return ack


def _held_bytes(encoded: EncodedRun) -> int:
    """Return what a run keeps while it streams: its payloads, and their copies being sent."""
    return 2 * encoded.nbytes


def _stream(
    server: socketio.Server,
    runs: RunRegistry,
    run: Run,
    p: params.SimParams,
    cache: RunCache | None = None,
    lanes: Lanes | None = None,
    cached: EncodedRun | None = None,
    pacing: Pacing = DEFAULT_PACING,
) -> None:
    """Emit sim_start, each sim_step and sim_done to the run's client, pacing the steps.

    `cached` is the run's payloads when the run cache had them; otherwise the engine runs in
    a slot of `lanes`, and the run is kept in `cache` once all its payloads are encoded.
    """
    out = Outbox(server, run, pacing)
    try:
        if run.cancelled:  # replaced or cancelled before its task started
            return
        if cached is None:
            cached = _simulated(run, p, lanes, pacing, out)
            if cached is None:  # cancelled before all its payloads were encoded
                return
            if cache is not None:
                cache.put(p, cached, run.lang)
        else:
            _check_pace(p, len(cached.steps), pacing)
        runs.resize(run, _held_bytes(cached))  # the engine's buffers are gone
        _play(server, run, p, cached, out)
    except (CollectiveError, TooLong) as e:
        out.fail(str(e))
    except Exception:
        log.exception("lab run %s (%s) failed", run.run_id, p)
        out.fail("the simulation failed unexpectedly; the error was logged on the server")
    finally:
        runs.finish(run)


def _check_pace(p: params.SimParams, total_steps: int, pacing: Pacing) -> None:
    """Raise TooLong if `p.interval_ms` would hold the run past `pacing.max_run_s`."""
    if pacing.max_run_s is not None:
        reason = admission.too_long(p, total_steps, pacing.max_run_s)
        if reason:
            raise TooLong(reason)


def _simulated(
    run: Run, p: params.SimParams, lanes: Lanes | None, pacing: Pacing, out: Outbox
) -> EncodedRun | None:
    """Run the engine in a slot of its lane and encode every payload; free the trace.

    sim_start and the first sim_step go out as soon as they are encoded, so the first step
    reaches the browser before the rest are encoded. None for a run cancelled before that
    was done; one cancelled while it waited for a slot skips the engine.
    """
    slot = lanes.slot(lanes.is_small(p)) if lanes is not None else contextlib.nullcontext()
    with slot:
        if run.cancelled:
            return None
        trace = simulate(**p.simulate_kwargs())
        _check_pace(p, trace.total_steps, pacing)
        return encode_run(trace, out.send_early, lambda: run.cancelled, run.lang)


def _play(
    server: socketio.Server, run: Run, p: params.SimParams, encoded: EncodedRun, out: Outbox
) -> None:
    """Emit the run's events that were not sent yet, `interval_ms` apart from step to step."""
    events = [("sim_start", encoded.start)]
    events += [("sim_step", body) for body in encoded.steps]
    events.append(("sim_done", encoded.done))
    for i in range(out.sent, len(events)):
        event, body = events[i]
        if i >= 2 and event == "sim_step":  # not before the first step
            _pause(server, run, p.interval_ms / 1000)
        if not out.send(event, body):
            return


def _pause(server: socketio.Server, run: Run, seconds: float) -> None:
    """Sleep `seconds` in short slices, returning early once the run is cancelled."""
    server.sleep(0)  # yield even when unpaced, so other clients' tasks get their turn
    remaining = seconds
    while remaining > 0 and not run.cancelled:
        server.sleep(min(SLICE_S, remaining))
        remaining -= SLICE_S
