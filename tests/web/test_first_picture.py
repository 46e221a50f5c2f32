"""The embed's first picture on the server (app/web/pages/first_picture.py): drawn under the
lab's admission, kept, and its run left in the run cache for the embed's own `simulate`."""

from __future__ import annotations

import pytest

from app import create_app
from app.collectives import simulate
from app.web.extensions import socketio as flask_socketio
from app.web.live import sockets
from app.web.pages import first_picture
from tests.conftest import TEST_CONFIG
from tests.web.test_runcache import expected_events, run

EMBED = "/embed/allreduce/ring?ranks=8&elements=64"
# What static/js/embed.js sends for that page (params()).
EMBED_SIMULATE = {"collective": "allreduce", "algorithm": "ring", "ranks": 8, "elements": 64,
                  "op": "sum", "seed": 0, "interval_ms": 0}  # fmt: skip


@pytest.fixture
def engine_calls(monkeypatch) -> dict[str, int]:
    """How often the page and the socket ran the engine."""
    calls = {"page": 0, "socket": 0}

    def counted(where):
        def run_engine(**kwargs):
            calls[where] += 1
            return simulate(**kwargs)

        return run_engine

    monkeypatch.setattr(first_picture, "simulate", counted("page"))
    monkeypatch.setattr(sockets, "simulate", counted("socket"))
    monkeypatch.setattr(first_picture, "_recent", first_picture._Recent(first_picture.KEEP))
    return calls


def test_the_embeds_simulate_streams_the_run_its_first_picture_already_ran(engine_calls):
    app = create_app(TEST_CONFIG)
    client = app.test_client()
    assert client.get(EMBED).status_code == 200
    cache = app.extensions["lab_run_cache"]
    assert engine_calls == {"page": 1, "socket": 0} and cache.stats()["entries"] == 1

    sc = flask_socketio.test_client(app, flask_test_client=client)
    try:
        ack, events = run(sc, EMBED_SIMULATE)
    finally:
        sc.disconnect()
    assert engine_calls == {"page": 1, "socket": 0} and cache.stats()["hits"] == 1
    # What streams from the cache is what the engine would have streamed.
    assert [(e["name"], e["args"][0]) for e in events] == expected_events(
        EMBED_SIMULATE, ack["run_id"]
    )


def test_a_page_drawn_again_runs_nothing_and_the_cache_off_keeps_nothing(engine_calls):
    app = create_app({**TEST_CONFIG, "LAB_RUN_CACHE_BYTES": 0})
    client = app.test_client()
    for _ in range(2):
        assert client.get(EMBED).status_code == 200
    assert engine_calls["page"] == 1  # the second from the kept pictures
    assert app.extensions["lab_run_cache"].stats()["entries"] == 0
