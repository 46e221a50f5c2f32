"""What a classroom store keeps and the one interface both stores (memory, Redis) offer.

A store holds, per room: the teacher token's digest, the state the teacher drove and its `seq`,
the open poll (its record, with the answer key the students never see) and whether it was
revealed, the poll's answers (one per member) and their running tally, and the room's
connections. Every operation that reads and writes is atomic in the store itself (a lock; a Lua
script in Redis), so several server processes can serve one room. Every operation on a room
refreshes its idle expiry (`ttl_s`); a room nobody touches for that long is gone.

Presence survives a process dying without saying goodbye: each connection records the process
it is on, each process refreshes a heartbeat with a TTL (`heartbeat`), and counts skip (and
drop) the connections of processes whose heartbeat lapsed. A member is a `member_id`, which a
browser keeps across reconnects, so one member reconnecting on another process counts once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

HEARTBEAT_TTL_S = 30.0  # a process not heard from for this long is gone; its members too
HEARTBEAT_EVERY_S = 10.0  # how often a serving process refreshes its heartbeat


class NoRoom(LookupError):
    """The room does not exist (never made, ended, or expired)."""


class RoomFull(Exception):
    """A join would take the room past its member cap."""


class PollClosed(Exception):
    """The answer is for a poll that is not open: `reason` is "replaced" or "revealed"."""

    def __init__(self, reason: str, current: str | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.current = current  # the id of the room's poll now, if any


class StoreUnavailable(RuntimeError):
    """The store cannot be reached (Redis down); the message says so without internals."""


@dataclass(frozen=True)
class Connection:
    """One Socket.IO connection in a room: which member, as what, on which process."""

    member_id: str
    role: str  # "teacher" | "student"
    process: str
    name: str = ""


@dataclass(frozen=True)
class Presence:
    """Distinct live members of a room, by role."""

    students: int
    teachers: int

    @property
    def members(self) -> int:
        return self.students + self.teachers


@dataclass(frozen=True)
class Tally:
    """A poll's answers so far: how many chose each key, how many answered, how many are right.

    `seq` counts the answers recorded (replacements too): two tallies sent at once from two
    processes may arrive in either order, and the one with the larger seq is the newer.
    """

    counts: dict[str, int] = field(default_factory=dict)
    answered: int = 0
    right: int = 0
    seq: int = 0


@dataclass(frozen=True)
class Answer:
    """One member's graded answer: what they sent, the tally keys it counts under, if right."""

    answer: object
    keys: tuple[str, ...]
    right: bool

    def as_dict(self) -> dict:
        return {"answer": self.answer, "keys": list(self.keys), "right": self.right}

    @classmethod
    def from_dict(cls, data: dict) -> Answer:
        return cls(data["answer"], tuple(data["keys"]), bool(data["right"]))


@dataclass(frozen=True)
class Room:
    """A room as loaded: the digest to check tokens against, the driven state, the poll."""

    code: str
    digest: str
    state: dict | None = None
    seq: int = 0
    poll: dict | None = None  # the poll's record (see app/classroom/polls.py), or None
    revealed: bool = False


class Store(Protocol):
    """The classroom's storage; MemoryStore (one process) and RedisStore (several) implement it."""

    def heartbeat(self, process: str, ttl_s: float) -> None:
        """Say `process` is alive for `ttl_s` more seconds."""

    def forget_process(self, process: str) -> None:
        """Say `process` is gone now (a clean shutdown, or a test playing a crash)."""

    def create(self, code: str, digest: str, ttl_s: float) -> bool:
        """Make room `code` with the teacher token's digest; False if the code is taken."""

    def room(self, code: str) -> Room | None:
        """Load room `code`, or None if there is none."""

    def join(self, code: str, sid: str, conn: Connection, cap: int, ttl_s: float) -> Presence:
        """Add connection `sid`; raise NoRoom, or RoomFull past `cap` distinct live members."""

    def leave(self, code: str, sid: str) -> Presence | None:
        """Remove connection `sid`; return who is left (None if the room is gone)."""

    def presence(self, code: str) -> Presence | None:
        """Count the room's distinct live members (None if the room is gone)."""

    def drive(self, code: str, state: dict, ttl_s: float) -> int:
        """Store the teacher's state and return the room's next seq; raise NoRoom."""

    def open_poll(self, code: str, poll: dict, ttl_s: float) -> None:
        """Make `poll` (a record with a "poll_id") the open poll, with no answers; raise NoRoom."""

    def answer(
        self, code: str, poll_id: str, member_id: str, answer: Answer, ttl_s: float
    ) -> Tally:
        """Record (or replace) a member's answer; raise NoRoom, or PollClosed."""

    def my_answer(self, code: str, member_id: str) -> Answer | None:
        """Return the member's answer to the room's current poll, if any."""

    def tally(self, code: str) -> Tally:
        """Return the current poll's tally (empty when there is none)."""

    def reveal(self, code: str, poll_id: str, ttl_s: float) -> Tally:
        """Close poll `poll_id` to answers and return its tally; raise NoRoom or PollClosed."""

    def end(self, code: str) -> bool:
        """Delete the room and all it holds; False if there was none."""
