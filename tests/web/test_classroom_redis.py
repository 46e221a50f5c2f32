"""One class served by two app instances that share a real Redis (MESSAGE_QUEUE).

Each app has its own python-socketio server, Redis queue manager and classroom process id, and
is served on its own port by a real threaded server; the clients are python-socketio clients
over websockets. Flask-SocketIO's test client refuses a message queue, hence real servers. Both
apps live in this one test process: a class across two operating-system processes, and one of
them killed mid-class, is tests/web/test_scale_out.py's.
"""

from __future__ import annotations

import functools
import logging
import threading
import time

import pytest
import redis
import socketio as sio

from app import create_app
from app.quiz import current_bank
from app.web.extensions import socketio as flask_socketio
from tests.conftest import TEST_CONFIG, LiveServer

NS = "/class"
EVENTS = ("room_state", "room_members", "poll", "poll_tally", "poll_result", "room_ended")
STATE = {
    "collective": "allreduce",
    "algorithm": "ring",
    "ranks": 4,
    "elements": 16,
    "step": 0,
    "playing": True,
    "speed": 2,
}
SINGLE = next(q.id for q in current_bank().questions if q.kind == "single")
WAIT_S = 10
RETIRED = logging.getLogger("tests.retired-message-queue")
RETIRED.disabled = True


class Client:
    """A python-socketio client on `/class` that records every classroom event it gets."""

    def __init__(self, url: str) -> None:
        self.client = sio.Client(reconnection=False)
        self.got: list[tuple[str, dict]] = []
        self.arrived = threading.Condition()
        for event in EVENTS:
            self.client.on(event, self._recorder(event), namespace=NS)
        self.client.connect(url, namespaces=[NS], transports=["websocket"], wait_timeout=5)

    def _recorder(self, event: str):
        def record(payload: dict) -> None:
            with self.arrived:
                self.got.append((event, payload))
                self.arrived.notify_all()

        return record

    def call(self, event: str, payload: dict) -> dict:
        return self.client.call(event, payload, namespace=NS, timeout=WAIT_S)

    def wait_for(self, event: str, count: int = 1) -> list[dict]:
        """Wait until `count` `event`s have arrived; return their payloads."""
        deadline = time.monotonic() + WAIT_S
        with self.arrived:
            while len(self.of(event)) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"{count} {event} never arrived; got {self.got}"
                self.arrived.wait(left)
            return self.of(event)

    def of(self, event: str) -> list[dict]:
        return [p for n, p in self.got if n == event]

    def close(self) -> None:
        ws = getattr(self.client.eio, "ws", None)
        if ws is not None:  # the test server sends no close frame back: do not wait 3 s for it
            ws.close = functools.partial(ws.close, timeout=0.05)
        self.client.disconnect()


@pytest.fixture
def two_apps(redis_url):
    """Two apps on one Redis, each served on its own port; yields their URLs."""
    config = {**TEST_CONFIG, "MESSAGE_QUEUE": redis_url, "SECRET_KEY": "one key for both"}
    apps, managers = [], []
    for _ in range(2):
        apps.append(create_app(config))
        managers.append(flask_socketio.server.manager)  # this app's own queue manager
    servers = [LiveServer(app).__enter__() for app in apps]
    yield [s.url for s in servers], apps
    for s in servers:
        s.__exit__(None, None, None)
    for manager in managers:
        # The queue's listener thread cannot be stopped; it outlives the test's Redis and then
        # logs, forever, that it cannot reach it. Those lines are about no test.
        manager.logger = RETIRED


def wait_subscribed(redis_url: str, listeners: int) -> None:
    """Wait until both apps' queue managers listen on Socket.IO's channel."""
    r = redis.Redis.from_url(redis_url)
    deadline = time.monotonic() + WAIT_S
    while r.pubsub_numsub("flask-socketio")[0][1] < listeners:
        assert time.monotonic() < deadline, "the apps never subscribed to the message queue"
        time.sleep(0.01)


def test_a_class_split_over_two_apps_stays_in_step(two_apps, redis_url):
    (url_a, url_b), (app_a, app_b) = two_apps
    assert app_a.extensions["classroom"].process != app_b.extensions["classroom"].process
    teacher = Client(url_a)
    students = [Client(url_b), Client(url_b), Client(url_a)]
    clients = [teacher, *students]
    try:
        wait_subscribed(redis_url, 2)
        created = teacher.call("room_create", {})
        code, token = created["code"], created["teacher_token"]
        assert teacher.call("room_join", {"code": code, "teacher_token": token})["ok"]
        for i, s in enumerate(students):
            ack = s.call("room_join", {"code": code, "name": f"Student {i}"})
            assert ack["role"] == "student" and ack["members"] == i + 1, ack
        # Joins on app b reach the teacher on app a (through Redis: maybe after a's own).
        counts = [p["count"] for p in teacher.wait_for("room_members", 4)]
        assert sorted(counts) == [0, 1, 2, 3]

        for step in range(5):
            ack = teacher.call("room_drive", {"code": code, "teacher_token": token,
                                              "state": {**STATE, "step": step}})  # fmt: skip
            assert ack == {"ok": True, "seq": step + 1}
        for c in clients:
            states = c.wait_for("room_state", 5)
            assert [s["seq"] for s in states] == [1, 2, 3, 4, 5]
            assert [s["state"]["step"] for s in states] == [0, 1, 2, 3, 4]

        second = Client(url_b)  # a second teacher device, on the other app
        clients.append(second)
        assert second.call("room_join", {"code": code, "teacher_token": token})["ok"]
        ack = second.call("room_drive", {"code": code, "teacher_token": token, "state": STATE})
        assert ack == {"ok": True, "seq": 6}  # seq grows across processes
        late = Client(url_a)
        clients.append(late)
        landing = late.call("room_join", {"code": code})
        assert (landing["seq"], landing["state"]["step"]) == (6, 0)

        poll_id = teacher.call("poll_open", {"code": code, "teacher_token": token,
                                             "question_id": SINGLE})["poll_id"]  # fmt: skip
        question = students[0].wait_for("poll")[0]["question"]
        assert all(c.wait_for("poll")[0]["question"] == question for c in clients)
        ids = [o["id"] for o in question["options"]]
        for s, choice in zip([*students, late], [ids[0], ids[1], ids[1], ids[0]], strict=True):
            answer = {"code": code, "poll_id": poll_id, "answer": choice}
            assert s.call("poll_answer", answer) == {"ok": True}
        for t in (teacher, second):  # answers on both apps, tallied on both
            tally = max(t.wait_for("poll_tally", 4), key=lambda p: p["seq"])  # the newest
            assert tally["counts"] == {ids[0]: 2, ids[1]: 2} and tally["answered"] == 4
            assert tally["members"] == 4
        assert all(s.of("poll_tally") == [] for s in (*students, late))

        reveal = {"code": code, "teacher_token": token, "poll_id": poll_id}
        assert second.call("poll_reveal", reveal) == {"ok": True}
        results = [c.wait_for("poll_result")[0] for c in clients]
        assert all(r == results[0] for r in results)
        assert results[0]["counts"] == {ids[0]: 2, ids[1]: 2}

        assert teacher.call("room_end", {"code": code, "teacher_token": token}) == {"ok": True}
        assert all(c.wait_for("room_ended") == [{"code": code}] for c in clients)
        refused = Client(url_b)
        clients.append(refused)
        assert refused.call("room_join", {"code": code})["error"].startswith("code: no room")
    finally:
        for c in clients:
            c.close()


def test_a_student_leaving_on_one_app_updates_the_teacher_on_the_other(two_apps, redis_url):
    (url_a, url_b), _ = two_apps
    teacher, student = Client(url_a), Client(url_b)
    try:
        wait_subscribed(redis_url, 2)
        created = teacher.call("room_create", {})
        code = created["code"]
        teacher.call("room_join", {"code": code, "teacher_token": created["teacher_token"]})
        student.call("room_join", {"code": code})
        assert teacher.wait_for("room_members", 2)[-1] == {"count": 1}
        student.close()
        assert teacher.wait_for("room_members", 3)[-1] == {"count": 0}
    finally:
        teacher.close()
        student.close()
