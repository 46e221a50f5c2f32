"""Rate limits and the cap on concurrent runs: clear errors, and nothing else disturbed."""

from __future__ import annotations

import pytest

from app import create_app
from app.web.extensions import socketio
from app.web.limits import RateLimited, TokenBuckets
from app.web.sockets import RunRegistry, ServerBusy

RING4 = {"collective": "allreduce", "algorithm": "ring", "ranks": 4, "elements": 8}
SLOW = {**RING4, "interval_ms": 5000}


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_allows_its_burst_then_refills_at_its_rate():
    clock = FakeClock()
    buckets = TokenBuckets("things", rate_per_s=2, burst=3, clock=clock)
    for _ in range(3):
        buckets.take("a")
    with pytest.raises(RateLimited) as info:
        buckets.take("a")
    assert "too many things: the limit is 2 per second; retry in 1 s" == str(info.value)
    assert info.value.retry_after_s == pytest.approx(0.5)
    buckets.take("b")  # another client is not affected
    clock.now = 0.5
    buckets.take("a")  # one token back after 1/rate seconds
    with pytest.raises(RateLimited):
        buckets.take("a")


def test_api_requests_past_the_burst_get_429_with_retry_after():
    app = create_app({"TESTING": True, "API_RATE_PER_S": 1.0, "API_BURST": 3})
    client = app.test_client()
    codes = [client.get("/api/collectives").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    response = client.get("/api/collectives")
    assert response.status_code == 429
    assert response.headers["Retry-After"] == "1"
    assert "too many API requests" in response.get_json()["error"]
    assert client.get("/lab").status_code == 200  # pages are not limited


def test_a_simulate_flood_is_refused_by_name_and_the_client_keeps_working():
    app = create_app({"TESTING": True, "SIMULATE_RATE_PER_S": 0.001, "SIMULATE_BURST": 3})
    sc = socketio.test_client(app)
    acks = [sc.emit("simulate", SLOW, callback=True) for _ in range(5)]
    assert [a["ok"] for a in acks] == [True, True, True, False, False]
    assert "too many simulate requests" in acks[3]["error"]
    assert acks[3]["retry_after_s"] > 0
    # Every accepted run but the last was replaced: one run at a time per client.
    assert app.extensions["lab_runs"].running()[-1] == acks[2]["run_id"]
    assert sc.emit("cancel", {"run_id": acks[2]["run_id"]}, callback=True)["cancelled"] is True
    sc.disconnect()


def test_past_the_cap_on_active_runs_simulate_says_server_busy():
    app = create_app({"TESTING": True, "MAX_ACTIVE_RUNS": 1})
    first, second = socketio.test_client(app), socketio.test_client(app)
    assert first.emit("simulate", SLOW, callback=True)["ok"] is True
    busy = second.emit("simulate", SLOW, callback=True)
    assert busy == {"ok": False, "error": busy["error"], "retry_after_s": 2}
    assert busy["error"] == "server busy: 1 simulations are running; retry in 2 s"
    # The client holding the slot may replace its own run: that frees its old slot.
    assert first.emit("simulate", SLOW, callback=True)["ok"] is True
    first.disconnect()
    second.disconnect()


def test_shutdown_cancels_every_run():
    runs = RunRegistry(max_active=10)
    started = [runs.start(sid) for sid in ("a", "b", "c")]
    assert runs.cancel_all() == 3
    assert all(run.cancelled for run in started)
    with pytest.raises(ServerBusy):
        full = RunRegistry(max_active=1)
        full.start("x")
        full.start("y")
