"""Rate limits and the cap on concurrent runs: clear errors, and nothing else disturbed.

HTTP requests are charged by their work per client address (app/web/guard/limits.py): a class of 200
students behind one NAT address, each dragging a calculator's sliders, is never refused, while
one script hammering from one address is refused once it has spent its budget.
"""

from __future__ import annotations

import itertools

import pytest

from app import create_app
from app.costs.calculators import CALCULATORS
from app.web.extensions import socketio
from app.web.guard.admission import Busy
from app.web.guard.limits import RateLimited, TokenBuckets
from app.web.live.runs import RunRegistry

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


def test_requests_past_the_burst_get_429_with_retry_after():
    app = create_app({"TESTING": True, "API_RATE_PER_S": 1.0, "API_BURST": 3})
    client = app.test_client()
    codes = [client.get("/api/collectives").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    response = client.get("/api/collectives")
    assert response.status_code == 429
    assert response.headers["Retry-After"] == "1"
    error = response.get_json()["error"]
    assert error.startswith("too many requests from this address: ")
    assert "1 work units per second" in error and "retry in 1 s" in error
    page = client.get("/lab")  # pages are work too: a page answers with a page
    assert page.status_code == 429 and page.mimetype == "text/html"
    assert "Retry-After" in page.headers
    with client.get("/static/js/theme.js") as static:
        assert static.status_code == 200  # static files are free


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
    with pytest.raises(Busy):
        full = RunRegistry(max_active=1)
        full.start("x")
        full.start("y")


# -- work, not requests: a class behind one address, and a script ---------------------------------

# static/js/calculators.js asks the server DEBOUNCE_MS after a widget's last input, so a student
# dragging a slider sends at most 1000 / 200 = 5 requests a second.
DEBOUNCE_MS = 200
STUDENTS = 200
DRAG_REQUESTS = 5  # one drag across a slider, with a pause of >= 200 ms at each of 5 values
CALCULATOR = "/api/calc/crossover"


def js_debounce_ms() -> int:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "static/js/calculators.js").read_text()
    return int(text.split("const DEBOUNCE_MS = ", 1)[1].split(";", 1)[0])


def test_the_class_model_uses_the_calculators_debounce():
    assert js_debounce_ms() == DEBOUNCE_MS


def client_at(app, address: str):
    """A test client whose requests come from `address`."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def student_requests(student: int) -> list[str]:
    """The requests one student's drag across the message-size slider sends."""
    sizes = [2 ** (10 + (student + k) % 20) for k in range(DRAG_REQUESTS)]
    return [f"{CALCULATOR}?message_bytes={size}&ranks={8 << (student % 4)}" for size in sizes]


def test_a_class_of_200_behind_one_address_is_never_refused():
    app = create_app({"TESTING": True})
    clients = [client_at(app, "127.0.0.1") for _ in range(STUDENTS)]
    # Everyone drags at once, as when the teacher says "now try 64 GPUs": the requests of the
    # 200 students interleave, 1,000 of them, sent faster than the real class could (the
    # debounce spreads one student's over a second at least).
    drags = [student_requests(i) for i in range(STUDENTS)]
    codes = {}
    for k in range(DRAG_REQUESTS):
        for i, client in enumerate(clients):
            status = client.get(drags[i][k]).status_code
            codes[status] = codes.get(status, 0) + 1
    assert codes == {200: STUDENTS * DRAG_REQUESTS}, f"status counts: {codes}"


class FrozenClock:
    """A clock that stands still: a script faster than any refill."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def hammer(client, url: str, most: int = 20_000) -> int:
    """Send `url` until the first refusal; return how many were answered before it."""
    for n in itertools.count():
        response = client.get(url)
        if response.status_code == 429:
            return n
        assert response.status_code == 200, response.get_data(as_text=True)[:200]
        assert n < most, f"{most} requests and no refusal"
    raise AssertionError("unreachable")


def test_one_script_hammering_from_one_address_is_refused_after_its_budget():
    app = create_app({"TESTING": True})
    limits = app.extensions["work_limits"]
    limits.clock = FrozenClock()
    script = client_at(app, "203.0.113.7")
    answered = hammer(script, f"{CALCULATOR}?ranks=64")
    assert answered == app.config["API_BURST"]  # a calculator answer costs one unit
    refused = script.get(f"{CALCULATOR}?ranks=64")
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    # Everyone else is served as before.
    other = client_at(app, "198.51.100.9")
    assert other.get(f"{CALCULATOR}?ranks=64").status_code == 200
    # The budget refills at its rate: one second buys API_RATE_PER_S more answers.
    limits.clock.now += 1
    assert hammer(script, f"{CALCULATOR}?ranks=64") == int(app.config["API_RATE_PER_S"])


def test_an_address_in_the_class_networks_gets_the_class_budget():
    app = create_app(
        {
            "TESTING": True,
            "API_BURST": 20,
            "CLASS_BURST": 300,
            "CLASS_NETWORKS": "10.0.0.0/8, 2001:db8::/32",
        }
    )
    app.extensions["work_limits"].clock = FrozenClock()

    def budget(address: str) -> int:
        return hammer(client_at(app, address), "/api/collectives")

    assert budget("10.1.2.3") == 300
    assert budget("2001:db8::42") == 300
    assert budget("192.0.2.1") == 20


def test_a_bad_class_networks_setting_stops_the_app_naming_it():
    with pytest.raises(ValueError, match="CLASS_NETWORKS.*'10.0.0.300/8'"):
        create_app({"TESTING": True, "CLASS_NETWORKS": "10.0.0.0/8 10.0.0.300/8"})


def test_a_large_simulation_costs_more_than_a_small_one():
    app = create_app({"TESTING": True, "API_BURST": 100})
    app.extensions["work_limits"].clock = FrozenClock()
    client = client_at(app, "192.0.2.5")
    large = {"collective": "allreduce", "algorithm": "ring", "ranks": 32, "elements": 2048}
    assert client.post("/api/simulate", json=large).status_code == 200
    again = client.post("/api/simulate", json=large)  # 65,536 cells: 65 units, 35 are left
    assert again.status_code == 429
    assert "this request 65" in again.get_json()["error"]
    small = {"collective": "allreduce", "algorithm": "ring", "ranks": 8, "elements": 64}
    codes = [client.post("/api/simulate", json=small).status_code for _ in range(40)]
    assert codes == [200] * 35 + [429] * 5  # 512 cells: one unit each


def test_addresses_in_one_ipv6_64_share_a_budget():
    app = create_app({"TESTING": True, "API_BURST": 10})
    app.extensions["work_limits"].clock = FrozenClock()
    codes = [
        client_at(app, f"2001:db8:1:2::{i:x}").get("/api/collectives").status_code
        for i in range(12)
    ]
    assert codes == [200] * 10 + [429] * 2


def test_buckets_keep_a_bounded_number_of_clients():
    clock = FrozenClock()
    buckets = TokenBuckets("things", rate_per_s=1, burst=5, clock=clock, max_keys=100)
    for i in range(5_000):
        buckets.take(f"client-{i}")
    assert len(buckets) <= 100


def test_a_calculator_page_costs_its_calculators_too():
    app = create_app({"TESTING": True, "API_BURST": 20})
    app.extensions["work_limits"].clock = FrozenClock()
    client = client_at(app, "192.0.2.6")
    assert client.get("/calculators").status_code == 200  # the page and every calculator
    assert client.get("/embed/calc/crossover").status_code == 200  # a page and one answer
    assert hammer(client, "/api/collectives") == 20 - (1 + len(CALCULATORS)) - 2
