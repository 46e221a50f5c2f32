"""The classroom store of one process: rooms in a dict, every operation under one lock.

The default (`make run`, no MESSAGE_QUEUE). It keeps the same rules as the Redis store
(app/classroom/redis_store.py), heartbeats included, so one set of tests holds both to them.
Expired rooms are dropped when touched, and all of them whenever a room is created.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .store import (
    Answer,
    Connection,
    NoRoom,
    PollClosed,
    Presence,
    Room,
    RoomFull,
    Tally,
)


@dataclass
class _Entry:
    """A room and what hangs off it, with the time it expires."""

    room: Room
    expires: float
    conns: dict[str, Connection] = field(default_factory=dict)
    answers: dict[str, Answer] = field(default_factory=dict)
    answers_seq: int = 0  # answers recorded for the open poll, replacements included


class MemoryStore:
    """Rooms of one process; thread-safe. `clock` is monotonic seconds (tests stop it)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._rooms: dict[str, _Entry] = {}
        self._alive: dict[str, float] = {}  # process -> when its heartbeat lapses

    # -- processes ----------------------------------------------------------------------------

    def heartbeat(self, process: str, ttl_s: float) -> None:
        with self._lock:
            self._alive[process] = self._clock() + ttl_s

    def forget_process(self, process: str) -> None:
        with self._lock:
            self._alive.pop(process, None)

    # -- rooms --------------------------------------------------------------------------------

    def create(self, code: str, digest: str, ttl_s: float) -> bool:
        now = self._clock()
        with self._lock:
            for old in [c for c, e in self._rooms.items() if e.expires <= now]:
                del self._rooms[old]
            if code in self._rooms:
                return False
            self._rooms[code] = _Entry(Room(code, digest), now + ttl_s)
            return True

    def room(self, code: str) -> Room | None:
        with self._lock:
            entry = self._entry(code)
            return entry.room if entry else None

    def end(self, code: str) -> bool:
        with self._lock:
            return self._entry(code) is not None and self._rooms.pop(code) is not None

    def drive(self, code: str, state: dict, ttl_s: float) -> int:
        with self._lock:
            entry = self._touched(code, ttl_s)
            entry.room = replace(entry.room, state=state, seq=entry.room.seq + 1)
            return entry.room.seq

    # -- members ------------------------------------------------------------------------------

    def join(self, code: str, sid: str, conn: Connection, cap: int, ttl_s: float) -> Presence:
        with self._lock:
            entry = self._touched(code, ttl_s)
            live = self._live(entry)
            members = {c.member_id for c in live.values()}
            if conn.member_id not in members and len(members) >= cap:
                raise RoomFull()
            entry.conns[sid] = conn
            return self._count(entry)

    def leave(self, code: str, sid: str) -> Presence | None:
        with self._lock:
            entry = self._entry(code)
            if entry is None:
                return None
            entry.conns.pop(sid, None)
            return self._count(entry)

    def presence(self, code: str) -> Presence | None:
        with self._lock:
            entry = self._entry(code)
            return self._count(entry) if entry else None

    # -- polls --------------------------------------------------------------------------------

    def open_poll(self, code: str, poll: dict, ttl_s: float) -> None:
        with self._lock:
            entry = self._touched(code, ttl_s)
            entry.room = replace(entry.room, poll=poll, revealed=False)
            entry.answers = {}
            entry.answers_seq = 0

    def answer(
        self, code: str, poll_id: str, member_id: str, answer: Answer, ttl_s: float
    ) -> Tally:
        with self._lock:
            entry = self._touched(code, ttl_s)
            self._check_open(entry.room, poll_id)
            entry.answers[member_id] = answer
            entry.answers_seq += 1
            return _tally(entry)

    def my_answer(self, code: str, member_id: str) -> Answer | None:
        with self._lock:
            entry = self._entry(code)
            return entry.answers.get(member_id) if entry else None

    def tally(self, code: str) -> Tally:
        with self._lock:
            entry = self._entry(code)
            return _tally(entry) if entry else Tally()

    def reveal(self, code: str, poll_id: str, ttl_s: float) -> Tally:
        with self._lock:
            entry = self._touched(code, ttl_s)
            poll = entry.room.poll
            current = poll["poll_id"] if poll else None
            if current != poll_id:
                raise PollClosed("replaced", current)
            entry.room = replace(entry.room, revealed=True)
            return _tally(entry)

    # -- under the lock -----------------------------------------------------------------------

    def _entry(self, code: str) -> _Entry | None:
        entry = self._rooms.get(code)
        if entry is not None and entry.expires <= self._clock():
            del self._rooms[code]
            return None
        return entry

    def _touched(self, code: str, ttl_s: float) -> _Entry:
        entry = self._entry(code)
        if entry is None:
            raise NoRoom(code)
        entry.expires = self._clock() + ttl_s
        return entry

    def _live(self, entry: _Entry) -> dict[str, Connection]:
        """Drop the connections of processes whose heartbeat lapsed; return the rest."""
        now = self._clock()
        dead = [s for s, c in entry.conns.items() if self._alive.get(c.process, 0) <= now]
        for sid in dead:
            del entry.conns[sid]
        return entry.conns

    def _count(self, entry: _Entry) -> Presence:
        live = self._live(entry).values()
        students = {c.member_id for c in live if c.role == "student"}
        teachers = {c.member_id for c in live if c.role == "teacher"}
        return Presence(len(students), len(teachers))

    @staticmethod
    def _check_open(room: Room, poll_id: str) -> None:
        current = room.poll["poll_id"] if room.poll else None
        if current != poll_id:
            raise PollClosed("replaced", current)
        if room.revealed:
            raise PollClosed("revealed", current)


def _tally(entry: _Entry) -> Tally:
    counts: dict[str, int] = {}
    for a in entry.answers.values():
        for key in a.keys:
            counts[key] = counts.get(key, 0) + 1
    right = sum(a.right for a in entry.answers.values())
    return Tally(counts, len(entry.answers), right, entry.answers_seq)
