"""The classroom's rules over both stores: roles by token, names, the cap, drives, end."""

from __future__ import annotations

import pytest

from app.classroom import codes
from app.classroom.checks import ClassError
from app.classroom.rooms import Classroom
from app.classroom.store import Presence
from app.quiz import current_bank

SECRET = "test secret"
RING4 = {
    "collective": "allreduce",
    "algorithm": "ring",
    "ranks": 4,
    "elements": 16,
    "op": "sum",
    "root": 0,
    "ranks_per_node": None,
    "seed": 0,
    "step": 1,
    "playing": False,
    "speed": 1.0,
}


def accept(state):
    """The web layer's gate, for these tests: anything that is a dict."""
    if not isinstance(state, dict):
        raise ClassError("state", "must be an object")
    return state


def classroom(store, max_members: int = 500, process: str | None = None) -> Classroom:
    c = Classroom(
        store,
        bank=current_bank,
        secret=SECRET,
        max_members=max_members,
        idle_expire_s=3600,
        process=process,
    )
    c.heartbeat()
    return c


@pytest.fixture
def lab(store):
    return classroom(store)


@pytest.fixture
def room(lab):
    return lab.create()


def refused(field: str, call, *args) -> str:
    """Call and return the refusal's message, asserting it names `field`."""
    with pytest.raises(ClassError) as e:
        call(*args)
    assert e.value.field == field, str(e.value)
    assert str(e.value).startswith(f"{field}: ")
    return str(e.value)


def test_a_new_room_has_a_fresh_code_and_keeps_only_the_tokens_digest(lab, store):
    code, token = lab.create()
    other, _ = lab.create()
    assert code != other and codes.normalize_code(code) == code
    loaded = store.room(code)
    assert loaded.digest == codes.token_digest(token) and token not in repr(loaded)


def test_the_token_makes_a_teacher_and_its_absence_a_student(lab, room):
    code, token = room
    t = lab.join("t1", code, None, token, None)
    s = lab.join("s1", code.lower(), "Ada", None, None)
    assert (t.role, s.role) == ("teacher", "student")
    assert s.code == code  # typed in lower case, read back
    assert t.member_id != s.member_id and len(s.member_id) >= 16
    assert s.presence == Presence(students=1, teachers=1)


def test_a_wrong_teacher_token_is_refused_not_made_a_student(lab, room):
    code, _ = room
    message = refused("teacher_token", lab.join, "s1", code, None, "guess", None)
    assert message == "teacher_token: not this room's teacher"
    assert lab.presence(code) == Presence(0, 0)


def test_codes_are_checked_and_unknown_rooms_named(lab, room):
    assert "not a room code" in refused("code", lab.join, "s1", "ABC", None, None, None)
    message = refused("code", lab.join, "s1", "CCCCCC", None, None, None)
    assert message == "code: no room CCCCCC (it may have ended)"


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("x" * 41, "name: at most 40 characters (got 41)"),
        ("\u202eevil", "name: letters, digits, spaces and punctuation only"),
        ("a\x00b", "name: letters, digits, spaces and punctuation only"),
        (42, "name: must be text"),
    ],
)
def test_bad_names_are_refused_by_name(lab, room, name, words):
    assert refused("name", lab.join, "s1", room[0], name, None, None).startswith(words)


def test_names_are_trimmed_and_escaped_before_they_are_kept(lab, room, store):
    lab.join("s1", room[0], "  Ada   <b>Lovelace</b>  ", None, "member-ada")
    lab.join("s2", room[0], "y" * 40, None, None)  # exactly the cap is fine
    if hasattr(store, "_rooms"):
        kept = store._rooms[room[0]].conns["s1"].name
    else:
        import json

        kept = json.loads(store.redis.hget(f"class:{room[0]}:conns", "s1"))["n"]
    assert kept == "Ada &lt;b&gt;Lovelace&lt;/b&gt;"


def test_a_member_id_is_kept_across_reconnects_and_checked(lab, room):
    first = lab.join("s1", room[0], None, None, None)
    again = lab.join("s2", room[0], None, None, first.member_id)
    assert again.member_id == first.member_id and again.presence == Presence(1, 0)
    for bad in ("short", "x" * 65, "has space!", 12345678):
        refused("member_id", lab.join, "s3", room[0], None, None, bad)


def test_the_member_cap_is_named_when_a_room_is_full(store):
    lab = classroom(store, max_members=2)
    code, token = lab.create()
    lab.join("t1", code, None, token, None)
    lab.join("s1", code, None, None, None)
    message = refused("code", lab.join, "s2", code, None, None, None)
    assert message == f"code: room {code} is full: at most 2 members (CLASS_MAX_MEMBERS)"


def test_the_teacher_drives_and_seq_grows(lab, room):
    code, token = room
    states = [lab.drive(code, token, {**RING4, "step": k}, accept) for k in range(3)]
    assert [seq for _, seq in states] == [1, 2, 3]
    assert lab.snapshot(code, "member-ada") == {"state": {**RING4, "step": 2}, "seq": 3}


def test_a_students_drive_is_refused_before_the_state_is_even_read(lab, room):
    code, token = room
    lab.drive(code, token, RING4, accept)
    seen = []
    for forged in (None, "", "guess", token + "x", 7):
        message = refused("teacher_token", lab.drive, code, forged, {"step": 9}, seen.append)
        assert "teacher" in message
    assert seen == []  # the state check never ran
    assert lab.snapshot(code, "m") == {"state": RING4, "seq": 1}


def test_a_refused_state_changes_nothing(lab, room):
    code, token = room
    lab.drive(code, token, RING4, accept)
    refused("state", lab.drive, code, token, "not a state", accept)
    assert lab.snapshot(code, "m")["seq"] == 1


def test_ending_a_room_needs_the_token_and_then_nothing_works(lab, room):
    code, token = room
    lab.join("s1", code, None, None, "member-ada")
    refused("teacher_token", lab.end, code, "guess")
    assert lab.presence(code) == Presence(1, 0)
    assert lab.end(code, token) == code
    no_room = f"code: no room {code} (it may have ended)"
    assert refused("code", lab.drive, code, token, RING4, accept) == no_room
    assert refused("code", lab.join, "s2", code, None, None, None) == no_room
    assert refused("code", lab.end, code, token) == no_room


def test_two_processes_serve_one_room(store, second_store):
    a = classroom(store, process="process-a")
    b = classroom(second_store, process="process-b")
    code, token = a.create()
    b.join("t1", code, None, token, None)
    a.join("s1", code, None, None, "member-ada")
    b.join("s2", code, None, None, "member-bob")
    assert a.drive(code, token, RING4, accept)[1] == 1
    assert b.drive(code, token, RING4, accept)[1] == 2
    assert a.presence(code) == b.presence(code) == Presence(2, 1)
    # Process b dies; Bob reconnects to a with his member id and counts once.
    second_store.forget_process("process-b")
    assert a.presence(code) == Presence(1, 0)
    assert a.join("s3", code, None, None, "member-bob").presence == Presence(2, 0)
    assert a.snapshot(code, "member-bob")["seq"] == 2
