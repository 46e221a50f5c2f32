"""The lab over a real websocket: python-socketio's client against the app served on 127.0.0.1."""

from __future__ import annotations

import threading

import pytest
import socketio

pytestmark = pytest.mark.server

RING4 = {"collective": "allreduce", "algorithm": "ring", "ranks": 4, "elements": 16}


class Recorder:
    """A python-socketio client that records every lab event until the run ends."""

    def __init__(self) -> None:
        self.client = socketio.Client(reconnection=False)
        self.events: list[tuple[str, dict]] = []
        self.ended = threading.Event()
        for name in ("sim_start", "sim_step", "sim_done", "sim_error"):
            self.client.on(name, self._recorder(name))

    def _recorder(self, name: str):
        def record(payload: dict) -> None:
            self.events.append((name, payload))
            if name in ("sim_done", "sim_error"):
                self.ended.set()

        return record


def test_ring_allreduce_over_a_real_websocket(live_server, app):
    # `app` makes a newer app than the live server's: its events must still be handled.
    rec = Recorder()
    rec.client.connect(live_server.url, transports=["websocket"], wait_timeout=5)
    try:
        assert rec.client.transport() == "websocket"
        ack = rec.client.call("simulate", RING4, timeout=5)
        assert rec.ended.wait(10), f"run did not end; got {[n for n, _ in rec.events]}"
    finally:
        rec.client.disconnect()

    assert ack["ok"] is True
    assert [n for n, _ in rec.events] == ["sim_start"] + ["sim_step"] * 6 + ["sim_done"]
    assert {p["run_id"] for _, p in rec.events} == {ack["run_id"]}
    assert [p["index"] for n, p in rec.events if n == "sim_step"] == list(range(6))
    start, done = rec.events[0][1], rec.events[-1][1]
    assert start["ranks"] == 4 and start["layout"]["topology"]["order"] == [0, 1, 2, 3]
    assert done["verified"] is True and done["bytes_sent"] == [96] * 4


def test_a_bad_simulate_over_a_real_websocket_acks_the_error(live_server):
    rec = Recorder()
    rec.client.connect(live_server.url, transports=["websocket"], wait_timeout=5)
    try:
        ack = rec.client.call("simulate", {**RING4, "ranks": 65}, timeout=5)
    finally:
        rec.client.disconnect()
    assert ack == {"ok": False, "error": "ranks must be an integer in 1..64; got 65"}
    assert rec.events == []
