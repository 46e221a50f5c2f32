"""Classroom (issue 14): a room's fan-out, a poll of the room, and independent learners on 1 and 2
processes. Everything on 127.0.0.1, bounded in clients and time; figures from one run.

(a) Fan-out. One teacher drives a 16 x 256 ring allreduce step by step; STUDENTS real
python-socketio clients, spread over STUDENT_PROCESSES OS processes
(bench/classroom_clients.py), follow on namespace `/class`. Paced: one drive every PACE_S for
ROUNDS runs of the 30 steps; figure: teacher's drive -> the last student's `room_state`, p50
and p99 (target p99 < 250 ms). Bursts: BURST drives sent back to back without waiting for
their acks (a teacher dragging the step scrubber); figure: room_state deliveries per second
from the first drive sent to the last student's last state, the median of BURSTS bursts. Both
against `python -m app` (one process; two behind Redis, students spread over both, the
teacher on the first) and against bare python-socketio (the library's ceiling: the same events,
no checks, no store; one process, and two behind Redis). Ratio app / bare (target >= 80%),
lost and out-of-order states by seq (target 0).

(b) Independent learners. The load test's closed loop (bench/load.py: ring allreduce 16 x 256
back to back, every run checked) with K clients in LEARNER_PROCESSES processes, against one
process and against two behind Redis (clients spread over both); runs/s, per process, p50/p99,
and the knee: the first K whose p99 passes 1 s or that sees an error.

(c) Poll. The teacher opens a poll (a one-answer question from the bank); each student answers
at a random moment within POLL_WINDOW_S; figure: the teacher's last `poll_tally` counts
against the answers sent (exact?) and the time from the last answer sent to the tally that
counts it (target < 500 ms); on one process and on two behind Redis.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import secrets
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from tests.redis_server import REDIS_SERVER, RedisServer

from .classroom_clients import NAMESPACE, tally_from
from .common import (
    ROOT,
    OrderedClient,
    ServerProcess,
    loadavg,
    machine_busy_seconds,
    percentile,
)
from .load import KNEE_P99_S, Tally

STUDENTS = 200
STUDENT_PROCESSES = 8
RUN = {"collective": "allreduce", "algorithm": "ring", "ranks": 16, "elements": 256, "op": "sum"}
STEPS = 30  # ring allreduce on 16 ranks: 2 (p - 1)
PACE_S = 0.1
ROUNDS = 3
BURST = 60
BURSTS = 3  # the median of three: one burst is a few seconds, and the machine is shared
TARGET_P99_MS = 250.0
TARGET_RATIO = 0.80
POLL_WINDOW_S = 1.0
POLL_TARGET_MS = 500.0
POLL_TIMEOUT_S = 20.0  # for every answer to be tallied
POLLS = ("first poll", "second poll")
QUESTION = "choice-ring-step-count"
LEARNER_COUNTS = (10, 25, 50, 100, 200)
LEARNER_PROCESSES = 4
LEARNER_SECONDS = 8.0
READY_TIMEOUT_S = 120.0
SETTLE_S = 1.5  # between bursts: the room has every earlier state
# After the last burst: its 12,000 deliveries take 0.6-1.3 s at the measured burst rates,
# longer on a machine the rest of `make bench` has just loaded; a state later than this is lost.
LAST_SETTLE_S = 5.0


# --------------------------------------------------------------------------- processes


class Worker:
    """A `python -m bench.classroom_clients` process that speaks one JSON line at a time."""

    def __init__(self, role: str, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bench.classroom_clients", role, *args],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.ready: dict = {}
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def expect(self, key: str, timeout: float) -> dict:
        """Wait for the JSON line holding `key`; raise if the process ends or time runs out."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise RuntimeError(f"no {key!r} from a client process in {timeout:.0f} s") from None
            if line is None:
                raise RuntimeError(f"a client process exited ({self.proc.wait()}) before {key!r}")
            with contextlib.suppress(ValueError):
                data = json.loads(line)
                if isinstance(data, dict) and key in data:
                    return data

    def say(self, word: str) -> None:
        with contextlib.suppress(OSError):
            self.proc.stdin.write(word + "\n")
            self.proc.stdin.flush()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def workers(role: str, total: int, processes: int, urls: list[str], *args: str) -> list[Worker]:
    """`processes` client processes holding `total` clients between them, ready."""
    each = total // processes
    started = [
        Worker(
            role, "--urls", ",".join(urls), "--count", str(each), "--first", str(i * each), *args
        )
        for i in range(processes)
    ]
    try:
        readies = [w.expect("ready", READY_TIMEOUT_S) for w in started]
        for w, ready in zip(started, readies, strict=True):
            w.ready = ready
    except Exception:
        for w in started:
            w.proc.kill()
            w.close()
        raise
    problems = [e for r in readies for e in r.get("errors", [])]
    if problems:
        print(f"  {len(problems)} clients could not join, first: {problems[0]}")
    return started


class Cluster:
    """`processes` servers of one kind ("app" or "bare"), behind one Redis when more than one."""

    def __init__(self, kind: str, processes: int) -> None:
        self.kind = kind
        self.processes = processes
        self.redis: RedisServer | None = None
        self.servers: list[ServerProcess] = []
        self.stack = contextlib.ExitStack()

    @property
    def urls(self) -> list[str]:
        return [s.url for s in self.servers]

    @property
    def label(self) -> str:
        name = "python -m app" if self.kind == "app" else "bare python-socketio"
        return f"{name}, {self.processes} process{'es' if self.processes > 1 else ''}" + (
            " + Redis" if self.processes > 1 else ""
        )

    def __enter__(self) -> Cluster:
        try:
            queue_args: list[str] = []
            if self.processes > 1:
                if REDIS_SERVER is None:
                    raise RuntimeError("no redis-server on PATH (apt-get install redis-server)")
                self.redis = RedisServer().start()
                self.stack.callback(self.redis.stop)
                queue_args = ["--message-queue", self.redis.url]
            for _ in range(self.processes):
                self.servers.append(self.stack.enter_context(self._server(queue_args)))
        except BaseException:
            self.stack.close()
            raise
        return self

    def _server(self, queue_args: list[str]) -> ServerProcess:
        if self.kind == "bare":
            args = ["-m", "bench.classroom_clients", "bare-server", *queue_args]
            return ServerProcess(args, ready_path="/")
        env = {
            "COLLECTIVE_LAB_CLASS_NETWORKS": "127.0.0.1/32",  # a class behind one address
            "COLLECTIVE_LAB_SECRET_KEY": SECRET,
            # The burst measures the fan-out, not the teacher's rate limit (30/s, 60 at once).
            "COLLECTIVE_LAB_CLASS_DRIVE_RATE_PER_S": "1000",
            "COLLECTIVE_LAB_CLASS_DRIVE_BURST": "1000",
        }
        return ServerProcess(["-m", "app", *queue_args], ready_path="/healthz", env=env)

    def __exit__(self, *exc) -> None:
        self.stack.close()

    def cpu_seconds(self) -> float:
        return sum(s.cpu_seconds() for s in self.servers)


SECRET = secrets.token_hex(32)  # one key for every app process of a run


# --------------------------------------------------------------------------- the teacher


class Teacher:
    """The teacher's connection: creates the room, drives it, opens a poll, reads the tally."""

    def __init__(self, url: str) -> None:
        self.sio = OrderedClient(reconnection=False)
        self.states: list[tuple[int, float]] = []
        self.tallies: list[tuple[float, dict]] = []
        self.sio.on("room_state", self._on_state, namespace=NAMESPACE)
        self.sio.on("poll_tally", self._on_tally, namespace=NAMESPACE)
        self.sio.connect(url, namespaces=[NAMESPACE], transports=["websocket"], wait_timeout=10)
        created = self.call("room_create", {})
        self.code, self.token = created["code"], created["teacher_token"]
        self.credentials = {"code": self.code, "teacher_token": self.token}
        self.call("room_join", self.credentials)

    def _on_state(self, data: dict) -> None:
        self.states.append((data.get("seq", -1), time.monotonic()))

    def _on_tally(self, data: dict) -> None:
        self.tallies.append((time.monotonic(), data))

    def wait_for_tally(self, poll_id: str, answered: int, timeout: float) -> None:
        """Wait until a tally of `poll_id` counts `answered` answers (or `timeout` passes)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(d.get("poll_id") == poll_id and d.get("answered", 0) >= answered
                   for _, d in list(self.tallies)):  # fmt: skip
                return
            time.sleep(0.02)

    def call(self, event: str, data: dict) -> dict:
        ack = self.sio.call(event, data, namespace=NAMESPACE, timeout=30)
        if not (isinstance(ack, dict) and ack.get("ok")):
            raise RuntimeError(f"{event} refused: {ack!r}"[:300])
        return ack

    def drive(self, step: int) -> tuple[float, int]:
        """Drive the room to `step`, waiting for the ack; return when it was sent, and its seq."""
        sent = time.monotonic()
        return sent, self.call("room_drive", self._drive_body(step))["seq"]

    def burst(self, count: int) -> list[tuple[float, int]]:
        """Send `count` drives back to back, as a teacher dragging the scrubber; then the acks."""
        acks: list = []
        arrived = threading.Event()

        def acked(ack=None) -> None:
            acks.append(ack)
            if len(acks) == count:
                arrived.set()

        sent = []
        for i in range(count):
            sent.append(time.monotonic())
            self.sio.emit("room_drive", self._drive_body(i % STEPS), NAMESPACE, callback=acked)
        if not arrived.wait(60):
            raise RuntimeError(f"{len(acks)} of {count} drives acked in 60 s")
        refused = [a for a in acks if not (isinstance(a, dict) and a.get("ok"))]
        if refused:
            raise RuntimeError(f"{len(refused)} drives refused, first: {refused[0]!r}"[:300])
        return list(zip(sent, (a["seq"] for a in acks), strict=True))  # acks come in order

    def _drive_body(self, step: int) -> dict:
        state = {**RUN, "step": step, "playing": False, "speed": 1}
        return {**self.credentials, "state": state}

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.sio.disconnect()


# --------------------------------------------------------------------------- (a) fan-out


@dataclass
class Session:
    cluster: Cluster
    teacher: Teacher
    students: int  # how many joined
    reports: list[dict] = field(default_factory=list)  # the students', once they have left


@contextlib.contextmanager
def a_class(kind: str, processes: int, answer_window_s: float = 0.0) -> Iterator[Session]:
    """A cluster, a teacher's room on its first process and STUDENTS students in it."""
    with Cluster(kind, processes) as cluster:
        teacher = Teacher(cluster.urls[0])
        args = ("--code", teacher.code, "--answer-window", str(answer_window_s))
        crowd = workers("students", STUDENTS, STUDENT_PROCESSES, cluster.urls, *args)
        session = Session(cluster, teacher, sum(w.ready.get("joined", 0) for w in crowd))
        try:
            yield session
        finally:
            for w in crowd:
                w.say("stop")
            session.reports = [s for w in crowd for s in w.expect("students", 60)["students"]]
            for w in crowd:
                w.close()
            teacher.close()


def fanout_once(kind: str, processes: int) -> dict:
    """Paced drives, then BURSTS bursts, to STUDENTS students; return the figures."""
    with a_class(kind, processes) as session:
        cluster, teacher = session.cluster, session.teacher
        cpu0 = cluster.cpu_seconds()
        paced = []
        start = time.monotonic()
        for i in range(ROUNDS * STEPS):
            time.sleep(max(0.0, start + i * PACE_S - time.monotonic()))
            paced.append(teacher.drive(i % STEPS))
        bursts = []
        for _ in range(BURSTS):
            time.sleep(SETTLE_S)  # the room has every earlier state
            bursts.append(teacher.burst(BURST))
        time.sleep(LAST_SETTLE_S)
        cpu = cluster.cpu_seconds() - cpu0
    return _fanout_figures(cluster.label, paced, bursts, session.reports, cpu)


def _fanout_figures(label, paced, bursts, reports, cpu) -> dict:
    """Latency of the paced drives, deliveries per second of each burst, lost, out of order."""
    joined = [r for r in reports if r["error"] is None]
    arrivals: dict[int, list[float]] = {}
    receivers: dict[int, set[int]] = {}  # seq -> the students it reached
    out_of_order = 0
    for student, r in enumerate(joined):
        last = -1
        for seq, t in r["states"]:
            out_of_order += seq <= last
            last = max(last, seq)
            arrivals.setdefault(seq, []).append(t)
            receivers.setdefault(seq, set()).add(student)
    sent = dict((seq, t) for drives in (paced, *bursts) for t, seq in drives)
    missed = [
        (seq, s) for seq in sent for s in range(len(joined)) if s not in receivers.get(seq, ())
    ]
    lost = len(missed)
    last_student = [max(arrivals[s]) - t for t, s in paced if s in arrivals]
    every_student = [a - t for t, s in paced for a in arrivals.get(s, ())]
    rates = sorted(_rate(burst, arrivals) for burst in bursts)
    out = {
        "label": label,
        "students": len(joined),
        "drives": len(sent),
        "p50_ms": percentile(last_student, 50) * 1e3,
        "p99_ms": percentile(last_student, 99) * 1e3,
        "any_p50_ms": percentile(every_student, 50) * 1e3,
        "burst_rate": percentile(rates, 50),
        "burst_rates": rates,
        "lost": lost,
        "out_of_order": out_of_order,
        "server_cpu_s": cpu,
    }
    print(
        f"  {label:<40} teacher -> last of {out['students']} students p50 {out['p50_ms']:.0f} ms, "
        f"p99 {out['p99_ms']:.0f} ms (any student p50 {out['any_p50_ms']:.0f} ms); bursts "
        f"{out['burst_rate']:.0f} deliveries/s (median of {', '.join(f'{r:.0f}' for r in rates)})"
        f"; lost {lost}, out of order {out_of_order}; server CPU {cpu:.1f} s",
        flush=True,
    )
    if missed:
        print(f"    {_missed(missed, paced, bursts, joined)}", flush=True)
    return out


def _missed(missed, paced, bursts, joined) -> str:
    """Say which drives some student never received: where each sits, and that student's end."""
    drives = [("paced", paced), *((f"burst {b + 1}", burst) for b, burst in enumerate(bursts))]
    where = {
        seq: f"{name} drive {i + 1} of {len(ds)}"
        for name, ds in drives
        for i, (_, seq) in enumerate(ds)
    }
    said = []
    for seq, student in missed[:5]:
        report = joined[student]
        seqs = [q for q, _ in report["states"]]
        said.append(
            f"seq {seq} ({where[seq]}) missed by student {student}, who received {len(seqs)} "
            f"states, the last seq {seqs[-1] if seqs else None}, disconnected "
            f"{'yes' if report.get('disconnected') else 'no'}"
        )
    more = f"; {len(missed) - 5} more" if len(missed) > 5 else ""
    return "lost: " + "; ".join(said) + more


def _rate(burst: list[tuple[float, int]], arrivals: dict[int, list[float]]) -> float:
    """room_state deliveries per second: the burst's first send to its last delivery."""
    times = [a for _, seq in burst for a in arrivals.get(seq, ())]
    return len(times) / (max(times) - burst[0][0]) if times else 0.0


def fanout(configs: Sequence[tuple[str, int]] = (("bare", 1), ("app", 1), ("bare", 2), ("app", 2))):
    print(
        f"fan-out: 1 teacher, {STUDENTS} students in {STUDENT_PROCESSES} processes; "
        f"{ROUNDS} x {STEPS} drives every {PACE_S * 1e3:.0f} ms, then {BURST} back to back; "
        f"load average {loadavg()}",
        flush=True,
    )
    results = {f"{kind}{n}": fanout_once(kind, n) for kind, n in configs}
    for n in (1, 2):
        app, bare = results.get(f"app{n}"), results.get(f"bare{n}")
        if app and bare:
            ratio = app["burst_rate"] / bare["burst_rate"]
            results[f"ratio{n}"] = ratio
            print(
                f"  {n} process{'es' if n > 1 else ''}: app / bare burst rate {ratio:.0%} (target "
                f">= {TARGET_RATIO:.0%}: {'met' if ratio >= TARGET_RATIO else 'NOT met'}); app "
                f"p99 {app['p99_ms']:.0f} ms (target < {TARGET_P99_MS:.0f}: "
                f"{'met' if app['p99_ms'] < TARGET_P99_MS else 'NOT met'}); lost "
                f"{app['lost']}, out of order {app['out_of_order']} (target 0)",
                flush=True,
            )
    return results


# --------------------------------------------------------------------------- (c) poll


def poll_once(processes: int) -> list[dict]:
    """Two polls in one class: the first on processes that have graded nothing yet."""
    with a_class("app", processes, answer_window_s=POLL_WINDOW_S) as session:
        teacher = session.teacher
        teacher.drive(0)
        opened = []
        for _ in POLLS:
            opened.append(
                teacher.call("poll_open", {**teacher.credentials, "question_id": QUESTION})
            )
            teacher.wait_for_tally(opened[-1]["poll_id"], session.students, POLL_TIMEOUT_S)
            time.sleep(SETTLE_S)  # a tally still on its way
    label = session.cluster.label
    return [
        _poll_figures(f"{label}, {which}", ack, teacher, session.reports)
        for which, ack in zip(POLLS, opened, strict=True)
    ]


def _poll_figures(label: str, opened: dict, teacher: Teacher, reports: list[dict]) -> dict:
    poll_id = opened.get("poll_id") or (opened.get("poll") or {}).get("poll_id")
    answers = [a for r in reports for a in r["answers"] if a.get("poll_id") == poll_id]
    accepted = [a for a in answers if a.get("ok")]
    expected: dict[str, int] = {}
    for a in accepted:
        expected[a["answer"]] = expected.get(a["answer"], 0) + 1
    tallies = [(t, d) for t, d in teacher.tallies if d.get("poll_id") == poll_id]
    # Tallies from two processes may cross on the way: the newest has the largest seq (the
    # answers recorded so far), and of equal ones the last to arrive.
    newest = max(tallies, key=lambda td: (td[1].get("seq", 0), td[0]), default=(0, {}))
    final = newest[1]
    counts = {k: v for k, v in (final.get("counts") or {}).items() if v}
    last_sent = max((a["sent"] for a in accepted), default=float("nan"))
    complete = next((t for t, d in tallies if d.get("answered") == len(accepted)), None)
    delay_ms = (complete - last_sent) * 1e3 if complete is not None else float("nan")
    exact = counts == expected and final.get("answered") == len(accepted)
    refusals = Counter(a.get("error", "no ack") for a in answers if not a.get("ok"))
    out = {
        "label": label,
        "answers": len(answers),
        "accepted": len(accepted),
        "exact": exact,
        "tally_ms": delay_ms,
        "tallies": len(tallies),
        "answer_ack_p99_ms": percentile([a["acked"] - a["sent"] for a in accepted], 99) * 1e3,
    }
    print(
        f"  {label:<40} {len(accepted)} of {len(answers)} answers accepted; teacher's tally "
        f"{'exact' if exact else f'NOT exact: {counts} vs {expected}'}; last answer -> full "
        f"tally {delay_ms:.0f} ms (target < {POLL_TARGET_MS:.0f}: "
        f"{'met' if delay_ms < POLL_TARGET_MS else 'NOT met'}); {len(tallies)} tallies; answer "
        f"ack p99 {out['answer_ack_p99_ms']:.0f} ms",
        flush=True,
    )
    for error, count in refusals.most_common(3):
        print(f"    refused x{count}: {error}", flush=True)
    return out


def poll() -> dict:
    print(
        f"poll: {STUDENTS} students answer within {POLL_WINDOW_S:g} s (question {QUESTION}), "
        f"twice per class",
        flush=True,
    )
    return {f"app{n}": poll_once(n) for n in (1, 2)}


# --------------------------------------------------------------------------- (b) learners


def learners_point(cluster: Cluster, clients: int) -> dict:
    processes = max(1, min(LEARNER_PROCESSES, clients // 25))
    crowd = workers("learners", clients, processes, cluster.urls, "--seconds", str(LEARNER_SECONDS))
    cpu0 = [s.cpu_seconds() for s in cluster.servers]
    busy0 = machine_busy_seconds()
    start = time.monotonic()
    for w in crowd:
        w.say("go")
    tally, client_cpu = Tally(), 0.0
    for w in crowd:
        told = w.expect("tally", LEARNER_SECONDS + 120)
        tally.merge(tally_from(told["tally"]))
        client_cpu += told["cpu"]
        w.close()
    wall = max(LEARNER_SECONDS, time.monotonic() - start)
    cpu = [s.cpu_seconds() - c for s, c in zip(cluster.servers, cpu0, strict=True)]
    others = machine_busy_seconds() - busy0 - sum(cpu) - client_cpu
    p99 = percentile(tally.latencies, 99)
    ok = (
        tally.error_count == 0 and tally.lost == 0 and tally.out_of_order == 0 and p99 <= KNEE_P99_S
    )
    out = {
        "clients": clients,
        "runs_per_s": tally.runs_ok / wall,
        "per_process": tally.runs_ok / wall / cluster.processes,
        "p50_ms": percentile(tally.latencies, 50) * 1e3,
        "p99_ms": p99 * 1e3,
        "errors": tally.error_count,
        "lost": tally.lost,
        "out_of_order": tally.out_of_order,
        "busy": tally.busy,
        "cores": [c / wall for c in cpu],
        "client_cores": client_cpu / wall,
        "other_cores": max(0.0, others) / wall,
        "ok": ok,
    }
    print(
        f"    {clients:>4} clients: {out['runs_per_s']:6.1f} runs/s ({out['per_process']:.1f} per "
        f"process), p50 {out['p50_ms']:.0f} ms, p99 {out['p99_ms']:.0f} ms, errors "
        f"{out['errors']}, lost {out['lost']}, out of order {out['out_of_order']}, server "
        f"cores {', '.join(f'{c:.2f}' for c in out['cores'])}, clients "
        f"{out['client_cores']:.2f}, others {out['other_cores']:.2f} (of {os.cpu_count()})"
        f"{'' if ok else '  <- past the knee'}",
        flush=True,
    )
    return out


def knee_of(points: list[dict]) -> int | None:
    """The smallest client count from which every point failed (p99 > 1 s or an error).

    One noisy point below it (the machine is shared) does not move the knee.
    """
    knee = None
    for p in sorted(points, key=lambda p: p["clients"], reverse=True):
        if p["ok"]:
            break
        knee = p["clients"]
    return knee


def learners(counts: Sequence[int] = LEARNER_COUNTS) -> dict:
    print(
        f"independent learners: the load test's closed loop (ring allreduce 16 x 256), "
        f"{LEARNER_SECONDS:g} s per point, clients in up to {LEARNER_PROCESSES} processes",
        flush=True,
    )
    results = {}
    for processes in (1, 2):
        with Cluster("app", processes) as cluster:
            print(f"  {cluster.label}:", flush=True)
            points = [learners_point(cluster, k) for k in counts]
        knee = knee_of(points)
        best = max(points, key=lambda p: p["runs_per_s"])
        print(
            f"  => peak {best['runs_per_s']:.1f} runs/s ({best['per_process']:.1f} per process) "
            f"at {best['clients']} clients; knee: "
            + (f"{knee} clients (it and every larger count failed)" if knee else "not reached"),
            flush=True,
        )
        results[f"app{processes}"] = {"points": points, "knee": knee, "peak": best}
    return results


# --------------------------------------------------------------------------- entry points


PARTS = {"fanout": fanout, "poll": poll, "learners": learners}


def run(parts: Sequence[str] = tuple(PARTS)) -> dict:
    """What `make bench` runs: every part, every figure printed."""
    return {part: PARTS[part]() for part in parts}


def summary(results: dict) -> None:
    """One line per part, for `make bench`'s summary."""
    f = results.get("fanout") or {}
    for n in (1, 2):
        app, ratio = f.get(f"app{n}"), f.get(f"ratio{n}")
        if app:
            print(
                f"classroom fan-out, {n} process{'es' if n > 1 else ''}: teacher -> last of "
                f"{app['students']} students p50 {app['p50_ms']:.0f} ms, p99 {app['p99_ms']:.0f} "
                f"ms (target < {TARGET_P99_MS:.0f}); burst rate "
                + (f"{ratio:.0%} of bare python-socketio" if ratio else "n/a")
                + f" (target >= {TARGET_RATIO:.0%}); lost {app['lost']}, out of order "
                f"{app['out_of_order']}"
            )
    for p in (p for polls in (results.get("poll") or {}).values() for p in polls):
        print(
            f"classroom poll ({p['label']}): {p['accepted']} answers, tally "
            f"{'exact' if p['exact'] else 'NOT exact'}, last answer -> full tally "
            f"{p['tally_ms']:.0f} ms (target < {POLL_TARGET_MS:.0f})"
        )
    for key, r in (results.get("learners") or {}).items():
        peak = r["peak"]
        print(
            f"classroom learners ({key[-1]} process{'es' if key[-1] != '1' else ''}): peak "
            f"{peak['runs_per_s']:.1f} runs/s ({peak['per_process']:.1f} per process) at "
            f"{peak['clients']} clients; knee "
            + (f"at {r['knee']} clients" if r["knee"] else "not reached")
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.classroom", description=__doc__)
    parser.add_argument("--only", default="fanout,poll,learners", help="fanout,poll,learners")
    parser.add_argument(
        "--fanout", default="bare1,app1,bare2,app2", help="configurations, e.g. bare1,app2"
    )
    parser.add_argument(
        "--learners",
        default=",".join(map(str, LEARNER_COUNTS)),
        help="client counts of the learners' sweep (at most 200)",
    )
    args = parser.parse_args(argv)
    configs = [(c[:-1], int(c[-1])) for c in args.fanout.split(",") if c]
    counts = [min(200, int(k)) for k in args.learners.split(",") if k]
    chosen = {"fanout": lambda: fanout(configs), "learners": lambda: learners(counts)}
    results = {}
    for part in (p for p in args.only.split(",") if p):
        results[part] = chosen.get(part, PARTS[part])()
    print("\n=== summary ===")
    summary(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
