"""Which runs the lab takes on: per-address caps, the memory budget, the pace cap, two lanes.

Issue 12: one address held every run slot with 256 connections; POST /api/simulate bypassed the
run limits; a run paced at 5 s a step held its slot for ten minutes; a tiny run waited seconds
behind a flood of large ones.
"""

from __future__ import annotations

import gc
import math
import threading
import time
import tracemalloc
import weakref

import pytest

from app import create_app
from app.collectives import buffer_length, catalog, simulate
from app.collectives.registry import REGISTRY
from app.web import params
from app.web.api import simulate as api
from app.web.extensions import socketio
from app.web.guard import admission
from app.web.live import runcache, sockets
from tests.conftest import TEST_CONFIG

RING8 = {"collective": "allreduce", "algorithm": "ring", "ranks": 8, "elements": 64}
SLOW = {**RING8, "interval_ms": 5000}
WIDE = {"collective": "allreduce", "algorithm": "ring", "ranks": 32, "elements": 32}
BIG = {"collective": "allreduce", "algorithm": "ring", "ranks": 64, "elements": 4096}
HOME, NEIGHBOUR = "203.0.113.7", "198.51.100.9"


def app_with(**config):
    return create_app({**TEST_CONFIG, **config})


def client_at(app, address: str):
    """A Socket.IO test client whose connection comes from `address`."""
    flask_client = app.test_client()
    flask_client.environ_base["REMOTE_ADDR"] = address
    return socketio.test_client(app, flask_test_client=flask_client)


def parsed(data: dict) -> params.SimParams:
    return params.parse(data, max_ranks=64, max_cells=1 << 18)


def wait_until(condition, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout} s")
        time.sleep(0.01)


def received_until(sc, name: str, timeout: float = 30.0) -> list[dict]:
    events: list[dict] = []
    wait_until(
        lambda: events.extend(sc.get_received()) or any(e["name"] == name for e in events),
        f"no {name} (got {[e['name'] for e in events]})",
        timeout,
    )
    return events


def disconnect_all(app, clients) -> None:
    for c in clients:
        if c.is_connected():
            c.disconnect()
    wait_until(lambda: not app.extensions["lab_runs"].running(), "runs left running")


@pytest.fixture
def gate(monkeypatch):
    """Hold every engine run of more than 16 ranks until `gate.open()`; count those inside."""

    class Gate:
        def __init__(self) -> None:
            self.released = threading.Event()
            self.inside = 0
            self.most = 0
            self.lock = threading.Lock()

        def __call__(self, **kwargs):
            if kwargs["ranks"] > 16:
                with self.lock:
                    self.inside += 1
                    self.most = max(self.most, self.inside)
                self.released.wait(60)
                with self.lock:
                    self.inside -= 1
            return simulate(**kwargs)

        def open(self) -> None:
            self.released.set()

    g = Gate()
    monkeypatch.setattr(sockets, "simulate", g)
    monkeypatch.setattr(api, "simulate", g)
    yield g
    g.open()


# --- item 5: per-address caps -------------------------------------------------------------


def test_one_address_runs_at_most_its_cap_and_another_address_still_gets_runs():
    app = app_with(LAB_RUNS_PER_ADDRESS=2)
    mine = [client_at(app, HOME) for _ in range(3)]
    other = client_at(app, NEIGHBOUR)
    try:
        acks = [c.emit("simulate", SLOW, callback=True) for c in mine]
        assert [a["ok"] for a in acks] == [True, True, False]
        assert "your address" in acks[2]["error"] and "at most 2" in acks[2]["error"]
        assert acks[2]["retry_after_s"] > 0
        assert other.emit("simulate", SLOW, callback=True)["ok"] is True

        # One of the address's runs ends: the address may start another.
        assert mine[0].emit("cancel", {}, callback=True)["cancelled"] is True
        wait_until(lambda: acks[0]["run_id"] not in app.extensions["lab_runs"].running(), "end")
        assert mine[2].emit("simulate", SLOW, callback=True)["ok"] is True
    finally:
        disconnect_all(app, [*mine, other])


def test_an_address_in_a_class_network_gets_a_class_sized_cap():
    app = app_with(
        LAB_RUNS_PER_ADDRESS=1, LAB_RUNS_PER_CLASS_ADDRESS=3, CLASS_NETWORKS="203.0.113.0/24"
    )
    room = [client_at(app, HOME) for _ in range(4)]
    lone = [client_at(app, NEIGHBOUR) for _ in range(2)]
    try:
        assert [c.emit("simulate", SLOW, callback=True)["ok"] for c in room] == [
            True,
            True,
            True,
            False,
        ]
        assert [c.emit("simulate", SLOW, callback=True)["ok"] for c in lone] == [True, False]
    finally:
        disconnect_all(app, room + lone)


def test_a_client_replacing_its_own_run_is_not_refused_by_its_address_cap():
    app = app_with(LAB_RUNS_PER_ADDRESS=1)
    sc = client_at(app, HOME)
    try:
        acks = [sc.emit("simulate", {**SLOW, "seed": s}, callback=True) for s in range(3)]
        assert [a["ok"] for a in acks] == [True, True, True]
    finally:
        disconnect_all(app, [sc])


# --- item 5: the memory budget ------------------------------------------------------------


def budget_for_one(data: dict) -> int:
    """Return a budget in MB whose share for large runs fits one run of `data`, not two."""
    need = admission.stream_bytes(parsed(data))
    mb = math.ceil(need * admission.SMALL_SHARE / (admission.SMALL_SHARE - 1) / admission.MIB)
    assert 2 * need > (mb * admission.MIB) * (admission.SMALL_SHARE - 1) / admission.SMALL_SHARE
    return mb


def test_the_memory_budget_refuses_a_run_that_does_not_fit_and_names_the_budget(gate):
    budget_mb = budget_for_one(BIG)
    app = app_with(LAB_MEMORY_BUDGET_MB=budget_mb, LAB_RUNS_PER_ADDRESS=10)
    first, second, learner = (client_at(app, a) for a in (HOME, NEIGHBOUR, "192.0.2.1"))
    try:
        assert first.emit("simulate", BIG, callback=True)["ok"] is True
        wait_until(lambda: gate.inside == 1, "the first large run in the engine")

        refused = second.emit("simulate", {**BIG, "seed": 1}, callback=True)
        assert refused["ok"] is False and refused["retry_after_s"] > 0
        assert "memory budget" in refused["error"]
        assert f"{budget_mb:.1f} MB" in refused["error"]

        response = app.test_client().post("/api/simulate", json=WIDE)
        assert response.status_code == 503 and int(response.headers["Retry-After"]) > 0
        assert "memory budget" in response.get_json()["error"]

        # Small runs keep a share of the budget: a learner's run still goes through.
        assert learner.emit("simulate", RING8, callback=True)["ok"] is True
        assert "sim_done" in [e["name"] for e in received_until(learner, "sim_done")]

        gate.open()
        received_until(first, "sim_done")
        # The ticket goes back when the run's task ends, a moment after its last event.
        wait_until(lambda: not app.extensions["lab_runs"].running(), "the first run's end")
        assert second.emit("simulate", {**BIG, "seed": 1}, callback=True)["ok"] is True
    finally:
        gate.open()
        disconnect_all(app, [first, second, learner])


def test_a_run_larger_than_the_whole_budget_is_refused_for_good():
    app = app_with(LAB_MEMORY_BUDGET_MB=1)
    sc = client_at(app, HOME)
    try:
        ack = sc.emit("simulate", BIG, callback=True)
        assert ack["ok"] is False and "retry_after_s" not in ack
        assert "memory budget" in ack["error"] and "fewer ranks or elements" in ack["error"]
    finally:
        disconnect_all(app, [sc])


def traced_peak(work, warm_up) -> int:
    """Return the most memory `work()` held at once, as tracemalloc counts it.

    `warm_up()`, the same work on a small buffer, runs untraced first: what a first call fills
    once per process (imports, caches of the cost model) is not the run's. (A small one, as
    the run itself takes a minute under tracemalloc at 64 ranks on a loaded machine.)
    """
    warm_up()
    gc.collect()
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


PEAK_CASES = [
    RING8,
    BIG,  # the most memory a stream can take: 64 ranks, LAB_MAX_CELLS
    {"collective": "all_to_all", "algorithm": "bruck", "ranks": 64, "elements": 64},
    {"collective": "allreduce", "algorithm": "ring", "ranks": 1, "elements": 1 << 18},
]


@pytest.mark.parametrize("data", PEAK_CASES, ids=lambda d: f"{d['algorithm']}-{d['ranks']}")
def test_the_memory_estimate_bounds_the_measured_peak_of_a_stream_and_a_document(data):
    p, small = parsed(data), parsed({**data, "elements": data["ranks"]})
    app = app_with()

    def stream_of(q):
        return lambda: runcache.encode_run(simulate(**q.simulate_kwargs()))

    stream = traced_peak(stream_of(p), stream_of(small))
    with app.app_context():
        document = traced_peak(
            lambda: api.document_response(p), lambda: api.document_response(small)
        )

    assert admission.stream_bytes(p) >= stream
    assert admission.document_bytes(p) >= document
    if p.ranks == 64:  # tight enough that the budget is not spent on air
        assert admission.stream_bytes(p) <= 3 * stream


@pytest.mark.parametrize("ranks", [3, 16, 64])
def test_no_algorithm_changes_more_cells_than_the_estimate_assumes(ranks):
    for entry in (e for e in catalog() if e["max_ranks"] >= ranks):
        collective = entry["collective"]
        per = ranks * buffer_length(collective, ranks, 1)
        elements = (1 << 18) // per // ranks * ranks  # the largest multiple of ranks allowed
        trace = simulate(
            collective,
            entry["algorithm"],
            ranks=ranks,
            elements=elements,
            ranks_per_node=1 if entry["needs_ranks_per_node"] else None,
        )
        changed = sum(len(step.updates) for step in trace.steps)
        factor = REGISTRY[(collective, entry["algorithm"])].cell_updates_factor
        assert changed <= admission.cell_updates_bound(ranks, factor), entry["algorithm"]


# --- item 5: a run's duration, and what it holds while it is paced -------------------------


def test_a_pace_that_would_hold_a_run_past_the_cap_gets_sim_error_naming_interval_ms():
    app = app_with(LAB_MAX_RUN_S=10)
    sc = client_at(app, HOME)
    try:
        # 14 steps, 13 pauses: 13 x 1000 ms is past 10 s; 10,000 // 13 = 769 ms is the most.
        assert sc.emit("simulate", {**RING8, "interval_ms": 1000}, callback=True)["ok"]
        events = received_until(sc, "sim_error")
        assert [e["name"] for e in events] == ["sim_error"]
        error = events[0]["args"][0]["error"]
        assert "interval_ms must be at most 769" in error and "10 s" in error
        wait_until(lambda: not app.extensions["lab_runs"].running(), "the refused run to end")

        assert sc.emit("simulate", {**RING8, "interval_ms": 769}, callback=True)["ok"]
        assert "sim_start" in [e["name"] for e in received_until(sc, "sim_start")]
    finally:
        disconnect_all(app, [sc])


def test_a_paced_run_frees_the_engine_trace_once_its_payloads_are_encoded(monkeypatch):
    traces = []

    def recorded(**kwargs):
        trace = simulate(**kwargs)
        traces.append(weakref.ref(trace))
        return trace

    monkeypatch.setattr(sockets, "simulate", recorded)
    app = app_with()
    sc = client_at(app, HOME)
    try:
        sc.emit("simulate", {**RING8, "interval_ms": 200}, callback=True)
        wait_until(
            lambda: any(
                e["name"] == "sim_step" and e["args"][0]["index"] == 1 for e in sc.get_received()
            ),
            "step 1",
        )
        gc.collect()
        assert len(traces) == 1 and traces[0]() is None, "the trace outlived the encoding"
        assert app.extensions["lab_runs"].running(), "the run is still streaming"
    finally:
        disconnect_all(app, [sc])


# --- item 6: POST /api/simulate under the same limits --------------------------------------


def test_concurrent_http_simulations_from_one_address_run_at_most_the_cap_at_once(gate):
    app = app_with(LAB_RUNS_PER_ADDRESS=2, LAB_LARGE_RUNS_AT_ONCE=8)
    answers: list = []

    def post(seed: int) -> None:
        response = app.test_client().post("/api/simulate", json={**WIDE, "seed": seed})
        answers.append((response.status_code, response.get_json(), response.headers))
        response.close()  # as a WSGI server does once the body is sent

    threads = [threading.Thread(target=post, args=(s,)) for s in range(6)]
    for t in threads:
        t.start()
    try:
        wait_until(lambda: gate.inside == 2 and len(answers) == 4, "2 running, 4 refused", 15)
    finally:
        gate.open()
        for t in threads:
            t.join(60)

    assert gate.most == 2
    assert sorted(code for code, _, _ in answers) == [200, 200, 429, 429, 429, 429]
    for code, body, headers in answers:
        if code == 429:
            assert "your address" in body["error"] and "at most 2" in body["error"]
            assert int(headers["Retry-After"]) > 0
        else:
            assert body["verified"] is True
    assert app.extensions["lab_admission"].usage()["runs"] == 0


# --- item 7: small runs are not held up by large ones --------------------------------------


def test_a_small_run_completes_while_large_runs_fill_their_lane(gate):
    app = app_with(LAB_LARGE_RUNS_AT_ONCE=1)
    large = [client_at(app, a) for a in (HOME, NEIGHBOUR)]
    learner = client_at(app, "192.0.2.1")
    try:
        assert large[0].emit("simulate", WIDE, callback=True)["ok"]
        wait_until(lambda: gate.inside == 1, "a large run in the engine")
        assert large[1].emit("simulate", {**WIDE, "seed": 1}, callback=True)["ok"]

        assert learner.emit("simulate", RING8, callback=True)["ok"] is True
        names = [e["name"] for e in received_until(learner, "sim_done")]
        assert names[:2] == ["sim_start", "sim_step"] and names[-1] == "sim_done"
        assert gate.inside == 1, "the large runs are still held"
    finally:
        gate.open()
        disconnect_all(app, [*large, learner])
