"""A client's events are handled in the order it sent them: its newest `simulate` wins."""

from __future__ import annotations

import threading

import pytest
import socketio

from app.web.live import runs, sockets

pytestmark = pytest.mark.server

BIG = {"collective": "allreduce", "algorithm": "ring", "ranks": 64, "elements": 1024}


def test_back_to_back_simulates_stream_the_last_one_sent(live_server):
    client = socketio.Client()
    done = threading.Event()
    finished: list[str] = []
    acks: list[dict] = []

    @client.on("sim_done")
    def on_done(payload):
        finished.append(payload["run_id"])
        done.set()

    client.connect(live_server.url, transports=["websocket"])
    try:
        for seed in range(12):  # sent without waiting for the acks, as a fast double-click would
            client.emit("simulate", {**BIG, "seed": seed}, callback=acks.append)
        assert done.wait(30), "no run finished"
        client.sleep(0.5)  # any older run that still streamed would finish meanwhile
        assert len(acks) == 12 and all(a["ok"] for a in acks)
        assert finished == [acks[-1]["run_id"]]
    finally:
        client.disconnect()


def test_a_replaced_run_does_not_run_the_engine(monkeypatch):
    calls = []
    run = runs.Run("sid")
    run.cancel()
    monkeypatch.setattr(sockets, "simulate", lambda **kw: calls.append(kw))
    sockets._stream(server=None, runs=runs.RunRegistry(max_active=4), run=run, p=None)
    assert calls == []
