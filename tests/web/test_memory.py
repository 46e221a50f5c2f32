"""The heap is trimmed when the lab goes idle, never while a run is live, at most once a second."""

from __future__ import annotations

import ctypes
import platform
import threading
import time

import pytest

from app import create_app
from app.web.extensions import socketio
from app.web.guard.admission import Admission
from app.web.live import memory
from app.web.live.runs import Run, RunRegistry
from tests.conftest import TEST_CONFIG
from tests.web.test_sockets import RING8, SLOW, wait_for, wait_idle


class FakeClock:
    """A clock that only moves when the trimmer sleeps."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def trimmer(idle: bool | list[bool] = True, **kwargs) -> tuple[memory.IdleTrimmer, list, FakeClock]:
    clock = FakeClock()
    calls: list[float] = []
    states = [idle] if isinstance(idle, bool) else list(idle)

    def is_idle() -> bool:
        return states.pop(0) if len(states) > 1 else states[0]

    t = memory.IdleTrimmer(
        is_idle,
        trim=lambda: calls.append(clock.now),
        clock=clock,
        sleep=clock.sleep,
        **kwargs,
    )
    return t, calls, clock


def test_the_lab_going_idle_trims_at_once():
    t, calls, clock = trimmer()
    t.on_idle()
    assert calls == [100.0] and clock.slept == [] and t.trims == 1


def test_a_second_idle_within_the_interval_waits_out_the_interval_then_trims():
    t, calls, clock = trimmer(min_interval_s=1.0)
    t.on_idle()
    clock.now += 0.25
    t.on_idle()
    assert clock.slept == [pytest.approx(0.75)]
    assert calls == [100.0, pytest.approx(101.0)]


def test_a_wait_runs_in_the_background_so_the_caller_returns_at_once():
    jobs = []
    t, calls, clock = trimmer(min_interval_s=1.0, background=jobs.append)
    t.on_idle()  # no wait due: trims in place
    clock.now += 0.25
    t.on_idle()  # a wait is due: handed to the background, the caller does not sleep
    assert clock.slept == [] and calls == [100.0] and len(jobs) == 1
    t.on_idle()  # while that one waits, another idle is folded into it
    assert len(jobs) == 1
    jobs[0]()
    assert clock.slept == [pytest.approx(0.75)] and calls == [100.0, pytest.approx(101.0)]


def test_an_http_simulation_never_waits_out_the_trim_interval_on_its_own_thread(app, client):
    """The second simulation ends inside the trim interval of the first: the wait happens on
    another thread, so the response is not held back (it was, a second each, before)."""
    trimmer_ = app.extensions["lab_trimmer"]
    sleepers: list[threading.Thread] = []
    trimmer_.sleep = lambda seconds: sleepers.append(threading.current_thread())
    trimmer_.trim = lambda: None
    trimmer_.min_interval_s = 60.0
    for _ in range(2):
        assert client.post("/api/simulate", json=RING8).status_code == 200
    wait_trims(sleepers)
    assert sleepers and threading.current_thread() not in sleepers


def test_no_trim_when_a_run_started_before_the_trim_was_due():
    t, calls, clock = trimmer(idle=False)
    t.on_idle()
    assert calls == [] and t.trims == 0


def test_without_malloc_trim_the_trimmer_does_nothing():
    asked = []
    t = memory.IdleTrimmer(lambda: asked.append(1) or True, trim=None)
    t.on_idle()
    assert not t.available and asked == [] and t.trims == 0


@pytest.mark.parametrize(
    "cdll",
    [
        pytest.param(lambda name: (_ for _ in ()).throw(OSError("no libc")), id="no libc"),
        pytest.param(lambda name: object(), id="libc without malloc_trim (macOS, musl)"),
    ],
)
def test_loading_malloc_trim_where_libc_has_none_gives_none(monkeypatch, cdll):
    monkeypatch.setattr(ctypes, "CDLL", cdll)
    assert memory._load_malloc_trim() is None


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc only")
def test_on_glibc_malloc_trim_is_found_and_callable():
    assert memory.malloc_trim is not None
    assert memory.malloc_trim() in (0, 1)


def test_a_failing_trim_is_logged_and_does_not_raise(caplog):
    t = memory.IdleTrimmer(lambda: True, trim=lambda: 1 / 0)
    t.on_idle()
    assert "malloc_trim failed" in caplog.text and not t._pending


def test_concurrent_idles_trim_at_most_once_per_interval_and_the_last_one_is_not_lost():
    stamps: list[float] = []
    t = memory.IdleTrimmer(
        lambda: True, trim=lambda: stamps.append(time.monotonic()), min_interval_s=0.2
    )
    threads = [threading.Thread(target=t.on_idle) for _ in range(20)]
    began = time.monotonic()
    for th in threads:
        th.start()
    for th in threads:
        th.join(5)
    t.on_idle()  # the lab empties again right after: deferred, not dropped
    took = time.monotonic() - began
    # Once per 0.2 s at most, however slowly a loaded machine starts the 20 threads (the
    # count once assumed they all started within 0.4 s), and the deferred one is not lost.
    assert 2 <= len(stamps) <= 2 + took / 0.2
    assert all(b - a >= 0.19 for a, b in zip(stamps, stamps[1:], strict=False))
    assert not t._pending


def test_admission_calls_on_idle_only_when_its_last_run_ends():
    calls = []
    admitted = Admission(max_runs=4)
    admitted.on_idle = lambda: calls.append(admitted.usage()["runs"])
    runs = RunRegistry(max_active=4, admission=admitted)
    a, b = runs.start("a"), runs.start("b")
    runs.finish(a)
    assert calls == []
    runs.finish(b)
    assert calls == [0]
    runs.finish(b)  # finishing twice is not a second emptying
    assert calls == [0]
    assert admitted.idle()


def test_admission_does_not_call_on_idle_for_a_run_it_never_had():
    calls = []
    admitted = Admission(max_runs=4)
    admitted.on_idle = lambda: calls.append(1)
    RunRegistry(max_active=4, admission=admitted).finish(Run("stranger"))
    assert calls == []


def record_trims(app) -> list[list[str]]:
    """Replace the app's trim with one that records which runs were live when it ran."""
    seen: list[list[str]] = []
    trim = app.extensions["lab_trimmer"]
    trim.trim = lambda: seen.append(app.extensions["lab_runs"].running())
    trim.min_interval_s = 0.0
    return seen


def wait_trims(seen: list, timeout: float = 5.0) -> list:
    """Wait until a trim was recorded (it runs on the finishing thread, after wait_idle)."""
    deadline = time.monotonic() + timeout
    while not seen and time.monotonic() < deadline:
        time.sleep(0.01)
    return seen


def test_a_finished_run_trims_the_heap_with_no_run_live(app, socket_client):
    seen = record_trims(app)
    socket_client.emit("simulate", RING8, callback=True)
    wait_idle(app)
    assert wait_trims(seen) == [[]]


def test_an_http_simulation_trims_the_heap_once_it_has_answered(app, client):
    seen = record_trims(app)
    assert client.post("/api/simulate", json=RING8).status_code == 200
    assert wait_trims(seen) == [[]]


def test_no_trim_while_a_run_streams_and_one_once_it_is_cancelled(app, socket_client):
    seen = record_trims(app)
    ack = socket_client.emit("simulate", SLOW, callback=True)
    wait_for(socket_client, "sim_step")
    time.sleep(0.2)
    assert seen == [] and app.extensions["lab_runs"].running() == [ack["run_id"]]
    # A cancelled run emits nothing more and gives its admission ticket back at once, so the
    # trim may run while its task is still winding down.
    socket_client.emit("cancel", {}, callback=True)
    wait_idle(app)
    assert len(wait_trims(seen)) == 1


def test_the_lab_streams_as_usual_without_malloc_trim(monkeypatch, client):
    monkeypatch.setattr(memory, "malloc_trim", None)
    app = create_app(TEST_CONFIG)
    assert not app.extensions["lab_trimmer"].available
    sc = socketio.test_client(app, flask_test_client=app.test_client())
    try:
        ack = sc.emit("simulate", RING8, callback=True)
        wait_idle(app)
        events = sc.get_received()
        assert ack["ok"] and [e["name"] for e in events][-1] == "sim_done"
    finally:
        sc.disconnect()


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc only")
def test_on_glibc_the_mmap_threshold_is_fixed(monkeypatch):
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    assert memory.fix_mmap_threshold() is True


def test_an_explicit_mmap_threshold_in_the_environment_wins(monkeypatch):
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "65536")
    called = []
    monkeypatch.setattr(memory, "_libc_function", lambda name: called.append(name))
    assert memory.fix_mmap_threshold() is False and called == []


def test_without_mallopt_the_threshold_is_left_alone(monkeypatch):
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    monkeypatch.setattr(ctypes, "CDLL", lambda name: object())
    assert memory.fix_mmap_threshold() is False


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc only")
def test_on_glibc_the_heaps_are_limited(monkeypatch):
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    assert memory.limit_arenas() is True


def test_an_explicit_arena_max_in_the_environment_wins(monkeypatch):
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    called = []
    monkeypatch.setattr(memory, "_libc_function", lambda name: called.append(name))
    assert memory.limit_arenas() is False and called == []
