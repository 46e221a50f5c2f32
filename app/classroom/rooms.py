"""The classroom's rules: who may do what in a room, over any store.

`Classroom` is what the web layer calls, one method per event. It checks every field
(app/classroom/checks.py), the room's code and, for the teacher's events, the teacher token on
every call: being connected as a teacher proves nothing by itself. The store does the atomic
part (app/classroom/store.py). Each method returns what the web layer sends, or raises
ClassError naming the field; a refused call changes nothing.

The drive state is validated by the caller (the web layer owns the lab's parameter gate,
app/web/params.py) and kept as given; this module only needs its collective, algorithm, ranks,
root, ranks_per_node and step, for predict-next-step polls.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from app.i18n import DEFAULT, LANGUAGES, N_
from app.quiz import Bank, BankError

from . import checks, codes, polls
from .checks import ClassError
from .store import (
    HEARTBEAT_TTL_S,
    Connection,
    NoRoom,
    PollClosed,
    Presence,
    Room,
    RoomFull,
    Store,
    Tally,
)

CREATE_ATTEMPTS = 20  # 25^6 codes: a clash is rare, twenty in a row means something is wrong

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Joined:
    """A member's place in a room: the role the token gave, its member id, who is present, and
    the language it reads (polls and messages reach it in that language)."""

    code: str
    role: str
    member_id: str
    presence: Presence
    lang: str = DEFAULT


class Classroom:
    """Rooms over `store`, as served by one process (`process` names it in presence counts)."""

    def __init__(
        self,
        store: Store,
        *,
        bank: Callable[[], Bank],
        secret: str,
        max_members: int,
        idle_expire_s: float,
        process: str | None = None,
    ) -> None:
        self.store = store
        self.bank = bank
        self.secret = secret
        self.max_members = max_members
        self.ttl_s = idle_expire_s
        self.process = process or uuid.uuid4().hex

    def heartbeat(self) -> None:
        """Say this process is alive; its members stop counting HEARTBEAT_TTL_S after the last."""
        self.store.heartbeat(self.process, HEARTBEAT_TTL_S)

    def create(self) -> tuple[str, str]:
        """Make a room with a fresh code; return (code, teacher token). Only the digest is kept."""
        token = codes.new_teacher_token()
        for _ in range(CREATE_ATTEMPTS):
            code = codes.new_code()
            if self.store.create(code, codes.token_digest(token), self.ttl_s):
                return code, token
        raise RuntimeError(f"no free room code after {CREATE_ATTEMPTS} attempts")

    def join(
        self,
        sid: str,
        code: object,
        name: object,
        teacher_token: object,
        member_id: object,
        lang: object = None,
    ) -> Joined:
        """Put connection `sid` in the room as teacher (with the token) or student."""
        reads = checks.language(lang)
        room = self._room(code)
        shown_name = checks.name(name)
        member = checks.member_id(member_id)
        role = "student"
        if teacher_token is not None:
            checks.teacher_token(teacher_token, room.digest)
            role = "teacher"
        conn = Connection(member, role, self.process, shown_name)
        try:
            presence = self.store.join(room.code, sid, conn, self.max_members, self.ttl_s)
        except RoomFull:
            raise ClassError(
                "code",
                N_("room %(code)s is full: at most %(max)s members (CLASS_MAX_MEMBERS)"),
                code=room.code,
                max=self.max_members,
            ) from None
        except NoRoom:
            raise _no_room(room.code) from None
        return Joined(room.code, role, member, presence, reads)

    def snapshot(self, code: str, member_id: str, lang: str = DEFAULT) -> dict:
        """Return what a member landing in the room needs: state, seq and the poll, if any (in
        the member's language)."""
        room = self._room(code)
        out = {"state": room.state, "seq": room.seq}
        if room.poll is not None:
            out["poll"] = self._poll_view(room, member_id, lang)
        return out

    def leave(self, sid: str, code: str) -> Presence | None:
        """Take connection `sid` out of the room; return who is left (None: no room)."""
        return self.store.leave(code, sid)

    def presence(self, code: str) -> Presence | None:
        return self.store.presence(code)

    def drive(
        self, code: object, teacher_token: object, state: object, check: Callable[[object], dict]
    ) -> tuple[dict, int]:
        """Store the teacher's state once `check` accepts it; return it and its seq (only grows).

        `check` is the web layer's gate for the lab's parameters: it returns the state
        normalised or raises ClassError naming the field. It runs after the token check.
        """
        room = self._teachers_room(code, teacher_token)
        checked = check(state)
        try:
            return checked, self.store.drive(room.code, checked, self.ttl_s)
        except NoRoom:
            raise _no_room(room.code) from None

    def open_poll(self, code: object, teacher_token: object, question_id: object) -> dict:
        """Open a poll on `question_id` (replacing any other); return its record."""
        room = self._teachers_room(code, teacher_token)
        try:
            record = polls.make_poll(self._bank(), self.secret, question_id, room.state)
            self.store.open_poll(room.code, record, self.ttl_s)
        except NoRoom:
            raise _no_room(room.code) from None
        return record

    def answer(self, member: Joined, poll_id: object, answer: object) -> Tally:
        """Grade and keep a student's answer (replacing theirs); return the poll's tally."""
        if member.role != "student":
            raise ClassError("role", N_("only students answer polls; this connection is a teacher"))
        wanted = checks.poll_id(poll_id)
        room = self._room(member.code)
        record = self._open(room, wanted)
        graded = polls.grade_answer(self._bank(), self.secret, record, answer)
        try:
            return self.store.answer(room.code, wanted, member.member_id, graded, self.ttl_s)
        except NoRoom:
            raise _no_room(room.code) from None
        except PollClosed as e:
            raise _closed(e, wanted) from None

    def reveal(self, code: object, teacher_token: object, poll_id: object) -> dict[str, dict]:
        """Close the poll to answers; return its result (the answer, why, the counts) in each
        language, {lang: result}: the same answer and counts, the texts in that language."""
        room = self._teachers_room(code, teacher_token)
        wanted = checks.poll_id(poll_id)
        record = self._open(room, wanted, revealed_too=True)
        try:
            tally = self.store.reveal(room.code, wanted, self.ttl_s)
        except NoRoom:
            raise _no_room(room.code) from None
        except PollClosed as e:
            raise _closed(e, wanted) from None
        return {lang: polls.result(record, tally, lang) for lang in LANGUAGES}

    def end(self, code: object, teacher_token: object) -> str:
        """Delete the room; return its code."""
        room = self._teachers_room(code, teacher_token)
        if not self.store.end(room.code):
            raise _no_room(room.code)
        return room.code

    # -- helpers ------------------------------------------------------------------------------

    def _room(self, code: object) -> Room:
        normal = checks.code(code)
        room = self.store.room(normal)
        if room is None:
            raise _no_room(normal)
        return room

    def _teachers_room(self, code: object, teacher_token: object) -> Room:
        room = self._room(code)
        checks.teacher_token(teacher_token, room.digest)
        return room

    @staticmethod
    def _open(room: Room, wanted: str, revealed_too: bool = False) -> dict:
        """Return the room's poll record if it is poll `wanted` (and open), else raise."""
        record = room.poll
        current = record["poll_id"] if record else None
        if current != wanted:
            raise _closed(PollClosed("replaced", current), wanted)
        if room.revealed and not revealed_too:
            raise _closed(PollClosed("revealed", current), wanted)
        return record

    def _poll_view(self, room: Room, member_id: str, lang: str) -> dict:
        """The poll as a member sees it: open (with their answer) or revealed (with the result)."""
        view = polls.public_poll(room.poll, lang)
        mine = self.store.my_answer(room.code, member_id)
        view["my_answer"] = mine.answer if mine else None
        if room.revealed:
            view["result"] = polls.result(room.poll, self.store.tally(room.code), lang)
        return view

    def warm_bank(self) -> None:
        """Load the bank now, so no poll waits for it; a bank that does not load is met later."""
        try:
            self.bank()
        except BankError:
            log.warning("classroom: the question bank does not load; polls will say so")

    def _bank(self) -> Bank:
        try:
            return self.bank()
        except BankError:
            raise ClassError("question_id", N_("the question bank does not load")) from None


def _no_room(code: str) -> ClassError:
    return ClassError("code", N_("no room %(code)s (it may have ended)"), code=code)


def _closed(e: PollClosed, wanted: str) -> ClassError:
    if e.reason == "revealed":
        return ClassError(
            "poll_id", N_("poll %(poll)s was revealed: answers are closed"), poll=wanted
        )
    if e.current:
        return ClassError(
            "poll_id",
            N_("poll %(poll)s is not the open poll; the open poll is %(open)s"),
            poll=wanted,
            open=e.current,
        )
    return ClassError(
        "poll_id", N_("poll %(poll)s is not the open poll; no poll is open"), poll=wanted
    )
