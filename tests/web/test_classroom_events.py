"""The `/class` namespace through Flask-SocketIO's test clients: a teacher and three students.

A whole class (create, join, drive, a late joiner, a poll answered, changed, tallied and
revealed, the end); every teacher event forged by a student; bad codes, tokens, names and
state fields named; the member cap; the rate limits; leaving and disconnecting. The same class
across two app instances sharing a real Redis is in test_classroom_redis.py.
"""

from __future__ import annotations

import threading

import pytest

from app import create_app
from app.quiz import current_bank
from app.web.extensions import socketio
from tests.classroom.test_rooms import RING4
from tests.conftest import TEST_CONFIG

NS = "/class"
STATE = {
    "collective": "allreduce",
    "algorithm": "ring",
    "ranks": 4,
    "elements": 16,
    "seed": 0,
    "interval_ms": 0,
    "step": 0,
    "playing": False,
    "speed": 1,
}
NORMAL = {**RING4, "step": 0}  # STATE as the room keeps it and sends it
SINGLE = next(q.id for q in current_bank().questions if q.kind == "single")


class Member:
    """One browser tab on `/class`: emit with an ack, read what the server sent it."""

    def __init__(self, app, address: str = "127.0.0.1") -> None:
        flask_client = app.test_client()
        flask_client.environ_base["REMOTE_ADDR"] = address
        self.client = socketio.test_client(app, namespace=NS, flask_test_client=flask_client)

    def emit(self, event: str, *args) -> dict:
        return self.client.emit(event, *args, callback=True, namespace=NS)

    def events(self) -> list[tuple[str, dict]]:
        return [(e["name"], e["args"][0]) for e in self.client.get_received(NS)]

    def close(self) -> None:
        if self.client.is_connected(NS):
            self.client.disconnect(namespace=NS)


class Class:
    """An app with a room: its teacher (joined) and what the test adds."""

    def __init__(self, **config) -> None:
        self.app = create_app({**TEST_CONFIG, **config})
        self.members: list[Member] = []
        self.teacher = self.member()
        ack = self.teacher.emit("room_create", {})
        assert ack["ok"] is True, ack
        self.code, self.token = ack["code"], ack["teacher_token"]
        joined = self.teacher.emit("room_join", {"code": self.code, "teacher_token": self.token})
        assert joined["role"] == "teacher", joined
        assert self.teacher.events() == [("room_members", {"count": 0})]

    def member(self, address: str = "127.0.0.1") -> Member:
        m = Member(self.app, address)
        self.members.append(m)
        return m

    def student(self, name: str | None = None, **extra) -> tuple[Member, dict]:
        m = self.member()
        ack = m.emit("room_join", {"code": self.code, "name": name, **extra})
        assert ack["ok"] is True and ack["role"] == "student", ack
        return m, ack

    def teach(self, event: str, **payload) -> dict:
        return self.teacher.emit(event, {"code": self.code, "teacher_token": self.token, **payload})

    def drive(self, **state) -> dict:
        return self.teach("room_drive", state={**STATE, **state})

    def answer(self, member: Member, poll_id: str, answer: object) -> dict:
        return member.emit("poll_answer", {"code": self.code, "poll_id": poll_id, "answer": answer})

    def stored(self):
        return self.app.extensions["classroom"].store.room(self.code)

    def close(self) -> None:
        for m in self.members:
            m.close()


@pytest.fixture
def klass():
    c = Class()
    yield c
    c.close()


def names(events) -> list[str]:
    return [n for n, _ in events]


def test_a_whole_class_teacher_and_three_students(klass):
    students = [klass.student(f"Student {i}")[0] for i in range(3)]
    assert klass.teacher.events() == [("room_members", {"count": n}) for n in (1, 2, 3)]
    assert all(s.events() == [] for s in students)  # a join reaches only the teachers

    seqs = [klass.drive(step=k)["seq"] for k in range(3)]
    assert seqs == [1, 2, 3]
    for m in (*students, klass.teacher):
        assert m.events() == [("room_state", {"state": {**NORMAL, "step": k}, "seq": k + 1})
                              for k in range(3)]  # fmt: skip

    opened = klass.teach("poll_open", question_id=SINGLE)
    poll_id = opened["poll_id"]
    polls = [s.events() for s in (*students, klass.teacher)]
    assert all(p == polls[0] and names(p) == ["poll"] for p in polls)  # one draw for all
    question = polls[0][0][1]["question"]
    assert polls[0][0][1]["poll_id"] == poll_id
    assert not {"correct", "why", "explanation_html"} & set(question)
    assert all("correct" not in o and "why_html" not in o for o in question["options"])

    late, landing = klass.student("Late")
    assert (landing["state"], landing["seq"]) == ({**NORMAL, "step": 2}, 3)
    assert landing["poll"] == {"poll_id": poll_id, "question": question, "my_answer": None}
    assert landing["members"] == 4 and len(landing["member_id"]) >= 8
    klass.teacher.events()

    ids = [o["id"] for o in question["options"]]
    for s, choice in zip(students, (ids[0], ids[0], ids[1]), strict=True):
        assert klass.answer(s, poll_id, choice) == {"ok": True}
    # A change of mind replaces the first answer.
    assert klass.answer(students[0], poll_id, ids[1]) == {"ok": True}
    tallies = [p for n, p in klass.teacher.events() if n == "poll_tally"]
    assert [(t["answered"], t["seq"]) for t in tallies] == [(1, 1), (2, 2), (3, 3), (3, 4)]
    assert tallies[-1]["counts"] == {ids[0]: 1, ids[1]: 2}
    assert tallies[-1]["members"] == 4 and tallies[-1]["poll_id"] == poll_id
    assert all(m.events() == [] for m in (*students, late))  # answers reach only the teachers

    assert klass.teach("poll_reveal", poll_id=poll_id) == {"ok": True}
    results = [m.events() for m in (*students, late, klass.teacher)]
    assert all(names(r) == ["poll_result"] and r == results[0] for r in results)
    result = results[0][0][1]
    assert result["correct"] in ids and result["why"]
    assert result["counts"] == {ids[0]: 1, ids[1]: 2} and result["answered"] == 3
    assert result["right"] == sum(n for i, n in result["counts"].items() if i == result["correct"])
    closed = f"poll_id: poll {poll_id} was revealed: answers are closed"
    assert klass.answer(late, poll_id, ids[0]) == {"ok": False, "error": closed}

    assert klass.teach("room_end") == {"ok": True}
    for m in (*students, late, klass.teacher):
        assert m.events() == [("room_ended", {"code": klass.code})]
    again = klass.member().emit("room_join", {"code": klass.code})
    assert again == {"ok": False, "error": f"code: no room {klass.code} (it may have ended)"}


def test_a_reconnecting_student_is_the_same_member(klass):
    first, ack = klass.student("Ada")
    klass.teach("poll_open", question_id=SINGLE)
    poll = first.events()[0][1]
    choice = poll["question"]["options"][0]["id"]
    klass.answer(first, poll["poll_id"], choice)
    first.close()  # the connection drops
    again, landing = klass.student("Ada", member_id=ack["member_id"])
    assert landing["member_id"] == ack["member_id"] and landing["members"] == 1
    assert landing["poll"]["my_answer"] == choice
    members = [p["count"] for n, p in klass.teacher.events() if n == "room_members"]
    assert members == [1, 0, 1]


def test_leaving_and_disconnecting_update_the_teachers_count(klass):
    a, _ = klass.student()
    b, _ = klass.student()
    klass.teacher.events()
    assert a.emit("room_leave", {"code": klass.code}) == {"ok": True}
    b.close()
    assert klass.teacher.events() == [("room_members", {"count": n}) for n in (1, 0)]
    klass.drive()
    assert a.events() == []  # a member that left gets no more states
    assert a.emit("room_leave", {"code": klass.code})["error"] == (
        f"code: this connection has not joined room {klass.code}"
    )


def test_a_second_teacher_device_gets_the_tally_too(klass):
    second = klass.member()
    ack = second.emit("room_join", {"code": klass.code, "teacher_token": klass.token})
    assert ack["role"] == "teacher"
    s, _ = klass.student()
    klass.teach("poll_open", question_id=SINGLE)
    poll = s.events()[0][1]
    choice = poll["question"]["options"][0]["id"]
    klass.answer(s, poll["poll_id"], choice)
    assert "poll_tally" in names(second.events())
    answer = klass.answer(second, poll["poll_id"], choice)
    assert answer["error"].startswith("role: only students answer polls")


# -- forged events --------------------------------------------------------------------------------

TEACHER_EVENTS = {
    "room_drive": {"state": STATE},
    "poll_open": {"question_id": SINGLE},
    "poll_reveal": {"poll_id": "p000000000000"},
    "room_end": {},
}


@pytest.mark.parametrize("event", list(TEACHER_EVENTS))
@pytest.mark.parametrize(
    "token", [None, "", "guess", "a" * 500, 42, "other room's"], ids=lambda t: repr(t)[:12]
)
def test_a_students_forged_teacher_event_is_refused_and_changes_nothing(klass, event, token):
    student, _ = klass.student()
    klass.drive(step=1)
    opened = klass.teach("poll_open", question_id=SINGLE)
    for m in klass.members:
        m.events()
    before = klass.stored()
    if token == "other room's":
        token = klass.teacher.emit("room_create", {})["teacher_token"]
    payload = {"code": klass.code, **TEACHER_EVENTS[event]}
    if event == "poll_reveal":
        payload["poll_id"] = opened["poll_id"]
    if token is not None:
        payload["teacher_token"] = token
    ack = student.emit(event, payload)
    assert ack["ok"] is False and ack["error"].startswith("teacher_token: "), ack
    assert klass.stored() == before
    assert all(m.events() == [] for m in klass.members)


# -- bad input, named -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "error"),
    [
        ({"ranks": "8"}, 'state: ranks must be an integer in 1..64; got "8"'),
        ({"collective": "nope"}, "state: collective must be one of"),
        ({"ranks": 1000}, "state: ranks must be an integer in 1..64"),
        ({"step": -1}, "state.step: must be an integer in 0..100000; got -1"),
        ({"step": True}, "state.step: must be an integer"),
        ({"playing": "yes"}, 'state.playing: must be true or false; got "yes"'),
        ({"speed": 3}, "state.speed: must be one of 0.25, 0.5, 1, 2, 4, 8; got 3"),
        ({"zzz": 1}, 'state."zzz": unknown; allowed: collective'),
    ],
)
def test_a_bad_state_field_is_named_and_changes_nothing(klass, state, error):
    before = klass.stored()
    ack = klass.drive(**state)
    assert ack["ok"] is False and ack["error"].startswith(error), ack
    assert klass.stored() == before


def test_a_state_field_left_out_is_named(klass):
    state = {k: v for k, v in STATE.items() if k != "playing"}
    ack = klass.teach("room_drive", state=state)
    assert ack == {"ok": False, "error": "state.playing: missing"}
    assert klass.teach("room_drive", state=[1])["error"].startswith("state: must be an object")


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        ({"code": "ABC"}, "code: not a room code"),
        ({"code": "CCCCCC"}, "code: no room CCCCCC (it may have ended)"),
        ({"code": None}, "code: not a room code"),
        ({"name": "x" * 41}, "name: at most 40 characters (got 41)"),
        ({"name": ["Ada"]}, "name: must be text"),
        ({"name": "\u202egnp.exe"}, "name: letters, digits, spaces and punctuation only"),
        ({"teacher_token": "guess"}, "teacher_token: not this room's teacher"),
        ({"member_id": "../../etc"}, "member_id: must be the id the server gave"),
        ({"zzjunk": 1}, '"zzjunk": unknown field of room_join; allowed: code, name'),
    ],
)
def test_a_bad_join_is_named(klass, payload, error):
    ack = klass.member().emit("room_join", {"code": klass.code, **payload})
    assert ack["ok"] is False and ack["error"].startswith(error), ack
    assert klass.teacher.events() == []  # no member was added


@pytest.mark.parametrize("args", [(), ("ACK3D7",), ([],), ({"code": "x"}, {"extra": 1})])
def test_a_payload_that_is_not_one_object_is_named(klass, args):
    ack = klass.member().client.emit("room_join", *args, callback=True, namespace=NS)
    assert ack["ok"] is False and ack["error"].startswith("payload: room_join takes one object")


def test_an_answer_needs_a_joined_room_and_an_answer(klass):
    outsider = klass.member()
    ack = klass.answer(outsider, "p000000000000", 1)
    assert ack["error"] == f"code: this connection has not joined room {klass.code}"
    s, _ = klass.student()
    assert s.emit("poll_answer", {"code": klass.code, "poll_id": "p000000000000"})["error"] == (
        "answer: missing"
    )


def test_unknown_events_name_the_known_ones(klass):
    ack = klass.teacher.emit("room_drives", {})
    assert ack["ok"] is False and ack["error"].startswith("unknown event 'room_drives'; known")
    assert "room_drive, poll_open" in ack["error"]


# -- the member cap and the rate limits ---------------------------------------------------------


def test_the_member_cap_is_named_and_a_leave_frees_a_place():
    c = Class(CLASS_MAX_MEMBERS=3)  # the teacher's device and two students
    try:
        a, _ = c.student()
        c.student()
        refused = c.member().emit("room_join", {"code": c.code})
        assert refused == {
            "ok": False,
            "error": f"code: room {c.code} is full: at most 3 members (CLASS_MAX_MEMBERS)",
        }
        a.close()
        c.student()
    finally:
        c.close()


def test_teacher_events_are_rate_limited_per_connection():
    c = Class(CLASS_DRIVE_RATE_PER_S=0.001, CLASS_DRIVE_BURST=3)
    try:
        acks = [c.drive(step=k) for k in range(4)]
        assert [a["ok"] for a in acks] == [True, True, True, False]
        assert acks[3]["error"].startswith("too many teacher events: the limit is 0.001 per second")
        assert acks[3]["retry_after_s"] > 0 and c.stored().seq == 3
        # A client-sent event named "disconnect" does not reset the bucket.
        c.teacher.client.emit("disconnect", "x", callback=True, namespace=NS)
        assert c.drive()["ok"] is False
    finally:
        c.close()


def test_answers_are_rate_limited_per_connection():
    c = Class(CLASS_ANSWER_RATE_PER_S=0.001, CLASS_ANSWER_BURST=2)
    try:
        s, _ = c.student()
        poll_id = c.teach("poll_open", question_id=SINGLE)["poll_id"]
        choice = s.events()[0][1]["question"]["options"][0]["id"]
        acks = [c.answer(s, poll_id, choice) for _ in range(3)]
        assert [a["ok"] for a in acks] == [True, True, False]
        assert acks[2]["error"].startswith("too many poll answers")
    finally:
        c.close()


def test_room_creation_is_rate_limited_per_address():
    c = Class(CLASS_CREATE_RATE_PER_S=0.001, CLASS_CREATE_BURST=2)  # the Class made one
    try:
        same_address = c.member("127.0.0.1")
        assert same_address.emit("room_create", {})["ok"] is True
        third = same_address.emit("room_create", {})
        assert third["ok"] is False
        assert third["error"].startswith("too many rooms created from this address")
        assert c.member("192.0.2.7").emit("room_create")["ok"] is True  # another address
    finally:
        c.close()


def test_an_app_after_one_with_a_message_queue_has_no_queue_of_its_own(redis_url):
    from socketio.pubsub_manager import PubSubManager

    queued = create_app({**TEST_CONFIG, "MESSAGE_QUEUE": redis_url})
    plain = create_app(TEST_CONFIG)
    assert not isinstance(socketio.server.manager, PubSubManager)
    assert type(plain.extensions["classroom"].store).__name__ == "MemoryStore"
    assert type(queued.extensions["classroom"].store).__name__ == "RedisStore"


def test_the_first_member_on_a_process_loads_the_bank_before_any_poll():
    """A second process behind Redis once loaded the bank on its first answer: a slow tally."""
    app = create_app(TEST_CONFIG)
    classroom = app.extensions["classroom"]
    loaded = threading.Event()
    real_bank = classroom.bank

    def bank():
        loaded.set()
        return real_bank()

    classroom.bank = bank
    teacher = Member(app)
    try:
        ack = teacher.emit("room_create", {})
        assert not loaded.is_set()  # a room alone is not a class on this process yet
        joined = teacher.emit(
            "room_join", {"code": ack["code"], "teacher_token": ack["teacher_token"]}
        )
        assert joined["ok"] is True, joined
        assert loaded.wait(30), "the bank was not loaded after the first member joined"
    finally:
        teacher.close()


def test_a_lost_store_is_logged_once_and_again_when_it_is_back(caplog):
    """A Redis down for an hour once logged every heartbeat: a line every ten seconds."""
    from app.classroom.store import StoreUnavailable
    from app.web.live.heartbeat import beat

    class Store:
        up = True

        def heartbeat(self):
            if not self.up:
                raise StoreUnavailable("the classroom store (Redis) is unavailable")

    store = Store()
    failing = False
    for up in (True, False, False, False, True, True, False):
        store.up = up
        failing = beat(store, failing)
        assert failing is not up
    said = [r.getMessage() for r in caplog.records if "heartbeat" in r.getMessage()]
    assert len(said) == 3, said
    assert "unavailable" in said[0] and "reachable again" in said[1] and "unavailable" in said[2]
