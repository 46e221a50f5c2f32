"""A client that never reads cannot make the server hold its events without bound (issue 12).

A polling client that sends `simulate` and then never GETs: engine.io queues every event for
it. Over a real server, the stream waits while more than LAB_SEND_QUEUE_BYTES wait for the
client, ends the run with sim_error when the client takes nothing for LAB_SEND_STALL_S, and a
client that asks again while still that far behind loses its connection and its queue.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request

import pytest

from app import create_app
from app.collectives import simulate
from app.web.live import runcache, send_queue
from tests.conftest import TEST_CONFIG, LiveServer

pytestmark = pytest.mark.server

BOUND = 4096
RUN = {"collective": "allreduce", "algorithm": "ring", "ranks": 32, "elements": 1024}


class Polling:
    """A raw Engine.IO long-polling session: it reads only when told to."""

    def __init__(self, url: str) -> None:
        self.base = f"{url}/socket.io/?EIO=4&transport=polling"
        opened = self._get(self.base)
        self.eio_sid = json.loads(opened[1:])["sid"]
        self.url = f"{self.base}&sid={self.eio_sid}"
        self.post("40")
        connected = self.read()
        self.sid = json.loads(connected[connected.index("{") :])["sid"]

    @staticmethod
    def _get(url: str) -> str:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.read().decode()

    def post(self, packet: str) -> None:
        request = urllib.request.Request(self.url, data=packet.encode(), method="POST")
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.read() == b"OK"

    def read(self) -> str:
        return self._get(self.url)

    def simulate(self, data: dict, ack_id: int) -> None:
        self.post(f"42{ack_id}" + json.dumps(["simulate", data]))


def test_a_polling_client_that_never_reads_loses_its_run_then_its_connection():
    app = create_app({**TEST_CONFIG, "LAB_SEND_QUEUE_BYTES": BOUND, "LAB_SEND_STALL_S": 0.5})
    server = app.extensions["socketio"].server
    runs = app.extensions["lab_runs"]
    encoded = runcache.encode_run(simulate(**RUN))
    largest = max(len(t) for t in (encoded.start, encoded.done, *encoded.steps))
    # The run is several times what the queue may hold (the bound plus one event, sim_start the
    # largest: 45 kB with the topology's markup), so it cannot end before the client reads.
    assert encoded.nbytes > 3 * (BOUND + largest), "the run must not fit in the bound"

    with LiveServer(app) as live:
        client = Polling(live.url)
        peak = [0]
        sampling = threading.Event()

        def sample() -> None:
            while not sampling.is_set():
                peak[0] = max(peak[0], send_queue.pending_bytes(server, client.sid))
                time.sleep(0.002)

        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            client.simulate(RUN, 1)
            deadline = time.monotonic() + 30
            while runs.running() and time.monotonic() < deadline:
                time.sleep(0.02)
            assert runs.running() == [], "the run still streams to a client that reads nothing"
        finally:
            sampling.set()
            sampler.join()

        # What waited for the client never grew past the bound by more than one event.
        assert 0 < peak[0] <= BOUND + largest + 200

        # It asks again without having read: its connection is closed, its queue freed.
        client.simulate(RUN, 2)
        deadline = time.monotonic() + 10
        while server.manager.is_connected(client.sid, "/") and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not server.manager.is_connected(client.sid, "/")
        assert send_queue.pending_bytes(server, client.sid) == 0
        session = server.eio.sockets.get(client.eio_sid)
        assert session is None or session.queue.pending_bytes == 0


def test_a_polling_client_that_stops_reading_sees_why_its_run_ended_when_it_reads_again():
    app = create_app({**TEST_CONFIG, "LAB_SEND_QUEUE_BYTES": BOUND, "LAB_SEND_STALL_S": 0.5})
    runs = app.extensions["lab_runs"]
    with LiveServer(app) as live:
        client = Polling(live.url)
        client.simulate(RUN, 1)
        deadline = time.monotonic() + 30
        while runs.running() and time.monotonic() < deadline:
            time.sleep(0.02)
        text = ""
        while "sim_error" not in text and time.monotonic() < deadline:
            text += client.read()
    assert "your connection is not keeping up: run cancelled" in text
    assert "sim_done" not in text
