"""Several processes, one app: real `python -m app --message-queue` processes and a real Redis.

Two processes (A and B) on free loopback ports share the session's redis-server and one
SECRET_KEY, each with its own instance folder, so nothing but the environment's key and the
queue ties them together. What a user would notice: a quiz question drawn on one process is
graded on the other; a mistyped or stopped Redis stops the start with one line; the lab's own
streams do not cross the queue.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis
import requests
import socketio

from app.web import message_queue
from tests.web.wire import ROOT, ProductionServer, free_port

pytestmark = pytest.mark.server

SECRET = "scale-out-test-key-" + "7" * 40
RING8 = {"collective": "allreduce", "algorithm": "ring", "ranks": 8, "elements": 64}


def lab_process(queue_url: str, instance, **settings) -> ProductionServer:
    """`python -m app --message-queue URL` with its own instance folder and the shared key."""
    return ProductionServer(
        {"SECRET_KEY": SECRET, "INSTANCE_PATH": str(instance), **settings},
        args=["--message-queue", queue_url],
    )


@pytest.fixture(scope="module")
def pair(redis_server, tmp_path_factory):
    """Processes A and B, one queue, one key, two instance folders."""
    folders = [tmp_path_factory.mktemp(name) for name in ("a", "b")]
    processes = together(lambda folder: lab_process(redis_server.url, folder), folders)
    try:
        yield processes
    finally:
        stop(processes)


def together(start, items) -> list[ProductionServer]:
    """Start a process per item at once (each takes seconds); none is left behind on a failure."""
    with ThreadPoolExecutor(len(items)) as pool:
        futures = [pool.submit(start, item) for item in items]
    started = [f.result() for f in futures if f.exception() is None]
    if len(started) < len(futures):
        stop(started)
        next(f.result() for f in futures if f.exception() is not None)  # raises it
    return started


def stop(processes: list[ProductionServer]) -> None:
    with ThreadPoolExecutor(max(1, len(processes))) as pool:
        list(pool.map(lambda p: p.__exit__(None, None, None), processes))


def test_a_quiz_question_drawn_on_one_process_is_graded_on_the_other(pair):
    a, b = pair
    drawn = requests.get(f"{a.url}/api/quiz/questions?ids=num-ring-allreduce-time", timeout=10)
    shown = drawn.json()["questions"][0]
    answer = {"id": shown["id"], "params": shown["params"], "token": shown["token"], "answer": 1}
    graded = requests.post(f"{b.url}/api/quiz/answer", json=answer, timeout=10)
    assert graded.status_code == 200, graded.text
    assert graded.json()["correct"] in (True, False)
    forged = {**answer, "token": "x" * len(shown["token"])}
    refused = requests.post(f"{b.url}/api/quiz/answer", json=forged, timeout=10)
    assert refused.status_code == 400, "a token the shared key did not sign must be refused"


def test_a_lab_run_streams_to_its_client_without_crossing_the_queue(pair, redis_server):
    a, _ = pair
    stats = redis.Redis.from_url(redis_server.url)
    published_before = _publishes(stats)
    client = socketio.Client(reconnection=False)
    steps: list[int] = []
    done: list[dict] = []
    ended = threading.Event()
    client.on("sim_step", lambda p: steps.append(p["index"]))
    client.on("sim_done", lambda p: (done.append(p), ended.set()))
    client.connect(a.url, transports=["websocket"], wait_timeout=10)
    try:
        assert client.call("simulate", {**RING8, "interval_ms": 0}, timeout=10)["ok"] is True
        assert ended.wait(20), f"the run did not end; steps {steps}"
    finally:
        client.disconnect()
    assert steps == list(range(14)) and done[0]["verified"] is True
    assert _publishes(stats) == published_before  # 15 events, none through Redis


def _publishes(client: redis.Redis) -> int:
    return client.info("commandstats").get("cmdstat_publish", {}).get("calls", 0)


@pytest.mark.parametrize(
    ("url", "says"),
    [
        (
            "redis://:hunter2@127.0.0.1:{port}/0",
            "cannot reach the message queue redis://:***@127.0.0.1:{port}/0 (",
        ),
        ("http://127.0.0.1:{port}/", "message queue 'http://127.0.0.1:{port}/' is not a Redis URL"),
    ],
)
def test_an_unreachable_message_queue_stops_the_start_with_one_line(url, says):
    port = free_port()  # nothing listens there
    started = subprocess.run(
        [sys.executable, "-m", "app", "--port", str(free_port()), "--message-queue",
         url.format(port=port)],
        cwd=ROOT, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert started.returncode == 69  # EX_UNAVAILABLE
    lines = started.stderr.strip().splitlines()
    assert len(lines) == 1, started.stderr
    assert lines[0].startswith("Collective Lab: " + says.format(port=port)), lines[0]
    assert "hunter2" not in started.stderr + started.stdout
    assert "Collective Lab on" not in started.stdout  # it never served


def test_without_a_secret_key_the_start_warns_to_set_one_across_machines(
    redis_url, monkeypatch, capsys
):
    from app.__main__ import check_message_queue

    monkeypatch.setenv("COLLECTIVE_LAB_MESSAGE_QUEUE", redis_url)
    monkeypatch.delenv("COLLECTIVE_LAB_SECRET_KEY", raising=False)
    check_message_queue()
    warned = capsys.readouterr().err.strip().splitlines()
    assert warned == [f"Collective Lab warning: {message_queue.KEY_WARNING}"]
    assert "COLLECTIVE_LAB_SECRET_KEY" in warned[0]
    monkeypatch.setenv("COLLECTIVE_LAB_SECRET_KEY", SECRET)
    check_message_queue()
    assert capsys.readouterr().err == ""
