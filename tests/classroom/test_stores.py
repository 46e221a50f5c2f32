"""The two classroom stores keep the same rules: rooms, seq, presence, polls, expiry, atomicity."""

from __future__ import annotations

import threading
import time

import pytest

from app.classroom.memory_store import MemoryStore
from app.classroom.redis_store import RedisStore
from app.classroom.store import (
    Answer,
    Connection,
    NoRoom,
    PollClosed,
    Presence,
    RoomFull,
    Tally,
)

TTL = 3600.0
P1, P2 = "process-1", "process-2"


def student(member: str, process: str = P1) -> Connection:
    return Connection(member, "student", process, "")


def teacher(member: str, process: str = P1) -> Connection:
    return Connection(member, "teacher", process, "")


@pytest.fixture
def room(store):
    store.heartbeat(P1, 30)
    store.heartbeat(P2, 30)
    assert store.create("ACK3D7", "digest", TTL)
    return "ACK3D7"


def test_a_code_is_taken_once_and_a_new_room_starts_empty(store):
    assert store.create("ACK3D7", "d1", TTL) is True
    assert store.create("ACK3D7", "d2", TTL) is False
    loaded = store.room("ACK3D7")
    assert (loaded.digest, loaded.state, loaded.seq, loaded.poll) == ("d1", None, 0, None)
    assert store.room("CCCCCC") is None


def test_each_drive_stores_the_state_and_the_next_seq(store, room):
    seqs = [store.drive(room, {"step": k}, TTL) for k in range(5)]
    assert seqs == [1, 2, 3, 4, 5]
    assert store.room(room).state == {"step": 4} and store.room(room).seq == 5
    with pytest.raises(NoRoom):
        store.drive("CCCCCC", {"step": 0}, TTL)


def test_concurrent_drives_get_distinct_seqs_with_none_lost(store, room, second_store):
    seqs: list[int] = []
    lock = threading.Lock()

    def drive(s, n):
        for k in range(n):
            seq = s.drive(room, {"step": k}, TTL)
            with lock:
                seqs.append(seq)

    threads = [threading.Thread(target=drive, args=(s, 25)) for s in (store, second_store) * 4]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(seqs) == list(range(1, 201))
    assert store.room(room).seq == 200


def test_presence_counts_distinct_members_by_role(store, room):
    assert store.join(room, "s1", student("m-ada"), 10, TTL) == Presence(1, 0)
    assert store.join(room, "s2", student("m-ada"), 10, TTL) == Presence(1, 0)  # a second tab
    assert store.join(room, "s3", student("m-bob"), 10, TTL) == Presence(2, 0)
    assert store.join(room, "s4", teacher("m-tea"), 10, TTL) == Presence(2, 1)
    assert store.leave(room, "s1") == Presence(2, 1)  # Ada is still there on s2
    assert store.leave(room, "s2") == Presence(1, 1)
    assert store.presence(room) == Presence(1, 1)
    assert store.leave("CCCCCC", "s3") is None and store.presence("CCCCCC") is None


def test_a_rejoin_on_the_same_connection_replaces_its_entry(store, room):
    store.join(room, "s1", student("m-ada"), 10, TTL)
    assert store.join(room, "s1", teacher("m-ada"), 10, TTL) == Presence(0, 1)


def test_the_cap_refuses_a_new_member_but_not_one_already_in(store, room):
    for i in range(3):
        store.join(room, f"s{i}", student(f"member-{i}"), 3, TTL)
    with pytest.raises(RoomFull):
        store.join(room, "s9", student("member-9"), 3, TTL)
    assert store.join(room, "s0-again", student("member-0"), 3, TTL) == Presence(3, 0)
    assert store.presence(room) == Presence(3, 0)  # the refused join left nothing behind


def test_concurrent_joins_never_pass_the_cap(store, room, second_store):
    taken: list[str] = []

    def join(s, i):
        try:
            s.join(room, f"sid-{i}", student(f"member-{i}"), 20, TTL)
            taken.append(f"member-{i}")
        except RoomFull:
            pass

    threads = [
        threading.Thread(target=join, args=(s, i)) for i, s in enumerate([store, second_store] * 30)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(taken) == 20
    assert store.presence(room) == Presence(20, 0)


def test_members_of_a_process_that_died_stop_counting_and_can_come_back(store, room):
    store.join(room, "a1", student("m-ada", P1), 10, TTL)
    store.join(room, "b1", student("m-bob", P2), 10, TTL)
    store.join(room, "t1", teacher("m-tea", P2), 10, TTL)
    store.forget_process(P2)  # process 2 was killed: no leave, no goodbye
    assert store.presence(room) == Presence(1, 0)
    # Bob reconnects to process 1 with the same member id: he counts once.
    assert store.join(room, "b2", student("m-bob", P1), 10, TTL) == Presence(2, 0)


def test_a_dead_process_frees_its_places_under_the_cap(store, room):
    store.join(room, "b1", student("m-bob", P2), 1, TTL)
    with pytest.raises(RoomFull):
        store.join(room, "a1", student("m-ada", P1), 1, TTL)
    store.forget_process(P2)
    assert store.join(room, "a1", student("m-ada", P1), 1, TTL) == Presence(1, 0)


def test_a_lapsed_heartbeat_is_a_dead_process(clock):
    store = MemoryStore(clock=clock)
    store.heartbeat(P1, 30)
    store.heartbeat(P2, 30)
    store.create("ACK3D7", "d", TTL)
    store.join("ACK3D7", "a", student("m-ada", P1), 10, TTL)
    store.join("ACK3D7", "b", student("m-bob", P2), 10, TTL)
    clock.advance(20)
    store.heartbeat(P1, 30)  # process 1 beats on, process 2 has stopped
    clock.advance(20)
    assert store.presence("ACK3D7") == Presence(1, 0)


def test_a_heartbeat_key_expires_in_redis(redis_url):
    store = RedisStore(redis_url)
    store.heartbeat(P1, 30)
    ttl_ms = store.redis.pttl("class:proc:" + P1)
    assert 29_000 < ttl_ms <= 30_000


POLL = {"poll_id": "p000000000001", "question_id": "q", "kind": "single"}
POLL2 = {**POLL, "poll_id": "p000000000002"}


def pick(key: str, right: bool) -> Answer:
    return Answer(key, (key,), right)


def test_answers_are_one_per_member_and_a_later_one_replaces_the_earlier(store, room):
    store.open_poll(room, POLL, TTL)
    assert store.answer(room, "p000000000001", "m-ada", pick("a", True), TTL) == Tally(
        {"a": 1}, 1, 1, seq=1
    )
    store.answer(room, "p000000000001", "m-bob", pick("a", True), TTL)
    tally = store.answer(room, "p000000000001", "m-ada", pick("b", False), TTL)
    assert tally == Tally({"a": 1, "b": 1}, answered=2, right=1, seq=3)
    tally = store.answer(room, "p000000000001", "m-bob", pick("b", False), TTL)
    assert tally == Tally({"b": 2}, answered=2, right=0, seq=4)  # no count of 0 is kept
    assert store.my_answer(room, "m-ada") == pick("b", False)
    assert store.my_answer(room, "m-cy") is None


def test_a_multiple_choice_answer_counts_under_each_option(store, room):
    store.open_poll(room, POLL, TTL)
    store.answer(room, "p000000000001", "m-ada", Answer(["a", "c"], ("a", "c"), False), TTL)
    tally = store.answer(room, "p000000000001", "m-bob", Answer([], (), False), TTL)
    assert tally == Tally({"a": 1, "c": 1}, answered=2, right=0, seq=2)


def test_a_new_poll_clears_the_answers_and_closes_the_old_one(store, room):
    store.open_poll(room, POLL, TTL)
    store.answer(room, "p000000000001", "m-ada", pick("a", True), TTL)
    store.open_poll(room, POLL2, TTL)
    assert store.tally(room) == Tally() and store.my_answer(room, "m-ada") is None
    with pytest.raises(PollClosed) as closed:
        store.answer(room, "p000000000001", "m-ada", pick("a", True), TTL)
    assert (closed.value.reason, closed.value.current) == ("replaced", "p000000000002")
    assert store.room(room).poll == POLL2 and store.room(room).revealed is False


def test_a_revealed_poll_takes_no_more_answers_and_reveals_again_alike(store, room):
    store.open_poll(room, POLL, TTL)
    store.answer(room, "p000000000001", "m-ada", pick("a", True), TTL)
    assert store.reveal(room, "p000000000001", TTL) == Tally({"a": 1}, 1, 1, seq=1)
    with pytest.raises(PollClosed) as closed:
        store.answer(room, "p000000000001", "m-bob", pick("b", False), TTL)
    assert closed.value.reason == "revealed"
    assert store.reveal(room, "p000000000001", TTL) == Tally({"a": 1}, 1, 1, seq=1)
    assert store.room(room).revealed is True
    with pytest.raises(PollClosed):
        store.reveal(room, "p000000000002", TTL)


def test_answers_without_a_poll_or_a_room_are_refused(store, room):
    with pytest.raises(PollClosed) as closed:
        store.answer(room, "p000000000001", "m-ada", pick("a", True), TTL)
    assert closed.value.current is None
    with pytest.raises(NoRoom):
        store.answer("CCCCCC", "p000000000001", "m-ada", pick("a", True), TTL)
    with pytest.raises(NoRoom):
        store.open_poll("CCCCCC", POLL, TTL)


def test_concurrent_answers_make_an_exact_tally(store, room, second_store):
    store.open_poll(room, POLL, TTL)

    def answer(s, i):
        for choice in ("a", "b", "c"):  # each member changes their mind twice
            s.answer(room, "p000000000001", f"m-{i}", pick(choice, choice == "c"), TTL)

    threads = [
        threading.Thread(target=answer, args=(s, i))
        for i, s in enumerate([store, second_store] * 40)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.tally(room) == Tally({"c": 80}, answered=80, right=80, seq=240)


def test_ending_a_room_removes_everything(store, room):
    store.join(room, "s1", student("m-ada"), 10, TTL)
    store.open_poll(room, POLL, TTL)
    store.answer(room, "p000000000001", "m-ada", pick("a", True), TTL)
    assert store.end(room) is True
    assert store.room(room) is None and store.presence(room) is None
    assert store.my_answer(room, "m-ada") is None and store.tally(room) == Tally()
    assert store.end(room) is False
    assert store.create(room, "new", TTL)  # the code is free again


def test_a_room_expires_after_its_idle_time_unless_touched(clock):
    store = MemoryStore(clock=clock)
    store.create("ACK3D7", "d", 100)
    clock.advance(60)
    store.drive("ACK3D7", {"step": 1}, 100)  # an event: 100 s more from now
    clock.advance(60)
    assert store.room("ACK3D7").seq == 1
    clock.advance(41)
    assert store.room("ACK3D7") is None
    with pytest.raises(NoRoom):
        store.drive("ACK3D7", {"step": 2}, 100)


def test_an_expired_room_frees_its_code_for_a_new_one(clock):
    store = MemoryStore(clock=clock)
    store.create("ACK3D7", "old", 100)
    clock.advance(101)
    assert store.create("ACK3D7", "new", 100) is True
    assert store.room("ACK3D7").digest == "new"


def test_every_redis_key_of_a_room_expires_after_its_idle_time(redis_url):
    store = RedisStore(redis_url)
    store.heartbeat(P1, 30)
    store.create("ACK3D7", "d", 4 * 3600)
    store.join("ACK3D7", "s1", student("m-ada"), 10, 4 * 3600)
    store.open_poll("ACK3D7", POLL, 4 * 3600)
    store.answer("ACK3D7", "p000000000001", "m-ada", pick("a", True), 4 * 3600)
    keys = store.redis.keys("class:ACK3D7*")
    assert len(keys) == 4
    for key in keys:
        assert 4 * 3600_000 - 60_000 < store.redis.pttl(key) <= 4 * 3600_000, key


def test_a_redis_room_is_gone_once_its_idle_time_has_passed(redis_url):
    store = RedisStore(redis_url)
    store.create("ACK3D7", "d", 0.001)
    time.sleep(0.01)  # past the 1 ms expiry: Redis drops the key when it is next read
    assert store.room("ACK3D7") is None
    assert store.create("ACK3D7", "again", TTL)


def test_a_redis_that_is_down_is_reported_as_unavailable():
    from app.classroom.store import StoreUnavailable

    store = RedisStore("redis://127.0.0.1:1/0")  # nothing listens on port 1
    with pytest.raises(StoreUnavailable, match="classroom store"):
        store.room("ACK3D7")
