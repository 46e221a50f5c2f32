"""Several processes, one app: real `python -m app --message-queue` processes and a real Redis.

Two processes (A and B) on free loopback ports share the session's redis-server and one
SECRET_KEY, each with its own instance folder, so nothing but the environment's key and the
queue ties them together. What a user would notice: a quiz question drawn on one process is
graded on the other; a mistyped or stopped Redis stops the start with one line; the lab's own
streams do not cross the queue.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import pytest
import redis
import requests
import socketio

from app.web import message_queue
from tests.web.test_classroom_redis import SINGLE, STATE, Client, wait_subscribed
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
def cluster(redis_server, tmp_path_factory):
    """Processes A, B and C (C is killed mid-class): one queue, one key, three instance folders.

    Each process subscribes to the queue when its first client connects; a client on each
    first, so that no test's broadcast races a subscription.
    """
    folders = [tmp_path_factory.mktemp(name) for name in ("a", "b", "c")]
    with running_cluster(redis_server.url, folders) as processes:
        yield processes


@contextmanager
def running_cluster(queue_url: str, folders) -> Iterator[list[ProductionServer]]:
    """A process per instance folder on one queue, each subscribed before the first test."""
    processes = together(lambda folder: lab_process(queue_url, folder), folders)
    try:
        greeters = [Client(p.url) for p in processes]
        wait_subscribed(queue_url, len(processes))
        for g in greeters:
            g.close()
        yield processes
    finally:
        stop(processes)


@pytest.fixture(scope="module")
def pair(cluster):
    return cluster[:2]


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
        # The client runs each handler on a thread of its own: sim_done may be recorded first.
        deadline = time.monotonic() + 5
        while len(steps) < 14 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        client.disconnect()
    assert sorted(steps) == list(range(14)) and done[0]["verified"] is True
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


# -- a class over two processes ------------------------------------------------------------------


def a_room(teacher: Client) -> dict:
    """Create a room with `teacher` and join it as its teacher; return code and token."""
    created = teacher.call("room_create", {})
    credentials = {"code": created["code"], "teacher_token": created["teacher_token"]}
    assert teacher.call("room_join", credentials)["role"] == "teacher"
    return credentials


def drive(teacher: Client, room: dict, step: int) -> int:
    ack = teacher.call("room_drive", {**room, "state": {**STATE, "step": step}})
    assert ack["ok"], ack
    return ack["seq"]


def test_a_teacher_on_one_process_and_students_on_the_other_stay_in_step(pair):
    a, b = pair
    teacher = Client(a.url)
    students = [Client(b.url) for _ in range(3)]
    try:
        room = a_room(teacher)
        for s in students:
            assert s.call("room_join", {"code": room["code"]})["role"] == "student"
        assert teacher.wait_for("room_members", 4)[-1] == {"count": 3}  # joins made on B
        seqs = [drive(teacher, room, step) for step in range(6)]
        assert seqs == sorted(seqs) and len(set(seqs)) == 6
        for s in students:
            got = s.wait_for("room_state", 6)
            assert [p["seq"] for p in got] == seqs
            assert [p["state"]["step"] for p in got] == list(range(6))
            assert got[-1]["state"] == teacher.of("room_state")[-1]["state"]
    finally:
        for c in (teacher, *students):
            c.close()


def test_a_poll_tallies_answers_from_both_processes(pair):
    a, b = pair
    teacher = Client(a.url)
    students = [Client(a.url), Client(b.url), Client(b.url), Client(a.url)]
    try:
        room = a_room(teacher)
        for s in students:
            s.call("room_join", {"code": room["code"]})
        drive(teacher, room, 0)
        opened = teacher.call("poll_open", {**room, "question_id": SINGLE})
        ids = [o["id"] for o in students[1].wait_for("poll")[0]["question"]["options"]]
        choices = [ids[0], ids[1], ids[1], ids[1]]
        for s, choice in zip(students, choices, strict=True):
            answer = {"code": room["code"], "poll_id": opened["poll_id"], "answer": choice}
            assert s.call("poll_answer", answer) == {"ok": True}
        newest = max(teacher.wait_for("poll_tally", 4), key=lambda t: t["seq"])
        assert newest["counts"] == {ids[0]: 1, ids[1]: 3} and newest["answered"] == 4
        assert teacher.call("poll_reveal", {**room, "poll_id": opened["poll_id"]})["ok"]
        results = [s.wait_for("poll_result")[0] for s in students]
        assert all(r["counts"] == {ids[0]: 1, ids[1]: 3} for r in results)
    finally:
        for c in (teacher, *students):
            c.close()


def test_a_process_killed_mid_class_loses_no_room(cluster):
    """Students on C, which dies: they rejoin on A and B with their member_id and catch up."""
    a, b, c = cluster
    teacher, on_b = Client(a.url), Client(b.url)
    on_c = [Client(c.url), Client(c.url)]
    clients = [teacher, on_b, *on_c]
    try:
        room = a_room(teacher)
        members = [s.call("room_join", {"code": room["code"]})["member_id"] for s in on_c]
        on_b.call("room_join", {"code": room["code"]})
        before = drive(teacher, room, 3)
        poll_id = teacher.call("poll_open", {**room, "question_id": SINGLE})["poll_id"]
        ids = [o["id"] for o in on_c[0].wait_for("poll")[0]["question"]["options"]]
        answer = {"code": room["code"], "poll_id": poll_id, "answer": ids[0]}
        assert on_c[0].call("poll_answer", answer) == {"ok": True}

        os.killpg(c.process.pid, signal.SIGKILL)  # gunicorn's master and its worker, at once
        c.process.wait(10)
        back = [Client(a.url), Client(b.url)]  # as a browser reconnects, behind the proxy
        clients += back
        acks = [
            s.call("room_join", {"code": room["code"], "member_id": m})
            for s, m in zip(back, members, strict=True)
        ]
        for ack, member in zip(acks, members, strict=True):
            assert ack["ok"] and ack["member_id"] == member and ack["role"] == "student"
            assert ack["state"]["step"] == 3 and ack["seq"] == before
            assert ack["poll"]["poll_id"] == poll_id
        assert acks[0]["poll"]["my_answer"] == ids[0]  # the answer made on C is kept
        assert acks[1]["poll"]["my_answer"] is None
        assert acks[1]["members"] == 3  # the same two members, counted once, and B's

        following = [(s, len(s.of("room_state")) + 1) for s in (*back, on_b)]
        seq = drive(teacher, room, 4)
        for s, count in following:
            newest = s.wait_for("room_state", count)[-1]
            assert newest == {"state": {**acks[0]["state"], "step": 4}, "seq": seq}
        changed = {**answer, "answer": ids[1]}
        assert back[0].call("poll_answer", changed) == {"ok": True}  # replaces, not adds
        assert back[1].call("poll_answer", changed) == {"ok": True}
        newest = max(teacher.wait_for("poll_tally", 3), key=lambda t: t["seq"])
        assert newest["answered"] == 2 and newest["counts"] == {ids[1]: 2}
    finally:
        for client in clients:
            client.close()
