"""The run cache: a repeated run streams exactly what the engine would, and nothing else shares."""

from __future__ import annotations

import dataclasses
import json
import random
import threading

import pytest
import socketio

from app import create_app
from app.collectives import simulate
from app.web import compact, params, serialize
from app.web.extensions import socketio as flask_socketio
from app.web.live import sockets
from app.web.live.runcache import EncodedRun, RunCache, key
from app.web.live.socket_json import Encoded, encode
from tests.conftest import TEST_CONFIG, LiveServer
from tests.web.test_sockets import RING8, wait_for, wait_idle

# One run of each kind of payload: rooted, hierarchical, segmented, prod overflowing to null,
# avg's fractions, a non-zero root with no per-rank estimate, divisible collectives.
VARIANTS = [
    RING8,
    {**RING8, "op": "prod", "ranks": 16, "elements": 16, "seed": 3},
    {**RING8, "op": "avg", "seed": 5},
    {"collective": "allreduce", "algorithm": "hierarchical", "ranks": 8, "elements": 32,
     "ranks_per_node": 4},
    {"collective": "broadcast", "algorithm": "pipelined_ring", "ranks": 5, "elements": 20,
     "root": 2},
    {"collective": "reduce_scatter", "algorithm": "ring", "ranks": 4, "elements": 8, "op": "max"},
    {"collective": "all_to_all", "algorithm": "direct", "ranks": 4, "elements": 8},
    {"collective": "gather", "algorithm": "direct", "ranks": 3, "elements": 2, "root": 1},
]  # fmt: skip


def parse(data: dict) -> params.SimParams:
    return params.parse(data, max_ranks=64, max_cells=1 << 18)


def run(sc, data: dict) -> tuple[dict, list[dict]]:
    """Run `data` on a test client to its end; return the ack and the events."""
    ack = sc.emit("simulate", data, callback=True)
    assert ack["ok"], ack
    return ack, wait_for(sc, "sim_done")


def without_run_id(events: list[dict]) -> list[tuple[str, dict]]:
    return [(e["name"], {k: v for k, v in e["args"][0].items() if k != "run_id"}) for e in events]


def expected_events(data: dict, run_id: str) -> list[tuple[str, dict]]:
    """The events the lab streams without the cache: the socket form (app/web/compact.py) of
    the engine's trace, whose expansion tests/web/test_compact.py checks against serialize's."""
    trace = simulate(**parse(data).simulate_kwargs())
    payloads = (
        [("sim_start", compact.start(trace))]
        + [
            ("sim_step", compact.step(trace, s, text))
            for s, text in zip(trace.steps, serialize.narrations(trace), strict=True)
        ]
        + [("sim_done", serialize.done(trace))]
    )
    return [(event, {"run_id": run_id, **body}) for event, body in payloads]


@pytest.fixture
def engine_calls(monkeypatch) -> list[dict]:
    calls: list[dict] = []

    def counted(**kwargs):
        calls.append(kwargs)
        return simulate(**kwargs)

    monkeypatch.setattr(sockets, "simulate", counted)
    return calls


@pytest.mark.parametrize("data", VARIANTS, ids=lambda d: f"{d['collective']}-{d['algorithm']}")
def test_a_cached_run_streams_the_same_events_as_the_engine(app, socket_client, engine_calls, data):
    first_ack, first = run(socket_client, data)
    second_ack, second = run(socket_client, {**data, "interval_ms": 1})  # the pace is not a key
    cache = app.extensions["lab_run_cache"].stats()

    assert len(engine_calls) == 1 and cache["hits"] == 1 and cache["entries"] == 1
    assert first_ack["run_id"] != second_ack["run_id"]
    for ack, events in ((first_ack, first), (second_ack, second)):
        assert [(e["name"], e["args"][0]) for e in events] == expected_events(data, ack["run_id"])
    assert without_run_id(first) == without_run_id(second)


def test_with_the_cache_disabled_every_run_runs_the_engine(engine_calls):
    app = create_app({**TEST_CONFIG, "LAB_RUN_CACHE_BYTES": 0})
    sc = flask_socketio.test_client(app)
    try:
        acks = [run(sc, RING8)[0] for _ in range(3)]
    finally:
        sc.disconnect()
    assert len(engine_calls) == 3 and len({a["run_id"] for a in acks}) == 3
    assert app.extensions["lab_run_cache"].stats()["entries"] == 0


FIELD_CHANGES = {
    "collective": {"collective": "allgather", "elements": 8},
    "algorithm": {"algorithm": "binary_tree"},
    "ranks": {"ranks": 4},
    "elements": {"elements": 32},
    "op": {"op": "max"},
    "root": {"root": 3},
    "seed": {"seed": 1},
    "ranks_per_node": {"algorithm": "hierarchical", "ranks_per_node": 2},
}


def test_every_parameter_but_interval_ms_is_part_of_the_key():
    base = parse(RING8)
    assert {f.name for f in dataclasses.fields(params.SimParams)} == {*FIELD_CHANGES, "interval_ms"}
    keys = {key(parse({**RING8, **change})) for change in FIELD_CHANGES.values()}
    assert len(keys) == len(FIELD_CHANGES) and key(base) not in keys
    assert key(parse({**RING8, "interval_ms": 700})) == key(base)


def test_distinct_parameters_never_share_an_entry(app, socket_client, engine_calls):
    variants = [RING8] + [{**RING8, **change} for change in FIELD_CHANGES.values()]
    for data in variants:
        _, events = run(socket_client, data)
        start = events[0]["args"][0]
        for name in ("collective", "algorithm", "ranks", "elements", "op", "root"):
            assert start[name] == parse(data).simulate_kwargs()[name]
    cache = app.extensions["lab_run_cache"]
    assert len(engine_calls) == len(variants)
    assert cache.stats()["hits"] == 0 and cache.stats()["entries"] == len(variants)
    for data in variants:
        ack, events = run(socket_client, data)  # now each from its own entry
        assert [(e["name"], e["args"][0]) for e in events] == expected_events(data, ack["run_id"])
    assert cache.stats()["hits"] == len(variants) and len(engine_calls) == len(variants)


def test_a_run_cancelled_before_it_was_encoded_is_not_cached_and_a_cached_run_can_be_cancelled(
    app, socket_client, monkeypatch
):
    cache = app.extensions["lab_run_cache"]
    slow = {**RING8, "interval_ms": 5000}
    in_engine, release = threading.Event(), threading.Event()

    def held(**kwargs):
        in_engine.set()
        release.wait(10)
        return simulate(**kwargs)

    monkeypatch.setattr(sockets, "simulate", held)
    socket_client.emit("simulate", slow, callback=True)
    assert in_engine.wait(10)
    assert socket_client.emit("cancel", {}, callback=True) == {"ok": True, "cancelled": True}
    release.set()
    wait_idle(app)
    assert cache.stats()["entries"] == 0
    monkeypatch.setattr(sockets, "simulate", simulate)

    run(socket_client, RING8)
    ack = socket_client.emit("simulate", slow, callback=True)  # from the cache, paced
    events = wait_for(socket_client, "sim_step")
    assert cache.stats()["hits"] == 1
    assert socket_client.emit("cancel", {}, callback=True) == {"ok": True, "cancelled": True}
    wait_idle(app, timeout=2.0)
    events += socket_client.get_received()
    assert [e["name"] for e in events] == ["sim_start", "sim_step"]
    assert {e["args"][0]["run_id"] for e in events} == {ack["run_id"]}


def test_two_clients_replaying_one_entry_each_get_only_their_own_run(app, client):
    a = flask_socketio.test_client(app, flask_test_client=client)
    b = flask_socketio.test_client(app, flask_test_client=client)
    try:
        run(a, RING8)
        slow = {**RING8, "interval_ms": 20}
        ack_a = a.emit("simulate", slow, callback=True)
        ack_b = b.emit("simulate", slow, callback=True)
        wait_idle(app)
        got_a, got_b = a.get_received(), b.get_received()
    finally:
        a.disconnect()
        b.disconnect()
    assert app.extensions["lab_run_cache"].stats()["hits"] == 2
    assert {e["args"][0]["run_id"] for e in got_a} == {ack_a["run_id"]}
    assert {e["args"][0]["run_id"] for e in got_b} == {ack_b["run_id"]}
    assert without_run_id(got_a) == without_run_id(got_b)
    assert len(got_a) == 16


class RawRecorder(socketio.Client):
    """A python-socketio client that keeps the text of every Socket.IO packet it receives, in
    the order they came off the socket: engine.io's reader hands each message to its own
    thread (`run_async=True`), so a loaded machine can run two handlers out of order."""

    def __init__(self) -> None:
        super().__init__(reconnection=False)
        self.raw: list[str] = []
        self.done = threading.Event()
        self.on("sim_done", lambda payload: self.done.set())
        receive = self.eio._receive_packet

        def record(pkt):  # on the reader's thread, before any handler runs
            if isinstance(pkt.data, str) and pkt.data.startswith("2["):
                self.raw.append(pkt.data)
            return receive(pkt)

        self.eio._receive_packet = record


def test_over_a_real_websocket_cached_and_uncached_runs_send_the_same_bytes(engine_calls):
    app = create_app(TEST_CONFIG)
    data = {**RING8, "op": "prod", "ranks": 64, "elements": 64}  # 9^64 overflows to null
    runs = []
    with LiveServer(app) as server:
        client = RawRecorder()
        client.connect(server.url, transports=["websocket"], wait_timeout=5)
        try:
            for _ in range(2):
                client.raw.clear()
                client.done.clear()
                ack = client.call("simulate", data, timeout=5)
                assert client.done.wait(60)  # a bound, not a timing: a loaded machine is slow
                runs.append((ack["run_id"], list(client.raw)))
        finally:
            client.disconnect()
    assert len(engine_calls) == 1
    for run_id, raw in runs:
        expected = [
            "2" + json.dumps([name, payload], separators=(",", ":"))
            for name, payload in expected_events(data, run_id)
        ]
        assert raw == expected
    assert any("null" in packet for packet in runs[0][1])  # infinities were sent as null


def entry(size: int) -> EncodedRun:
    """An encoded run whose texts add up to about `size` bytes."""
    return EncodedRun("{}", ("{" + '"x":0,' * max(0, (size - 200) // 6) + '"y":1}',), "{}")


def test_the_cache_evicts_the_least_recently_used_run_to_stay_within_its_budget():
    cache = RunCache(40_000)
    p = [parse({**RING8, "seed": s}) for s in range(5)]
    for x in p[:3]:
        assert cache.put(x, entry(9_000))
    assert cache.get(p[0]) is not None  # p[0] is now the most recently used
    cache.put(p[3], entry(9_000))
    cache.put(p[4], entry(9_000))
    assert cache.stats()["bytes"] <= 40_000
    assert cache.get(p[1]) is None and cache.get(p[0]) is not None
    assert [cache.get(x) is not None for x in p] == [True, False, True, True, True]


def test_a_run_over_a_quarter_of_the_budget_is_not_kept_and_zero_disables():
    cache = RunCache(40_000)
    assert not cache.put(parse(RING8), entry(11_000)) and cache.get(parse(RING8)) is None
    off = RunCache(0)
    assert not off.enabled and not off.put(parse(RING8), entry(100))
    assert off.get(parse(RING8)) is None and off.stats()["misses"] == 0


def test_the_cache_stays_consistent_under_concurrent_puts_and_gets():
    cache = RunCache(50_000)
    keys = [parse({**RING8, "seed": s}) for s in range(24)]  # about 75 kB in all: evictions
    runs = {k: entry(2_000 + 100 * i) for i, k in enumerate(keys)}

    def work(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(400):
            k = rng.choice(keys)
            got = cache.get(k)
            if got is None:
                cache.put(k, runs[k])
            else:
                assert got is runs[k]  # never another key's run

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    stats = cache.stats()
    held = [k for k in keys if cache.holds(k)]
    assert stats["bytes"] == sum(runs[k].nbytes for k in held) <= 50_000
    assert stats["entries"] == len(held)
    assert stats["hits"] + stats["misses"] == 8 * 400
    assert stats["hits"] > 0 and stats["misses"] > len(keys)


PAYLOADS = [
    {"index": 0, "phase": "reduce-scatter", "transfers": [], "state": []},
    {"error": 'ranks must be an integer in 1..64; got "8" — ünïcode'},
    {"values": [0.1, 1e-07, 3.4028234663852886e38, None, -0.0, 12]},
    {},
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_an_encoded_payload_is_spliced_byte_for_byte_as_json_dumps_would_write_it(payload):
    from app.web.live import socket_json

    run_id = "0123456789abcdef"
    spliced = socket_json.dumps(
        ["sim_step", Encoded(encode(payload), run_id)], separators=(",", ":")
    )
    assert spliced == json.dumps(["sim_step", {"run_id": run_id, **payload}], separators=(",", ":"))
    assert Encoded(encode(payload), run_id).value() == {"run_id": run_id, **payload}
    # anywhere else (another separator, nested) it is still encoded as the dict it stands for
    nested = socket_json.dumps({"a": [Encoded(encode(payload), run_id)]})
    assert json.loads(nested) == {"a": [{"run_id": run_id, **payload}]}


def test_only_a_json_object_can_be_an_encoded_payload():
    with pytest.raises(ValueError):
        Encoded("[1,2]", "x")
