"""Streaming: events per second to one client, the full lab stack against a bare python-socketio.

Both servers run as their own process, served the same way (Werkzeug's threaded server, as
`socketio.run` does in async_mode="threading", with simple-websocket, TCP_NODELAY on the
Socket.IO connections as the app sets it). One client, on the websocket transport, asks each
in turn for a ring allreduce of 64 ranks x 64 elements with interval_ms=0 and counts events
until `sim_done`:

- full stack: `python -m app`; the engine runs, the trace is serialized, every step emitted.
- bare: a minimal python-socketio Server that, on `simulate`, emits the very same events (the
  app's own payloads, recorded once at start-up through Flask-SocketIO's test client, with a
  run id of the same length), back to back, with no engine and no serialization.
- bare computing (with the run cache off only): the same minimal server doing the lab's work
  the library's own way: on `simulate` it runs the engine, builds the same payload dicts
  (app/web/compact.py, the narration) and emits each with python-socketio's `emit`, which
  encodes it.

The ratio full / bare says how much of the library's own ceiling the lab keeps: with the run
cache on, a repeated run is a replay on both sides. With it off the full stack also runs the
engine and encodes, which a replay never does, so full / bare computing is the like-for-like
figure, and full / bare says what that work costs. Runs alternate between the servers so that
other load on the machine hits them alike.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import threading
import time
import uuid

from .common import OrderedClient, ServerProcess, app_server, no_delay, own_cpu_seconds

PARAMS = {
    "collective": "allreduce",
    "algorithm": "ring",
    "ranks": 64,
    "elements": 64,
    "interval_ms": 0,
}
RUNS = 8
MAX_SECONDS = 120
RUN_TIMEOUT = 30.0
TARGET = 1.00  # issue 17: streaming stays >= 100% of bare python-socketio


# --------------------------------------------------------------------------- the bare server


def record_payloads(params: dict) -> list[tuple[str, dict]]:
    """Return the events the lab sends for `params`, in order, via Flask-SocketIO's test client."""
    from app import create_app
    from app.web.extensions import socketio as flask_socketio

    app = create_app({"TESTING": True})
    client = flask_socketio.test_client(app)
    client.emit("simulate", params, callback=True)
    events: list[tuple[str, dict]] = []
    deadline = time.monotonic() + RUN_TIMEOUT
    while time.monotonic() < deadline:
        for message in client.get_received():
            events.append((message["name"], message["args"][0]))
        if any(name in ("sim_done", "sim_error") for name, _ in events):
            break
        time.sleep(0.01)
    client.disconnect()
    names = [name for name, _ in events]
    if not names or names[0] != "sim_start" or names[-1] != "sim_done":
        raise RuntimeError(f"could not record the lab's events: {names[:3]}...{names[-3:]}")
    return events


def computed_payloads(params: dict):
    """Yield the lab's events for `params` as dicts, each built when it is asked for: the engine's
    run, then sim_start, every sim_step with its narration, and sim_done (what
    app/web/live/runcache.encode_run encodes, before the encoding)."""
    from app.collectives import simulate
    from app.web import compact, serialize

    trace = simulate(**{k: v for k, v in params.items() if k != "interval_ms"})
    yield "sim_start", compact.start(trace)
    for s, narration in zip(trace.steps, serialize.narrations(trace), strict=True):
        yield "sim_step", compact.step(trace, s, narration)
    yield "sim_done", serialize.done(trace)


def serve_bare(host: str, port: int, params: dict, compute: bool = False) -> None:
    """Serve a minimal python-socketio server that, on `simulate`, replays the lab's events or,
    with `compute`, computes them as the lab does and emits each as a dict."""
    import json

    import socketio
    from werkzeug.serving import run_simple

    events = record_payloads(params)
    total_bytes = sum(len(json.dumps(payload, separators=(",", ":"))) for _, payload in events)
    sio = socketio.Server(async_mode="threading", max_http_buffer_size=64 * 1024)

    def replay(sid: str, run_id: str) -> None:
        for name, payload in computed_payloads(params) if compute else events:
            sio.emit(name, {**payload, "run_id": run_id}, to=sid)

    @sio.on("simulate")
    def simulate(sid, data):
        run_id = uuid.uuid4().hex[:16]
        sio.start_background_task(replay, sid, run_id)
        return {"ok": True, "run_id": run_id, "events": len(events), "bytes": total_bytes}

    def health(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    with contextlib.suppress(KeyboardInterrupt):
        run_simple(host, port, no_delay(socketio.WSGIApp(sio, health)), threaded=True)


def bare_server(params: dict, compute: bool = False) -> ServerProcess:
    args = ["--ranks", str(params["ranks"]), "--elements", str(params["elements"])]
    args += ["--compute"] if compute else []
    return ServerProcess(["-m", "bench.streaming", "--bare-server", *args], ready_path="/")


# --------------------------------------------------------------------------- the client


class Counter:
    """One client that runs a simulation and counts its events until sim_done."""

    def __init__(self, url: str) -> None:
        self.sio = OrderedClient(reconnection=False)
        self.cond = threading.Condition()
        self.events = 0
        self.steps = 0
        self.bad = 0
        self.next_index = 0
        self.t_first: float | None = None
        self.t_done: float | None = None
        self.refused = 0  # rate-limited requests, waited out
        self.sio.on("*", self._on_event)
        self.sio.connect(url, transports=["websocket"], wait_timeout=10)

    def _on_event(self, event: str, data: object = None) -> None:
        now = time.perf_counter()
        with self.cond:
            self.events += 1
            if event == "sim_step":
                self.steps += 1
                if self.t_first is None:
                    self.t_first = now
                if isinstance(data, dict) and data.get("index") == self.next_index:
                    self.next_index += 1
                else:
                    self.bad += 1
            elif event in ("sim_done", "sim_error"):
                self.t_done = now
                if event == "sim_error" or not (isinstance(data, dict) and data.get("verified")):
                    self.bad += 1
                self.cond.notify_all()

    def run(self, params: dict) -> dict:
        """Run once; return events, steps, seconds emit->done and first step->done.

        A refusal that carries retry_after_s (the lab's rate limit) is waited out and the run
        asked again; only the accepted run is timed.
        """
        for _ in range(10):
            with self.cond:
                self.events = self.steps = self.bad = self.next_index = 0
                self.t_first = self.t_done = None
            ack: dict = {}
            start = time.perf_counter()
            self.sio.emit("simulate", params, callback=lambda a=None, box=ack: self._ack(box, a))
            with self.cond:
                if not self.cond.wait_for(
                    lambda box=ack: self.t_done is not None or bool(box), RUN_TIMEOUT
                ):
                    raise RuntimeError(f"no ack within {RUN_TIMEOUT:.0f} s")
                if not ack.get("ok") and isinstance(ack.get("retry_after_s"), int | float):
                    retry = float(ack["retry_after_s"])
                else:
                    if not ack.get("ok", True):
                        raise RuntimeError(f"simulate refused: {ack.get('error')}")
                    if not self.cond.wait_for(lambda: self.t_done is not None, RUN_TIMEOUT):
                        raise RuntimeError(f"no sim_done within {RUN_TIMEOUT:.0f} s")
                    return {
                        "events": self.events,
                        "steps": self.steps,
                        "bad": self.bad,
                        "total": self.t_done - start,
                        "stream": self.t_done - (self.t_first or start),
                        "bytes": ack.get("bytes"),
                    }
            self.refused += 1
            time.sleep(min(retry, 5.0))
        raise RuntimeError("simulate refused 10 times in a row")

    def _ack(self, box: dict, ack: object) -> None:
        with self.cond:
            box.update(ack if isinstance(ack, dict) else {"ok": False, "error": repr(ack)})
            self.cond.notify_all()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.sio.disconnect()


LABELS = {
    "full": "full stack (python -m app)",
    "bare": "bare python-socketio",
    "computing": "bare python-socketio computing",
}


def run(
    runs: int = RUNS,
    ranks: int = PARAMS["ranks"],
    elements: int = PARAMS["elements"],
    cache: bool = False,
) -> dict:
    """Measure the servers, alternating runs; print and return the figures.

    The runs repeat one parameter set, which the app's run cache (app/web/live/runcache.py) would
    serve without the engine after the first: by default the cache is off, so the full stack
    computes and encodes every run, and is measured against the bare server computing too;
    `cache=True` measures the repeated-run path instead.
    """
    runs = max(1, min(runs, 50))
    params = {**PARAMS, "ranks": ranks, "elements": elements}
    print(
        f"streaming: one client, ring allreduce {ranks} ranks x {elements}, "
        f"interval_ms=0, {runs} runs per server (after one warm-up), alternating; "
        f"app run cache {'on (repeated runs skip the engine)' if cache else 'off'}"
    )
    names = ["full", "bare"] if cache else ["full", "bare", "computing"]
    results: dict[str, list[dict]] = {name: [] for name in names}
    cpu = dict.fromkeys(names, 0.0)
    client_cpu = dict.fromkeys(names, 0.0)
    deadline = time.monotonic() + MAX_SECONDS
    env = None if cache else {"COLLECTIVE_LAB_LAB_RUN_CACHE_BYTES": "0"}
    with contextlib.ExitStack() as stack:
        servers = {"full": stack.enter_context(app_server(env))}
        servers["bare"] = stack.enter_context(bare_server(params))
        if not cache:
            servers["computing"] = stack.enter_context(bare_server(params, compute=True))
        clients = {name: Counter(s.url) for name, s in servers.items()}
        try:
            for c in clients.values():
                c.run(params)  # warm-up
            for _ in range(runs):
                if time.monotonic() > deadline:
                    break
                for name, c in clients.items():
                    s0, c0 = servers[name].cpu_seconds(), own_cpu_seconds()
                    results[name].append(c.run(params))
                    cpu[name] += servers[name].cpu_seconds() - s0
                    client_cpu[name] += own_cpu_seconds() - c0
        finally:
            for c in clients.values():
                c.close()
    out: dict = {}
    for name in names:
        rs = results[name]
        events = sum(r["events"] for r in rs)
        total = sum(r["total"] for r in rs)
        stream = sum(r["stream"] for r in rs)
        steps = sum(r["steps"] for r in rs)
        out[name] = {
            "events_per_s": events / total,
            "steps_per_s_streaming": steps / stream,
            "run_ms": statistics.median(r["total"] for r in rs) * 1e3,
            "bad": sum(r["bad"] for r in rs),
            "server_cpu_per_run_ms": cpu[name] / len(rs) * 1e3,
            "client_cpu_per_run_ms": client_cpu[name] / len(rs) * 1e3,
            "events_per_run": rs[0]["events"],
        }
        o = out[name]
        print(
            f"  {LABELS[name]:<31} {o['events_per_s']:>7.0f} events/s (simulate->sim_done), "
            f"{o['steps_per_s_streaming']:>7.0f} steps/s (first step->sim_done); run median "
            f"{o['run_ms']:.0f} ms; server CPU {o['server_cpu_per_run_ms']:.0f} ms/run, "
            f"client CPU {o['client_cpu_per_run_ms']:.0f} ms/run; bad events {o['bad']}"
        )
    size = next((r["bytes"] for r in results["bare"] if r["bytes"]), None)
    if size:
        print(
            f"  each run: {out['bare']['events_per_run']} events, {size / 1e6:.2f} MB of JSON "
            f"({size / out['bare']['events_per_run'] / 1e3:.1f} kB/event on average)"
        )
    out["cache"] = cache
    out["ratio"], out["stream_ratio"] = _ratios(out["full"], out["bare"])
    print(
        f"  full / bare: {out['ratio']:.1%} end to end; {out['stream_ratio']:.1%} while streaming "
        "(first step->sim_done)"
        + ("" if cache else ": the replay runs no engine and encodes nothing")
    )
    like = out.get("computing")
    if like:
        out["like_ratio"], _ = _ratios(out["full"], like)
    judged = out.get("like_ratio", out["ratio"])
    print(
        f"  like for like ({'both compute every run' if like else 'both replay'}): "
        f"{judged:.1%} (target >= {TARGET:.0%}: {'met' if judged >= TARGET else 'NOT met'})"
    )
    return out


def _ratios(full: dict, other: dict) -> tuple[float, float]:
    """Return full's events/s and steps/s while streaming, each over `other`'s."""
    return (
        full["events_per_s"] / other["events_per_s"],
        full["steps_per_s_streaming"] / other["steps_per_s_streaming"],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.streaming", description=__doc__)
    parser.add_argument("--runs", type=int, default=RUNS, help="timed runs per server (max 50)")
    parser.add_argument("--ranks", type=int, default=PARAMS["ranks"])
    parser.add_argument("--elements", type=int, default=PARAMS["elements"])
    parser.add_argument("--cache", action="store_true", help="leave the app's run cache on")
    parser.add_argument("--bare-server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--compute", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--host", default="127.0.0.1", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.bare_server:
        if args.host != "127.0.0.1":
            parser.error("the bare server binds 127.0.0.1 only")
        bare = {**PARAMS, "ranks": args.ranks, "elements": args.elements}
        serve_bare(args.host, args.port, bare, compute=args.compute)
    else:
        run(args.runs, args.ranks, args.elements, args.cache)
    return 0


if __name__ == "__main__":
    sys.exit(main())
