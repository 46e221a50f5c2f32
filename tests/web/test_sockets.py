"""The lab's Socket.IO protocol, through Flask-SocketIO's test client: order, isolation, cancel."""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path

import pytest

from app import create_app
from app.collectives import simulate
from app.collectives.narration import narrate
from app.web import settings
from app.web.extensions import socketio
from app.web.live import sockets
from app.web.topology_svg import topology_svg
from tests.web import compact_form

RING8 = {"collective": "allreduce", "algorithm": "ring", "ranks": 8, "elements": 64}
SLOW = {**RING8, "interval_ms": 5000}
DOCS = Path(__file__).resolve().parents[2] / "docs" / "lab.md"


def wait_idle(app, timeout: float = 5.0) -> None:
    """Wait until no run's background task is left, or fail naming the runs still going."""
    deadline = time.monotonic() + timeout
    while app.extensions["lab_runs"].running():
        if time.monotonic() > deadline:
            pytest.fail(
                f"runs still running after {timeout}s: {app.extensions['lab_runs'].running()}"
            )
        time.sleep(0.01)


def wait_for(sc, name: str, timeout: float = 5.0) -> list[dict]:
    """Collect `sc`'s events until one called `name` arrives; return all collected so far."""
    events: list[dict] = []
    deadline = time.monotonic() + timeout
    while not any(e["name"] == name for e in events):
        if time.monotonic() > deadline:
            pytest.fail(f"no {name} within {timeout}s; got {[e['name'] for e in events]}")
        events += sc.get_received()
        time.sleep(0.005)
    return events


def payloads(events: list[dict], name: str) -> list[dict]:
    """The `name` payloads of `events`, sim_start and sim_step expanded from the socket form."""
    return [e["args"][0] for e in compact_form.events(events) if e["name"] == name]


def test_ring_allreduce_streams_start_fourteen_steps_in_order_then_verified_done(
    app, socket_client
):
    ack = socket_client.emit("simulate", RING8, callback=True)
    assert ack["ok"] is True and re.fullmatch(r"[0-9a-f]{16}", ack["run_id"])
    wait_idle(app)
    events = socket_client.get_received()

    assert [e["name"] for e in events] == ["sim_start"] + ["sim_step"] * 14 + ["sim_done"]
    assert {e["args"][0]["run_id"] for e in events} == {ack["run_id"]}
    steps = payloads(events, "sim_step")
    assert [s["index"] for s in steps] == list(range(14))
    assert [s["phase"] for s in steps] == ["reduce-scatter"] * 7 + ["allgather"] * 7
    # Every step says what it does in words, numbered as the player numbers it (issue 15).
    assert [s["narration"] for s in steps] == narrate(simulate(**RING8))
    assert steps[2]["narration"].startswith("Step 3 of 14, reduce-scatter: every rank sends")
    assert "Rank 1's chunk G now holds 4 of 8 contributions" in steps[2]["narration"]
    done = payloads(events, "sim_done")[0]
    assert done["verified"] is True
    assert done["total_steps"] == 14
    assert done["max_abs_error"] == 0.0
    assert done["bytes_sent"] == [448] * 8  # 2(p-1)/p * 64 float32 values


def test_sim_start_describes_the_run_before_any_step(app, socket_client):
    ack = socket_client.emit("simulate", {**RING8, "op": "max", "seed": 3}, callback=True)
    wait_idle(app)
    start = payloads(socket_client.get_received(), "sim_start")[0]

    assert start["run_id"] == ack["run_id"]
    assert (start["collective"], start["algorithm"], start["op"]) == ("allreduce", "ring", "max")
    assert (start["ranks"], start["elements"], start["root"]) == (8, 64, 0)
    assert start["ranks_per_node"] is None and start["dtype"] == "float32"
    assert start["total_steps"] == 14 and len(start["phases"]) == 14
    layout = start["layout"]
    assert layout["topology"] == {"kind": "ring", "order": list(range(8))}
    assert layout["chunks"] == [[8 * c, 8 * c + 8] for c in range(8)]
    assert layout["buffer_length"] == 64
    assert layout["chunk_source"] == [None] * 8 and layout["chunk_dest"] == [None] * 8
    trace = simulate("allreduce", "ring", ranks=8, elements=64, op="max", seed=3)
    assert layout["topology_svg"] == topology_svg(trace)  # the picture the view animates
    assert len(start["initial_state"]) == 64  # every rank holds its own copy of every chunk
    first = start["initial_state"][9]  # rank 1, chunk 1: elements 8..11 of rank 1's input
    assert first == {
        "rank": 1,
        "chunk": 1,
        "holders": [1],
        "values": trace.inputs[1, 8:12].tolist(),
    }
    assert "cost" in start and "expected_bytes_per_rank" in start


def test_replaying_step_states_ends_with_every_rank_holding_the_full_reduction(app, socket_client):
    socket_client.emit("simulate", RING8, callback=True)
    wait_idle(app)
    events = socket_client.get_received()
    cells = {(c["rank"], c["chunk"]): c for c in payloads(events, "sim_start")[0]["initial_state"]}
    for step in payloads(events, "sim_step"):
        assert all(t["op"] in ("copy", "reduce") and t["elements"] == 8 for t in step["transfers"])
        cells.update({(c["rank"], c["chunk"]): c for c in step["state"]})

    expected = simulate("allreduce", "ring", ranks=8, elements=64).expected[0]
    for (rank, chunk), c in cells.items():
        assert c["holders"] == list(range(8)), (rank, chunk)
        assert c["values"] == expected[8 * chunk : 8 * chunk + 4].tolist()


def test_two_clients_receive_only_their_own_runs(app, client):
    a = socketio.test_client(app, flask_test_client=client)
    b = socketio.test_client(app, flask_test_client=client)
    try:
        ack_a = a.emit("simulate", {**RING8, "ranks": 4, "elements": 8}, callback=True)
        ack_b = b.emit(
            "simulate",
            {"collective": "allgather", "algorithm": "ring", "ranks": 3, "elements": 2},
            callback=True,
        )
        wait_idle(app)
        got_a, got_b = a.get_received(), b.get_received()
    finally:
        a.disconnect()
        b.disconnect()

    assert ack_a["run_id"] != ack_b["run_id"]
    assert {e["args"][0]["run_id"] for e in got_a} == {ack_a["run_id"]}
    assert {e["args"][0]["run_id"] for e in got_b} == {ack_b["run_id"]}
    assert [e["name"] for e in got_a].count("sim_step") == 6
    assert [e["name"] for e in got_b].count("sim_step") == 2
    assert payloads(got_b, "sim_start")[0]["collective"] == "allgather"


def test_cancel_mid_run_ends_the_task_promptly_and_stops_events(app, socket_client):
    ack = socket_client.emit("simulate", SLOW, callback=True)
    before = wait_for(socket_client, "sim_step")

    started = time.monotonic()
    answer = socket_client.emit("cancel", {"run_id": ack["run_id"]}, callback=True)
    wait_idle(app, timeout=2.0)

    assert answer == {"ok": True, "cancelled": True}
    assert time.monotonic() - started < 1.0  # not the 5 s step interval
    assert [e["name"] for e in before] == ["sim_start", "sim_step"]
    time.sleep(0.2)
    assert socket_client.get_received() == []


@pytest.mark.parametrize(
    "payload",
    [{"run_id": "0123456789abcdef"}, {}, None],
    ids=["unknown run", "no run_id", "no payload"],
)
def test_cancelling_when_nothing_runs_is_harmless(socket_client, payload):
    args = () if payload is None else (payload,)
    assert socket_client.emit("cancel", *args, callback=True) == {"ok": True, "cancelled": False}


def test_cancel_with_a_malformed_payload_acks_an_error(socket_client):
    answer = socket_client.emit("cancel", {"run_id": 7}, callback=True)
    assert answer["ok"] is False and "run_id" in answer["error"]


def test_cancel_does_not_touch_another_clients_run(app, client, socket_client):
    other = socketio.test_client(app, flask_test_client=client)
    try:
        ack = other.emit("simulate", SLOW, callback=True)
        wait_for(other, "sim_step")
        answer = socket_client.emit("cancel", {"run_id": ack["run_id"]}, callback=True)
        assert answer == {"ok": True, "cancelled": False}
        assert app.extensions["lab_runs"].running() == [ack["run_id"]]
    finally:
        other.disconnect()
    wait_idle(app, timeout=2.0)


def test_a_new_simulate_cancels_the_previous_run(app, socket_client):
    first = socket_client.emit("simulate", SLOW, callback=True)
    wait_for(socket_client, "sim_step")
    second = socket_client.emit("simulate", {**RING8, "ranks": 2, "elements": 4}, callback=True)
    wait_idle(app, timeout=2.0)
    events = socket_client.get_received()

    assert first["run_id"] != second["run_id"]
    assert {e["args"][0]["run_id"] for e in events} == {second["run_id"]}
    assert [e["name"] for e in events] == ["sim_start", "sim_step", "sim_step", "sim_done"]


def test_disconnect_mid_run_leaves_no_running_task(app, socket_client):
    ack = socket_client.emit("simulate", SLOW, callback=True)
    wait_for(socket_client, "sim_step")
    assert app.extensions["lab_runs"].running() == [ack["run_id"]]

    socket_client.disconnect()
    wait_idle(app, timeout=2.0)


def bad(**changes) -> dict:
    """Return RING8 with `changes` applied (a value of ... removes the key)."""
    out = {**RING8, **changes}
    return {k: v for k, v in out.items() if v is not ...}


BAD_INPUTS = [
    (bad(ranks=0), "ranks must be an integer in 1..64"),
    (bad(ranks=65), "ranks must be an integer in 1..64"),
    (bad(ranks="8"), 'ranks must be an integer in 1..64; got "8"'),
    (bad(ranks=True), "ranks must be an integer in 1..64; got true"),
    (bad(ranks=8.0), "ranks must be an integer"),
    (bad(ranks=...), "ranks is required"),
    (bad(algorithm="tree"), "algorithm must be one of "),
    (bad(algorithm=None), "algorithm must be one of"),
    (bad(collective="allreduce_fast"), "collective must be one of"),
    (bad(interval_ms=-1), "interval_ms must be an integer in 0..5000; got -1"),
    (bad(interval_ms=6000), "interval_ms must be an integer in 0..5000; got 6000"),
    (bad(interval_ms="100"), "interval_ms must be an integer"),
    (bad(elements=0), "elements must be an integer in 1..32768"),
    (bad(ranks=64, elements=4097), "elements must be an integer in 1..4096"),
    (
        {"collective": "allgather", "algorithm": "ring", "ranks": 64, "elements": 65},
        "elements must be an integer in 1..64 for allgather on 64 ranks",
    ),
    (
        {"collective": "reduce_scatter", "algorithm": "ring", "ranks": 8, "elements": 12},
        "elements must be a multiple of ranks (8)",
    ),
    (bad(op="mean"), "op must be one of sum, prod, max, min, avg"),
    (bad(root=8), "root must be an integer in 0..7"),
    (bad(seed=-1), "seed must be an integer >= 0"),
    (bad(speed=2), 'unknown parameter "speed"'),
    (
        {"collective": "allreduce", "algorithm": "hierarchical", "ranks": 8, "elements": 64},
        "ranks_per_node is required",
    ),
    (
        {**RING8, "algorithm": "hierarchical", "ranks_per_node": 3},
        "ranks_per_node must divide ranks (8); got 3",
    ),
    ([RING8], "parameters must be a JSON object"),
    ("allreduce", "parameters must be a JSON object"),
]


@pytest.mark.parametrize(("payload", "message"), BAD_INPUTS)
def test_bad_input_acks_an_error_naming_the_field_and_starts_nothing(
    app, socket_client, payload, message
):
    ack = socket_client.emit("simulate", payload, callback=True)
    assert ack["ok"] is False
    assert message in ack["error"]
    assert app.extensions["lab_runs"].running() == []
    assert socket_client.get_received() == []


def test_simulate_without_parameters_acks_an_error(socket_client):
    ack = socket_client.emit("simulate", callback=True)
    assert ack == {"ok": False, "error": "parameters must be a JSON object, got null"}


def test_a_lab_limit_above_the_engines_gives_way_to_the_engines():
    # The lab's limit set above the engine's (256 ranks): the one gate applies the engine's. The
    # memory budget would refuse such a run first (it is sized for 64 ranks): 0 turns it off.
    app = create_app({"TESTING": True, "LAB_MAX_RANKS": 300, "LAB_MEMORY_BUDGET_MB": 0})
    sc = socketio.test_client(app)
    ack = sc.emit("simulate", {**RING8, "ranks": 300, "elements": 1}, callback=True)
    events = sc.get_received()
    sc.disconnect()

    assert ack == {"ok": False, "error": "ranks must be an integer in 1..256; got 300"}
    assert events == []


def test_an_unexpected_failure_is_logged_and_reported_plainly(
    app, socket_client, monkeypatch, caplog
):
    def broken(*args, **kwargs):
        raise RuntimeError("engine exploded")

    monkeypatch.setattr(sockets, "simulate", broken)
    with caplog.at_level(logging.ERROR, logger="app.web.live.sockets"):
        ack = socket_client.emit("simulate", RING8, callback=True)
        wait_idle(app)
    events = socket_client.get_received()

    assert [e["name"] for e in events] == ["sim_error"]
    error = events[0]["args"][0]["error"]
    assert "failed unexpectedly" in error and "exploded" not in error
    assert ack["run_id"] in caplog.text and "engine exploded" in caplog.text


def test_every_event_and_limit_is_documented():
    text = DOCS.read_text(encoding="utf-8")
    for name in ("simulate", "cancel", "sim_start", "sim_step", "sim_done", "sim_error"):
        assert f"`{name}`" in text, name
    for name in ("LAB_MAX_RANKS", "LAB_MAX_CELLS", "EMBED_FRAME_ANCESTORS", "interval_ms"):
        assert name in text, name
    # Every limit on runs, its setting (with a help text) and the words of its refusal.
    helps = {s.name: s.help for s in settings.SETTINGS}
    for name in (
        "MAX_ACTIVE_RUNS",
        "LAB_RUNS_PER_ADDRESS",
        "LAB_RUNS_PER_CLASS_ADDRESS",
        "LAB_MEMORY_BUDGET_MB",
        "LAB_MAX_RUN_S",
        "LAB_SMALL_RUN_RANKS",
        "LAB_LARGE_RUNS_AT_ONCE",
        "LAB_SEND_QUEUE_BYTES",
        "LAB_SEND_STALL_S",
    ):
        assert f"`{name}`" in text and len(helps.get(name, "")) > 40, name
    for refusal in (
        "too many simulations from your address",
        "simulations are running",
        "memory budget",
        "interval_ms must be at most",
        "your connection is not keeping up: run cancelled",
    ):
        assert refusal in text, refusal
