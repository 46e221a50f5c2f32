"""Load and faults: many Socket.IO clients against the lab server, which runs as its own process.

Load (`--clients K --seconds T`, or `--sweep 10,50,100,200`): K python-socketio clients, each
on its own thread and websocket, run ring allreduce (16 ranks x 256 elements, interval_ms=0)
back to back for T seconds: a closed loop, every client waiting for its run's `sim_done`
before it asks again. Each run is checked: an ok ack, one `sim_start`, every `sim_step` index
once and in order, a verified `sim_done` with the same step count. The tool reports runs,
events, errors, lost and out-of-order steps, latency from `simulate` to `sim_done`, the
server's RSS and CPU, and, for a sweep, the knee: the first K whose p99 passes 1 s or that
sees an error, a lost or an out-of-order step. A closed loop at saturation has latency about
K / throughput, so the knee says how many simultaneous clients the server's throughput serves.
`--think S` adds a random 0.5..1.5 x S pause between a client's runs (students who watch the
animation before pressing Run again). `--distinct` gives every run its own seed, so no run
repeats another and the server's run cache (LAB_RUN_CACHE_BYTES) never serves one: the figure
for a class whose every student asks something new; without it every run asks the same. A
refusal that carries `retry_after_s` (the server's rate limit or its "server busy" cap) is
counted apart, and the client waits as told before asking again; "server busy" counts against
the target, a rate-limit refusal does not.

Faults (`--faults`): clients that drop mid-run (half a clean disconnect, half a TCP reset) and
reconnect, that send `cancel` twice, and that flood `simulate` (normal runs, then the largest
run the lab allows). A probe client runs a normal run every half second throughout. After
each phase the server must answer a normal run within a bound, its threads (one per live run
and two per connection; the server does not expose its run count) must return to the idle
count, and its RSS should return near the baseline.

Everything is bounded: at most MAX_CLIENTS clients, MAX_SECONDS per load point, RUN_TIMEOUT
per run, and only 127.0.0.1.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import random
import socket
import struct
import sys
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .common import (
    OrderedClient,
    ServerProcess,
    app_server,
    loadavg,
    machine_busy_seconds,
    own_cpu_seconds,
    percentile,
)

PARAMS = {
    "collective": "allreduce",
    "algorithm": "ring",
    "ranks": 16,
    "elements": 256,
    "interval_ms": 0,
}
# The largest run the lab accepts (LAB_MAX_RANKS 64 x LAB_MAX_CELLS 1<<18 / 64).
BIG_PARAMS = {**PARAMS, "ranks": 64, "elements": 4096}
SEEDS = itertools.count(1)  # --distinct: every run's own seed (the warm-up uses seed 0)
MAX_CLIENTS = 200
MAX_SECONDS = 60
RUN_TIMEOUT = 30.0
CONNECT_TIMEOUT = 10.0
KNEE_P99_S = 1.0
CONNECT_WORKERS = 16
# The load clients are one class behind one address, 127.0.0.1, and the server is told so as a
# school would tell it (settings: CLASS_NETWORKS); otherwise MAX_CONNECTIONS_PER_ADDRESS (32)
# and LAB_RUNS_PER_ADDRESS (4) refuse most of them, and the load test measures the refusals.
CLASS_ENV = {"COLLECTIVE_LAB_CLASS_NETWORKS": "127.0.0.1/32"}


# --------------------------------------------------------------------------- one client


class RunLog:
    """What one client received for one run, checked as it arrives."""

    __slots__ = (
        "starts",
        "total",
        "seen",
        "last",
        "out_of_order",
        "after_done",
        "events",
        "t_first",
        "t_done",
        "verified",
        "done_total",
        "error",
        "finished",
    )

    def __init__(self) -> None:
        self.starts = 0
        self.total: int | None = None
        self.seen: set[int] = set()
        self.last = -1
        self.out_of_order = 0
        self.after_done = 0
        self.events = 0
        self.t_first: float | None = None
        self.t_done: float | None = None
        self.verified: object = None
        self.done_total: object = None
        self.error: str | None = None
        self.finished = False

    def record(self, event: str, data: dict, now: float) -> None:
        self.events += 1
        if self.finished:
            self.after_done += 1
        if event == "sim_start":
            self.starts += 1
            self.total = data.get("total_steps")
            if self.seen:
                self.out_of_order += 1  # a step came before its sim_start
        elif event == "sim_step":
            index = data.get("index")
            if self.t_first is None:
                self.t_first = now
            if not isinstance(index, int) or index in self.seen or index < self.last:
                self.out_of_order += 1
            else:
                self.last = index
            if isinstance(index, int):
                self.seen.add(index)
        elif event == "sim_done":
            self.t_done = now
            self.verified = data.get("verified")
            self.done_total = data.get("total_steps")
            self.finished = True
        elif event == "sim_error":
            self.t_done = now
            self.error = f"sim_error: {data.get('error')}"
            self.finished = True

    @property
    def lost(self) -> int:
        return max(0, (self.total or 0) - len(self.seen))

    def problem(self) -> str | None:
        """Return what is wrong with the finished run, or None."""
        if self.error:
            return self.error
        if self.starts != 1:
            return f"{self.starts} sim_start events"
        if self.verified is not True:
            return f"sim_done verified={self.verified!r}"
        if self.done_total != self.total:
            return f"sim_done total_steps {self.done_total} != sim_start {self.total}"
        if self.lost or self.out_of_order or self.after_done:
            return "lost or out-of-order steps"
        return None


@dataclass
class Pending:
    """A `simulate` this client sent: its ack once it comes."""

    t_emit: float
    ack: object = None
    acked: bool = False
    t_ack: float | None = None

    @property
    def run_id(self) -> str | None:
        ack = self.ack
        if isinstance(ack, dict) and ack.get("ok") and isinstance(ack.get("run_id"), str):
            return ack["run_id"]
        return None


@dataclass
class Tally:
    """Counts and timings from some clients, mergeable."""

    runs_ok: int = 0
    runs_failed: int = 0
    events: int = 0
    stray: int = 0  # events of a run this client had already finished with
    lost: int = 0
    out_of_order: int = 0
    rate_limited: int = 0  # refused with retry_after_s: over the per-connection rate
    busy: int = 0  # refused with retry_after_s: "server busy", the cap on concurrent runs
    refusals: Counter = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    first_steps: list[float] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)

    def merge(self, other: Tally) -> None:
        for name in (
            "runs_ok",
            "runs_failed",
            "events",
            "stray",
            "lost",
            "out_of_order",
            "rate_limited",
            "busy",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.latencies += other.latencies
        self.first_steps += other.first_steps
        self.errors.update(other.errors)
        self.refusals.update(other.refusals)

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())


class LabClient:
    """One Socket.IO connection that runs simulations and checks every event it receives."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.sio = OrderedClient(reconnection=False)
        self.sio.on("*", self._on_event)
        self.sio.on("disconnect", self._on_disconnect)
        self.cond = threading.Condition()
        self.logs: dict[str, RunLog] = {}
        self.finished_ids: set[str] = set()
        self.tally = Tally()
        self.disconnected = False
        self.connect_s: float | None = None
        self.step_waiters = 0  # wake waiters on every event, not only at a run's end
        self.retry_after = 0.0  # what the last refusal asked this client to wait

    # events arrive on the client's read thread, in order; they must not block
    def _on_event(self, event: str, data: object = None) -> None:
        now = time.perf_counter()
        run_id = data.get("run_id") if isinstance(data, dict) else None
        with self.cond:
            self.tally.events += 1
            if run_id in self.finished_ids or not isinstance(data, dict):
                self.tally.stray += 1
                return
            log = self.logs.get(run_id)
            if log is None:
                log = self.logs[run_id] = RunLog()
            log.record(event, data, now)
            if log.finished or self.step_waiters:
                self.cond.notify_all()

    def _on_disconnect(self, *args) -> None:
        with self.cond:
            self.disconnected = True
            self.cond.notify_all()

    def _on_ack(self, pending: Pending, *args) -> None:
        with self.cond:
            pending.ack = args[0] if args else None
            pending.acked = True
            pending.t_ack = time.perf_counter()
            self.cond.notify_all()

    def connect(self) -> None:
        start = time.perf_counter()
        self.sio.connect(self.url, transports=["websocket"], wait_timeout=CONNECT_TIMEOUT)
        self.connect_s = time.perf_counter() - start

    def disconnect(self) -> None:
        with contextlib.suppress(Exception):
            self.sio.disconnect()

    def abort(self) -> None:
        """Drop the connection with a TCP reset: no Socket.IO or websocket goodbye."""
        ws = getattr(self.sio.eio, "ws", None)
        sock = getattr(ws, "sock", None)
        if sock is None:
            self.disconnect()
            return
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.shutdown(socket.SHUT_RD)  # wakes the client's read thread
            sock.close()  # linger 0: the kernel sends RST

    def send(self, params: dict) -> Pending:
        """Emit `simulate` without waiting."""
        pending = Pending(time.perf_counter())
        self.sio.emit("simulate", params, callback=lambda *a: self._on_ack(pending, *a))
        return pending

    def wait_ack(self, pending: Pending, timeout: float) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: pending.acked or self.disconnected, timeout)

    def wait_run(self, pending: Pending, timeout: float) -> RunLog | None:
        """Wait for the run's sim_done or sim_error; return its log (None: no run started)."""

        def settled() -> bool:
            if self.disconnected:
                return True
            if not pending.acked:
                return False
            run_id = pending.run_id
            return run_id is None or (run_id in self.logs and self.logs[run_id].finished)

        with self.cond:
            self.cond.wait_for(settled, timeout)
            run_id = pending.run_id
            return self.logs.get(run_id) if run_id else None

    def wait_steps(self, pending: Pending, steps: int, timeout: float) -> RunLog | None:
        """Wait until the run has delivered `steps` steps (or ended); return its log."""

        def enough() -> bool:
            log = self.logs.get(pending.run_id) if pending.run_id else None
            return (
                self.disconnected
                or (pending.acked and pending.run_id is None)
                or (log is not None and (len(log.seen) >= steps or log.finished))
            )

        with self.cond:
            self.step_waiters += 1
            try:
                self.cond.wait_for(enough, timeout)
            finally:
                self.step_waiters -= 1
            return self.logs.get(pending.run_id) if pending.run_id else None

    def forget(self, run_id: str | None) -> RunLog | None:
        """Stop tracking `run_id`: later events for it count as stray."""
        with self.cond:
            if run_id is None:
                return None
            self.finished_ids.add(run_id)
            return self.logs.pop(run_id, None)

    def run_once(self, params: dict, timeout: float = RUN_TIMEOUT) -> tuple[str | None, RunLog]:
        """Run one simulation to its end; tally it; return (problem or None, its log)."""
        pending = self.send(params)
        log = self.wait_run(pending, timeout)
        problem = None
        self.retry_after = 0.0
        if pending.acked and pending.run_id is None and _retry_after(pending.ack) is not None:
            # A refusal the server means to be retried: a rate limit or "server busy".
            self.retry_after = _retry_after(pending.ack)
            busy = "busy" in _error_of(pending.ack)
            with self.cond:
                if busy:
                    self.tally.busy += 1
                else:
                    self.tally.rate_limited += 1
                self.tally.refusals[_error_of(pending.ack)[:120]] += 1
            return f"refused: {_error_of(pending.ack)}", RunLog()
        if not pending.acked:
            problem = "disconnected" if self.disconnected else f"no ack within {timeout:.0f} s"
        elif pending.run_id is None:
            problem = f"refused: {_error_of(pending.ack)}"
        elif log is None or not log.finished:
            problem = "disconnected" if self.disconnected else f"no sim_done within {timeout:.0f} s"
        else:
            problem = log.problem()
        log = self.forget(pending.run_id) or log or RunLog()
        with self.cond:
            t = self.tally
            t.lost += log.lost if log.finished else 0
            t.out_of_order += log.out_of_order + log.after_done
            if problem is None:
                t.runs_ok += 1
                t.latencies.append(log.t_done - pending.t_emit)
                if log.t_first is not None:
                    t.first_steps.append(log.t_first - pending.t_emit)
            else:
                t.runs_failed += 1
                t.errors[problem[:120]] += 1
        return problem, log


def _error_of(ack: object) -> str:
    return str(ack.get("error")) if isinstance(ack, dict) else repr(ack)


def _retry_after(ack: object) -> float | None:
    """Return the ack's retry_after_s when it is a number, else None."""
    value = ack.get("retry_after_s") if isinstance(ack, dict) else None
    return float(value) if isinstance(value, int | float) else None


def parallel(fn: Callable, items: Iterable, workers: int, timeout: float) -> list:
    """Call `fn(item)` for every item on `workers` daemon threads; return the exceptions."""
    todo = list(items)
    lock = threading.Lock()
    failures: list = []

    def work() -> None:
        while True:
            with lock:
                if not todo:
                    return
                item = todo.pop()
            try:
                fn(item)
            except Exception as e:  # noqa: BLE001 - reported, not raised
                with lock:
                    failures.append(e)

    threads = [threading.Thread(target=work, daemon=True) for _ in range(workers)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    if any(t.is_alive() for t in threads):
        failures.append(TimeoutError(f"{len(todo)} items left after {timeout:.0f} s"))
    return failures


# --------------------------------------------------------------------------- server watch


class Monitor:
    """Sample the server's RSS and thread count every `period` seconds, keeping the maxima."""

    def __init__(self, server: ServerProcess, period: float = 0.1) -> None:
        self.server = server
        self.period = period
        self.peak_rss_mb = 0.0
        self.peak_threads = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(OSError):
                s = self.server.status()
                self.peak_rss_mb = max(self.peak_rss_mb, s["VmRSS"] / 1024)
                self.peak_threads = max(self.peak_threads, s["Threads"])
            self._stop.wait(self.period)

    def __enter__(self) -> Monitor:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(2)


def settle(server: ServerProcess, idle_threads: int, timeout: float) -> float:
    """Wait until the server is back to `idle_threads` threads; return the seconds it took."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if server.threads() <= idle_threads:
            return time.monotonic() - start
        time.sleep(0.1)
    return float("nan")


# --------------------------------------------------------------------------- load


@dataclass
class LoadResult:
    clients: int
    seconds: float
    think: float
    wall: float
    tally: Tally
    connect_failures: int
    connect_p50: float
    connect_max: float
    rss_before: float
    rss_peak: float
    hwm: float
    rss_after: float
    threads_before: int
    threads_peak: int
    threads_after: int
    server_cpu: float
    client_cpu: float
    other_cpu: float
    server_problems: list[str]
    loadavg: tuple[float, float, float] = (0.0, 0.0, 0.0)  # at the end of the point
    distinct: bool = False

    @property
    def p50(self) -> float:
        return percentile(self.tally.latencies, 50)

    @property
    def p99(self) -> float:
        return percentile(self.tally.latencies, 99)

    @property
    def ok(self) -> bool:
        t = self.tally
        return (
            t.error_count == 0
            and t.busy == 0
            and t.lost == 0
            and t.out_of_order == 0
            and t.stray == 0
            and t.runs_ok > 0
            and self.p99 <= KNEE_P99_S
        )


def run_params(distinct: bool = False) -> dict:
    """Return the parameters of the next load run: PARAMS, with a seed of its own if distinct."""
    return {**PARAMS, "seed": next(SEEDS)} if distinct else PARAMS


def load_point(
    server: ServerProcess,
    clients: int,
    seconds: float,
    think: float = 0.0,
    distinct: bool = False,
) -> LoadResult:
    """Run `clients` closed-loop clients for `seconds` against `server` and measure.

    `think` > 0: each client pauses a random 0.5..1.5 x `think` seconds after each run (and
    before its first), like a student reading the animation before pressing Run again.
    `distinct`: every run has a seed no other run had, so none is served from the run cache.
    """
    clients = max(1, min(clients, MAX_CLIENTS))
    seconds = max(1.0, min(seconds, MAX_SECONDS))
    mark = server.log_lines()
    idle = server.threads()
    rss_before = server.rss_mb()
    pool = [LabClient(server.url) for _ in range(clients)]
    failures = parallel(lambda c: c.connect(), pool, CONNECT_WORKERS, 60)
    connected = [c for c in pool if c.sio.connected]
    connect_errors = Counter(f"connect: {e!r}"[:120] for e in failures)
    server.reset_peak()
    cpu0, own0, all0 = server.cpu_seconds(), own_cpu_seconds(), machine_busy_seconds()
    barrier = threading.Barrier(len(connected) + 1)
    start_box: list[float] = []

    def loop(client: LabClient) -> None:
        barrier.wait(30)
        deadline = start_box[0] + seconds
        pause = random.Random(id(client))
        while time.monotonic() < deadline and not client.disconnected:
            if think:
                left = deadline - time.monotonic()
                time.sleep(max(0.0, min(think * pause.uniform(0.5, 1.5), left)))
                if time.monotonic() >= deadline:
                    break
            hard = deadline + RUN_TIMEOUT - time.monotonic()
            client.run_once(run_params(distinct), timeout=max(1.0, min(RUN_TIMEOUT, hard)))
            if client.retry_after:  # a well-behaved client waits as long as it was told
                time.sleep(min(client.retry_after, 5.0, max(0.0, deadline - time.monotonic())))

    threads = [threading.Thread(target=loop, args=(c,), daemon=True) for c in connected]
    with Monitor(server) as mon:
        for t in threads:
            t.start()
        start_box.append(time.monotonic())
        barrier.wait(30)
        for t in threads:
            t.join(seconds + RUN_TIMEOUT + 5)
        wall = time.monotonic() - start_box[0]
        server_cpu, client_cpu = server.cpu_seconds() - cpu0, own_cpu_seconds() - own0
        other_cpu = machine_busy_seconds() - all0 - server_cpu - client_cpu
        hwm = server.hwm_mb()
        parallel(lambda c: c.disconnect(), pool, CONNECT_WORKERS, 30)
        settle(server, idle, 10)
    tally = Tally()
    for c in pool:
        tally.merge(c.tally)
    tally.errors.update(connect_errors)
    connects = [c.connect_s for c in pool if c.connect_s is not None]
    return LoadResult(
        clients=clients,
        seconds=seconds,
        think=think,
        wall=wall,
        tally=tally,
        connect_failures=clients - len(connected),
        connect_p50=percentile(connects, 50),
        connect_max=max(connects, default=float("nan")),
        rss_before=rss_before,
        rss_peak=mon.peak_rss_mb,
        hwm=hwm,
        rss_after=server.rss_mb(),
        threads_before=idle,
        threads_peak=mon.peak_threads,
        threads_after=server.threads(),
        server_cpu=server_cpu,
        client_cpu=client_cpu,
        other_cpu=other_cpu,
        server_problems=server.problems(mark),
        loadavg=os.getloadavg(),
        distinct=distinct,
    )


def print_point(r: LoadResult) -> None:
    t = r.tally
    runs = t.runs_ok + t.runs_failed
    print(
        f"load: {r.clients} clients x {r.seconds:.0f} s (wall {r.wall:.1f} s), ring allreduce "
        f"{PARAMS['ranks']} ranks x {PARAMS['elements']}, interval_ms=0, "
        + (f"think {r.think:g} s (+-50%) between runs" if r.think else "back to back")
        + (", every run its own seed (--distinct)" if r.distinct else ", every run the same")
        + f"; load average {loadavg(r.loadavg)}"
    )
    print(
        f"  runs ok {t.runs_ok}, failed {t.runs_failed} ({runs / r.wall:.1f} runs/s); events "
        f"{t.events} ({t.events / r.wall:.0f}/s); errors {t.error_count}; lost steps {t.lost}; "
        f"out-of-order {t.out_of_order}; stray events {t.stray}; connect failures "
        f"{r.connect_failures}; refused: rate-limited {t.rate_limited}, server busy {t.busy}"
    )
    print(
        f"  latency simulate->sim_done p50 {r.p50 * 1e3:.0f} ms, p99 {r.p99 * 1e3:.0f} ms, max "
        f"{max(t.latencies, default=float('nan')) * 1e3:.0f} ms; simulate->first sim_step p50 "
        f"{percentile(t.first_steps, 50) * 1e3:.0f} ms, p99 "
        f"{percentile(t.first_steps, 99) * 1e3:.0f} ms; connect p50 {r.connect_p50 * 1e3:.0f} "
        f"ms, max {r.connect_max * 1e3:.0f} ms"
    )
    cpu_per_run = (r.server_cpu / t.runs_ok * 1e3) if t.runs_ok else float("nan")
    client_per_run = (r.client_cpu / t.runs_ok * 1e3) if t.runs_ok else float("nan")
    print(
        f"  server RSS before {r.rss_before:.0f} MB, peak {r.rss_peak:.0f} MB (VmHWM "
        f"{r.hwm:.0f} MB), after {r.rss_after:.0f} MB; threads {r.threads_before} -> peak "
        f"{r.threads_peak} -> {r.threads_after}"
    )
    print(
        f"  CPU: server {r.server_cpu:.1f} s ({r.server_cpu / r.wall:.2f} cores, "
        f"{cpu_per_run:.1f} ms/run), load clients {r.client_cpu:.1f} s "
        f"({r.client_cpu / r.wall:.2f} cores, {client_per_run:.1f} ms/run), other processes "
        f"{max(0.0, r.other_cpu) / r.wall:.2f} cores (of {os.cpu_count()})"
    )
    for message, count in t.errors.most_common(5):
        print(f"  error x{count}: {message}")
    for message, count in t.refusals.most_common(3):
        print(f"  refused x{count} (client waited retry_after_s and went on): {message}")
    if r.server_problems:
        print(
            f"  server log: {len(r.server_problems)} problem lines, first: "
            f"{r.server_problems[0][:160]}"
        )
    print(
        f"  => {'OK' if r.ok else 'NOT OK'} (target: no errors/lost/out-of-order, p99 <= "
        f"{KNEE_P99_S:.0f} s)"
    )


def warm_up(server: ServerProcess, runs: int = 10) -> None:
    """Run a few normal runs so imports, caches and allocator pools are in place."""
    idle = server.threads()
    client = LabClient(server.url)
    client.connect()
    for _ in range(runs):
        client.run_once(PARAMS)
    client.disconnect()
    settle(server, idle, 5)


def warm_pool(server: ServerProcess, n: int) -> None:
    """Open `n` connections at once and close them, so the server's thread pool is as wide as
    the phases will make it before the idle baseline is read.

    gunicorn's gthread worker serves each connection on a thread of a ThreadPoolExecutor, which
    starts its threads as they are first needed and keeps them: a pool grown by a phase is not a
    leak, and threads above its width are.
    """
    pool = _connect_all(server.url, n)
    for c in pool:
        c.disconnect()
    time.sleep(1)


def load(
    clients: int,
    seconds: float,
    think: float = 0.0,
    distinct: bool = False,
    server_env: dict | None = None,
) -> LoadResult:
    """One load point on a fresh server."""
    with app_server({**CLASS_ENV, **(server_env or {})}) as server:
        warm_up(server)
        result = load_point(server, clients, seconds, think, distinct)
        print_point(result)
    print(f"  {server.shutdown()}")
    return result


def sweep(
    counts: list[int],
    seconds: float,
    refine: int = 2,
    think: float = 0.0,
    distinct: bool = False,
    server_env: dict | None = None,
) -> list[LoadResult]:
    """Run every client count on one server, then bisect towards the knee `refine` times."""
    results: list[LoadResult] = []
    with app_server({**CLASS_ENV, **(server_env or {})}) as server:
        warm_up(server)
        for k in sorted(set(counts)):
            results.append(load_point(server, k, seconds, think, distinct))
            print_point(results[-1])
            time.sleep(1)
        for _ in range(refine):
            lo, hi = _bracket(results)
            if hi is None or hi - lo <= max(2, hi // 10):
                break
            results.append(load_point(server, (lo + hi) // 2, seconds, think, distinct))
            print_point(results[-1])
            time.sleep(1)
        print_sweep(results, server)
    print(server.shutdown())
    return results


def _bracket(results: list[LoadResult]) -> tuple[int, int | None]:
    """Return (largest ok K below the first failing K, first failing K or None)."""
    ordered = sorted(results, key=lambda r: r.clients)
    first_bad = next((r.clients for r in ordered if not r.ok), None)
    oks = [r.clients for r in ordered if r.ok and (first_bad is None or r.clients < first_bad)]
    return (max(oks) if oks else 0), first_bad


def print_sweep(results: list[LoadResult], server: ServerProcess) -> None:
    think = results[0].think if results else 0
    distinct = results[0].distinct if results else False
    print(
        "\nload sweep (closed loop, "
        + (f"{think:g} s think time between runs" if think else "each client back to back")
        + (", every run its own seed):" if distinct else ", every run the same):")
    )
    print(
        f"{'clients':>7} {'runs':>6} {'runs/s':>7} {'events/s':>8} {'errors':>6} {'refused':>7} "
        f"{'lost':>5} {'ooo':>4} {'p50 ms':>7} {'p99 ms':>7} {'RSS peak':>8} {'srv cores':>9} "
        f"{'srv ms/run':>10} {'cli cores':>9} {'others':>6} {'load avg':>8} {'ok':>3}"
    )
    for r in sorted(results, key=lambda r: r.clients):
        t = r.tally
        print(
            f"{r.clients:>7} {t.runs_ok:>6} {t.runs_ok / r.wall:>7.1f} "
            f"{t.events / r.wall:>8.0f} {t.error_count:>6} {t.rate_limited + t.busy:>7} "
            f"{t.lost:>5} "
            f"{t.out_of_order:>4} {r.p50 * 1e3:>7.0f} {r.p99 * 1e3:>7.0f} "
            f"{r.rss_peak:>6.0f}MB {r.server_cpu / r.wall:>9.2f} "
            f"{r.server_cpu / max(1, t.runs_ok) * 1e3:>10.1f} {r.client_cpu / r.wall:>9.2f} "
            f"{max(0.0, r.other_cpu) / r.wall:>6.2f} {r.loadavg[0]:>8.2f} "
            f"{'yes' if r.ok else 'no':>3}"
        )
    lo, hi = _bracket(results)
    best = max(results, key=lambda r: r.tally.runs_ok / r.wall)
    rate = best.tally.runs_ok / best.wall
    if hi is None:
        print(f"knee: not reached; every point up to {lo} clients met the target")
    else:
        print(
            f"knee: between {lo} and {hi} clients (first K with p99 > {KNEE_P99_S:.0f} s or "
            f"an error: {hi})"
        )
    print(
        f"peak throughput {rate:.1f} runs/s at {best.clients} clients"
        + (
            f"; back to back, p50 latency ~ K / throughput, so ~{rate * KNEE_P99_S:.0f} clients "
            f"fit in {KNEE_P99_S:.0f} s of median latency"
            if not think
            else ""
        )
    )
    print(
        f"server RSS at the end of the sweep {server.rss_mb():.0f} MB, threads {server.threads()}"
    )


# --------------------------------------------------------------------------- faults


class Probe:
    """A normal client that runs a normal run every `period` s and times it, plus /healthz."""

    def __init__(self, server: ServerProcess, period: float = 0.5) -> None:
        self.server = server
        self.period = period
        self.samples: list[tuple[float, float | None, float | None]] = []  # t, run s, http s
        self.running = threading.Event()  # cleared: paused
        self.running.set()
        self._lock = threading.Lock()  # one run at a time: a new simulate cancels the last
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self.client = LabClient(server.url)

    def _loop(self) -> None:
        while not self._stop.is_set():
            if self.running.wait(0.1) and not self._stop.is_set():
                self.samples.append((time.monotonic(), *self.once(RUN_TIMEOUT)))
                self._stop.wait(self.period)

    def once(self, timeout: float) -> tuple[float | None, float | None]:
        """Time one normal run and one GET /healthz; None for one that failed."""
        with self._lock:
            start = time.perf_counter()
            problem, _ = self.client.run_once(PARAMS, timeout=timeout)
            run_s = None if problem else time.perf_counter() - start
            start = time.perf_counter()
            try:
                with urllib.request.urlopen(self.server.url + "/healthz", timeout=timeout) as r:
                    r.read()
                http_s: float | None = time.perf_counter() - start
            except OSError:
                http_s = None
            return run_s, http_s

    def pause(self) -> None:
        self.running.clear()
        with self._lock:  # let a run in progress finish
            pass

    def resume(self) -> None:
        self.running.set()

    def worst_since(self, t0: float) -> tuple[float, int]:
        """Return the slowest probe run since `t0` and how many probe runs failed."""
        runs = [s[1] for s in self.samples if s[0] >= t0]
        ok = [r for r in runs if r is not None]
        return max(ok, default=float("nan")), len(runs) - len(ok)

    def __enter__(self) -> Probe:
        self.client.connect()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(RUN_TIMEOUT + 5)
        self.client.disconnect()


@dataclass
class Phase:
    name: str
    detail: dict = field(default_factory=dict)
    problems: Counter = field(default_factory=Counter)


def _connect_all(url: str, n: int) -> list[LabClient]:
    pool = [LabClient(url) for _ in range(n)]
    parallel(lambda c: c.connect(), pool, CONNECT_WORKERS, 60)
    return [c for c in pool if c.sio.connected]


def phase_drop(server: ServerProcess, n: int, idle: int) -> Phase:
    """Drop n clients mid-run (half disconnect, half TCP reset), then reconnect and run again."""
    phase = Phase("drop mid-run + reconnect")
    slow = {**PARAMS, "interval_ms": 200}  # 30 steps x 200 ms: 6 s if nobody cancels it
    pool = _connect_all(server.url, n)
    pendings = {c: c.send(slow) for c in pool}
    for c, p in pendings.items():
        log = c.wait_steps(p, 3, 10)
        if log is None or len(log.seen) < 3:
            phase.problems["run did not reach step 3 before the drop"] += 1
    connected_threads = server.threads()
    for i, c in enumerate(pool):
        (c.abort if i % 2 else c.disconnect)()
    t_drop = time.monotonic()
    phase.detail["threads: idle / runs live / 1 s after the drop"] = (
        f"{idle} / {connected_threads} / {_threads_at(server, t_drop + 1)} "
        f"(4 per connection, 1 per live run; engine.io's ping task lingers <= 25 s)"
    )
    again = _connect_all(server.url, n)
    phase.detail["reconnected"] = f"{len(again)}/{n}"
    for c in again:
        problem, _ = c.run_once(PARAMS)
        if problem:
            phase.problems[f"run after reconnect: {problem}"] += 1
        c.disconnect()
    return phase


def _threads_at(server: ServerProcess, when: float) -> int:
    time.sleep(max(0.0, when - time.monotonic()))
    return server.threads()


def phase_cancel(server: ServerProcess, n: int) -> Phase:
    """n clients start a paced run, cancel it twice after the first step, then run again."""
    phase = Phase("cancel twice")
    slow = {**PARAMS, "interval_ms": 200}
    pool = _connect_all(server.url, n)
    idle_connected = server.threads()
    lock = threading.Lock()
    acks: Counter = Counter()
    late = [0]

    def cancel_twice(c: LabClient) -> None:
        p = c.send(slow)
        log = c.wait_steps(p, 1, 10)
        if log is None:
            with lock:
                phase.problems["no run to cancel"] += 1
            return
        replies = [c.sio.call("cancel", {"run_id": p.run_id}, timeout=10) for _ in range(2)]
        seen = log.events
        time.sleep(0.5)  # a step the server still sent after its ack would be here by now
        with lock:
            for reply in replies:
                acks[repr(reply)] += 1
            late[0] += log.events - seen

    parallel(cancel_twice, pool, CONNECT_WORKERS, 60)
    phase.detail["cancel acks"] = dict(acks)
    phase.detail["events after the cancel ack"] = late[0]
    phase.detail["threads connected idle / after cancels"] = (
        f"{idle_connected} / {server.threads()}"
    )
    if late[0]:
        phase.problems["events arrived after the cancel ack"] += late[0]
    for c in pool:
        problem, _ = c.run_once(PARAMS)
        if problem:
            phase.problems[f"run after cancel: {problem}"] += 1
        c.disconnect()
    return phase


def phase_flood(server: ServerProcess, n: int, count: int, params: dict, name: str) -> Phase:
    """n clients each emit `count` simulates back to back; the last one must complete."""
    phase = Phase(name)
    pool = _connect_all(server.url, n)
    t0 = time.monotonic()
    cpu0 = server.cpu_seconds()
    sent = {c: [c.send(params) for _ in range(count)] for c in pool}
    ok = refused = 0
    refusals: Counter = Counter()
    last_ms = []
    deadline = t0 + 4 * RUN_TIMEOUT
    for c, pendings in sent.items():
        for p in pendings:
            c.wait_ack(p, max(0.0, deadline - time.monotonic()))
            if p.run_id:
                ok += 1
            else:
                refused += 1
                refusals[_error_of(p.ack)[:80]] += 1
        last = next((p for p in reversed(pendings) if p.run_id), None)
        if last is None:
            phase.problems["every simulate refused"] += 1
            continue
        log = c.wait_run(last, max(0.0, deadline - time.monotonic()))
        if log is None or not log.finished:
            phase.problems["last run never finished"] += 1
        elif log.problem():
            phase.problems[f"last run: {log.problem()}"] += 1
        else:
            last_ms.append((log.t_done - last.t_emit) * 1e3)
    phase.detail["acks ok / refused"] = f"{ok} / {refused}"
    if refusals:
        phase.detail["refusals"] = dict(refusals.most_common(3))
    phase.detail["events received"] = sum(c.tally.events for c in pool)
    phase.detail["last run simulate->done ms (max)"] = _ms(max(last_ms, default=None))
    phase.detail["s until every client's last run done"] = round(time.monotonic() - t0, 2)
    for c in pool:
        c.disconnect()
    t_gone = time.monotonic()
    phase.detail["server CPU s during flood"] = round(server.cpu_seconds() - cpu0, 2)
    phase.detail["_t_gone"] = t_gone
    return phase


def faults(
    clients: int = 20,
    flood_clients: int = 5,
    flood: int = 50,
    big_flood: int = 50,
    big_flood_clients: int = 1,
    rounds: int = 2,
    bound: float = 2.0,
    settle_s: float = 30.0,
    server_env: dict | None = None,
) -> dict:
    """Run every fault phase against one fresh server; print and return the figures.

    The largest-run flood is repeated `rounds` times: RSS that steps up each round is a leak,
    RSS that stays on a plateau is the allocator keeping freed memory.
    """
    clients = max(1, min(clients, MAX_CLIENTS))
    flood_clients = max(1, min(flood_clients, MAX_CLIENTS))
    flood, big_flood = max(1, min(flood, 200)), max(0, min(big_flood, 200))
    rounds = max(1, min(rounds, 5))
    out: dict = {"phases": []}
    # Every client is on 127.0.0.1, as a class behind one NAT (CLASS_ENV): otherwise the
    # per-address run cap refuses six of the ten runs the drop and cancel phases start.
    with app_server({**CLASS_ENV, **(server_env or {})}) as server:
        warm_up(server, 20)
        # The drop phase's clients reconnect while their dropped connections may still be open.
        warm_pool(server, 2 * max(clients, flood_clients, big_flood_clients))
        mark = server.log_lines()
        with Monitor(server) as mon, Probe(server) as probe:
            probe.pause()
            settle(server, 3 + 4, settle_s)  # the idle server plus the probe's connection
            time.sleep(1)
            idle, baseline = server.threads(), server.rss_mb()
            server.reset_peak()
            mon.peak_rss_mb = baseline
            probe.resume()
            print(
                f"faults: server idle RSS {baseline:.1f} MB, {idle} threads with the probe "
                f"connected{' (env ' + str(server_env) + ')' if server_env else ''}; the "
                "server exposes no run count, so live runs are inferred from threads and CPU"
            )
            steps: list[Callable[[], Phase]] = [
                lambda: phase_drop(server, clients, idle),
                lambda: phase_cancel(server, clients),
                lambda: phase_flood(
                    server, flood_clients, flood, PARAMS, f"flood {flood_clients}x{flood} normal"
                ),
            ]
            for i in range(rounds if big_flood else 0):
                steps.append(
                    lambda i=i: phase_flood(
                        server,
                        big_flood_clients,
                        big_flood,
                        BIG_PARAMS,
                        f"flood {big_flood_clients}x{big_flood} largest (64x4096), "
                        f"round {i + 1}/{rounds}",
                    )
                )
            for step in steps:
                t0 = time.monotonic()
                phase = step()
                t_gone = phase.detail.pop("_t_gone", time.monotonic())
                probe.pause()  # so the server's CPU and threads are the phase's alone
                cpu_gone = server.cpu_seconds()
                took = settle(server, idle, settle_s)
                phase.detail["server CPU s after clients left (probe paused)"] = round(
                    server.cpu_seconds() - cpu_gone, 2
                )
                phase.detail["s until server threads back to idle"] = round(
                    time.monotonic() - t_gone, 1
                )
                worst, failed = probe.worst_since(t0)
                run_s, http_s = probe.once(bound)
                probe.resume()
                phase.detail["probe worst run during phase ms"] = _ms(worst * 1e3)
                phase.detail["probe failures during phase"] = failed
                phase.detail["probe run after phase ms"] = (
                    round(run_s * 1e3) if run_s is not None else "FAILED"
                )
                phase.detail["probe /healthz after ms"] = (
                    round(http_s * 1e3, 1) if http_s is not None else "FAILED"
                )
                if run_s is None or run_s > bound:
                    phase.problems[f"normal run not answered within {bound} s after phase"] += 1
                if took != took:  # NaN: never settled
                    phase.problems[f"threads not back to idle within {settle_s:.0f} s"] += 1
                phase.detail["RSS after / peak so far MB"] = (
                    f"{server.rss_mb():.1f} / {max(mon.peak_rss_mb, server.hwm_mb()):.1f}"
                )
                out["phases"].append(phase)
                _print_phase(phase)
            probe.pause()
            settle(server, idle, settle_s)
            time.sleep(2)
            after = server.rss_mb()
            out.update(
                baseline=baseline,
                peak=max(mon.peak_rss_mb, server.hwm_mb()),
                after=after,
                idle_threads=idle,
                threads_after=server.threads(),
                peak_threads=mon.peak_threads,
            )
        out["problems"] = server.problems(mark)
        print(
            f"faults memory: RSS baseline {baseline:.1f} MB, peak {out['peak']:.1f} MB, after "
            f"settling {after:.1f} MB ({after - baseline:+.1f} MB, "
            f"{(after - baseline) / baseline * 100:+.0f}%); threads idle {idle}, peak "
            f"{out['peak_threads']}, after {out['threads_after']}"
        )
        if out["problems"]:
            print(
                f"  server log: {len(out['problems'])} problem lines, first: "
                f"{out['problems'][0][:160]}"
            )
        total = sum(sum(p.problems.values()) for p in out["phases"])
        print(f"  => {'OK' if total == 0 else f'{total} problems'} across fault phases")
    print(f"  {server.shutdown()}")
    return out


def _ms(value: float | None) -> object:
    """Round a millisecond figure for printing; 'n/a' when there is none (None or NaN)."""
    return "n/a" if value is None or value != value else round(value)


def _print_phase(phase: Phase) -> None:
    print(f"  {phase.name}:")
    for key, value in phase.detail.items():
        print(f"    {key}: {value}")
    for message, count in phase.problems.items():
        print(f"    PROBLEM x{count}: {message}")


# --------------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.load", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--clients", type=int, help=f"clients (default 50; 20 with --faults; max {MAX_CLIENTS})"
    )
    parser.add_argument("--seconds", type=float, default=10, help=f"per point (max {MAX_SECONDS})")
    parser.add_argument("--sweep", help='client counts, e.g. "10,50,100,200"; reports the knee')
    parser.add_argument("--refine", type=int, default=2, help="bisection points after a sweep")
    parser.add_argument(
        "--think", type=float, default=0.0, help="seconds a client pauses between runs (+-50%%)"
    )
    parser.add_argument("--faults", action="store_true", help="run the fault phases instead")
    parser.add_argument("--flood", type=int, default=50, help="simulates per flooding client")
    parser.add_argument("--flood-clients", type=int, default=5)
    parser.add_argument("--big-flood", type=int, default=50, help="largest simulates (0: skip)")
    parser.add_argument("--big-flood-clients", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the largest flood")
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="environment for the server, e.g. MALLOC_ARENA_MAX=2 or "
        "COLLECTIVE_LAB_LAB_RUN_CACHE_BYTES=0 (repeatable)",
    )
    parser.add_argument(
        "--distinct",
        action="store_true",
        help="give every load run its own seed, so the server's run cache never serves one",
    )
    args = parser.parse_args(argv)
    server_env = dict(kv.split("=", 1) for kv in args.server_env) or None
    if args.faults:
        faults(
            clients=args.clients or 20,
            flood_clients=args.flood_clients,
            flood=args.flood,
            big_flood=args.big_flood,
            big_flood_clients=max(1, min(args.big_flood_clients, 20)),
            rounds=args.rounds,
            server_env=server_env,
        )
    elif args.sweep:
        counts = [int(x) for x in args.sweep.split(",") if x.strip()]
        sweep(counts, args.seconds, args.refine, args.think, args.distinct, server_env)
    else:
        load(args.clients or 50, args.seconds, args.think, args.distinct, server_env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
