"""The classroom's Socket.IO events (namespace `/class`): a teacher drives, the room follows.

Contract: docs/classroom.md. Each event is acked `{ok: true, ...}` or `{ok: false, error}`, the
error naming the field; the rules live in app/classroom (`Classroom`), which checks the room
code on every event and the teacher token on every teacher event. Socket.IO rooms:
`class:<code>` (everyone in the room) and `class:<code>:teachers`. With a message queue
(MESSAGE_QUEUE) the state lives in Redis and these emits reach members on every process.

What a student sends reaches nobody but the teachers, and only as counts (`poll_tally`); the
teacher's state, polls and results go to everyone. A room mixes readers: each member says its
language when it joins (`lang`) and is also in `class:<code>:lang:<lang>`; a poll and its result
go to each language's room in that language (app/classroom/polls.py), and refusals reach a
connection in its language, the field name first as the event spells it. As sockets.py
explains, the handlers are bound to this app's own python-socketio server, not through
`@socketio.on`.
"""

from __future__ import annotations

import functools
import logging
import threading
from pathlib import Path

import socketio
from flask import Flask

from app.classroom import checks, polls
from app.classroom.checks import ClassError, fields
from app.classroom.memory_store import MemoryStore
from app.classroom.redis_store import RedisStore
from app.classroom.rooms import Classroom, Joined
from app.classroom.store import Store, StoreUnavailable
from app.i18n import DEFAULT, LANGUAGES, N_
from app.i18n.catalog import translate
from app.i18n.errors import translate_error
from app.quiz import current_bank

from ..guard.clients import Clients
from ..guard.limits import RateLimited, TokenBuckets
from . import heartbeat
from .bad_input import caught_event
from .class_state import parse_state
from .socket_json import UNDECODABLE

NAMESPACE = "/class"
EVENTS = (
    "room_create",
    "room_join",
    "room_leave",
    "room_drive",
    "poll_open",
    "poll_answer",
    "poll_reveal",
    "room_end",
)
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
# Refusals that are not a field's (the English of a rate limit is the limiter's own sentence).
TOO_MANY = N_("too many requests: retry in %(wait)s s")
UNAVAILABLE = N_("the classroom is unavailable; try again in a moment")
FAILED = N_("the server failed unexpectedly; the error was logged")
SAYS_LANGUAGE = ("room_create", "room_join")  # the events that may carry `lang`

log = logging.getLogger(__name__)


def init_app(app: Flask, server: socketio.Server) -> None:
    """Bind the classroom's events to `server`, the Socket.IO server of `app`."""
    config = app.config
    classroom = Classroom(
        make_store(config.get("MESSAGE_QUEUE")),
        bank=_bank_loader(config.get("LESSONS_DIR")),
        secret=config["SECRET_KEY"],
        max_members=int(config["CLASS_MAX_MEMBERS"]),
        idle_expire_s=float(config["CLASS_IDLE_EXPIRE_S"]),
    )
    app.extensions["classroom"] = classroom
    handlers = _Handlers(app, server, classroom)
    for event in EVENTS:
        server.on(event, _acked(getattr(handlers, event), handlers.language), namespace=NAMESPACE)
    server.on("disconnect", handlers.disconnect, namespace=NAMESPACE)
    server.on(UNDECODABLE, handlers.undecodable, namespace=NAMESPACE)
    server.on("*", handlers.unknown, namespace=NAMESPACE)


def make_store(message_queue: str | None) -> Store:
    """Return the store for MESSAGE_QUEUE: Redis at that URL, or memory when there is none."""
    if not message_queue:
        return MemoryStore()
    if not message_queue.startswith(REDIS_SCHEMES):
        raise ValueError(f"MESSAGE_QUEUE must be a redis:// URL, got {message_queue[:40]!r}")
    return RedisStore(message_queue)


def _bank_loader(lessons_dir: str | None):
    return (lambda: current_bank(Path(lessons_dir))) if lessons_dir else current_bank


def _acked(handler, language):
    """Turn a handler's refusals into `{ok: false, error}` acks, in the language of the
    connection (`language(sid, event, data)`); a failure is logged, not shown."""

    @functools.wraps(handler)
    def wrapper(sid: str, *args) -> dict:
        data = _single(args)
        try:
            return {"ok": True, **handler(sid, data)}
        except ClassError as e:
            lang = language(sid, handler.__name__, data)
            return {"ok": False, "error": f"{e.field}: {said(lang, e)}"}
        except RateLimited as e:
            lang = language(sid, handler.__name__, data)
            error = str(e) if lang == DEFAULT else translate(lang, TOO_MANY, wait=e.wait_s)
            return {"ok": False, "error": error, "retry_after_s": round(e.retry_after_s, 3)}
        except StoreUnavailable as e:
            log.warning("classroom %s: %s", handler.__name__, e)
            lang = language(sid, handler.__name__, data)
            return {"ok": False, "error": translate(lang, UNAVAILABLE)}
        except Exception:
            log.exception("classroom %s failed", handler.__name__)
            return {"ok": False, "error": translate(language(sid, "", None), FAILED)}

    return wrapper


def said(lang: str, e: ClassError) -> str:
    """What `e` says after its field, in `lang`: its catalog message, or, for the English a
    check elsewhere wrote (the lab's gate on `state`, the quiz's on `answer`), its shape's."""
    return translate_error(lang, translate(lang, e.message, **e.values))


def _single(args: tuple) -> object:
    """Return the one argument an event carries (None when absent, so the check says so)."""
    return args[0] if len(args) == 1 else None if not args else list(args)


def room(code: str) -> str:
    return f"class:{code}"


def teachers(code: str) -> str:
    return f"class:{code}:teachers"


def readers(code: str, lang: str) -> str:
    return f"class:{code}:lang:{lang}"


class _Handlers:
    """The `/class` events of one app; each returns the ack's fields or raises a refusal."""

    def __init__(self, app: Flask, server: socketio.Server, classroom: Classroom) -> None:
        config = app.config
        self.server = server
        self.classroom = classroom
        self.config = config
        self.noted = app.extensions["bad_input_log"]
        self.clients = Clients(config["CLASS_NETWORKS"])
        drive = (config["CLASS_DRIVE_RATE_PER_S"], config["CLASS_DRIVE_BURST"])
        answers = (config["CLASS_ANSWER_RATE_PER_S"], config["CLASS_ANSWER_BURST"])
        self.teacher_rate = TokenBuckets("teacher events", *drive)
        self.answer_rate = TokenBuckets("poll answers", *answers)
        self.join_rate = TokenBuckets("room joins", *answers)
        self.create_rate = TokenBuckets(
            "rooms created from this address",
            config["CLASS_CREATE_RATE_PER_S"],
            config["CLASS_CREATE_BURST"],
        )
        self.members: dict[str, Joined] = {}  # sid -> its place, for this process's connections
        self._lock = threading.Lock()  # one drive stored and emitted at a time: seq in order
        self._started = False

    # -- events -------------------------------------------------------------------------------

    def room_create(self, sid: str, data: object) -> dict:
        data = fields({} if data is None else data, "room_create", ("lang",))
        checks.language(data.get("lang"))  # refusals to this connection are in its language
        self.create_rate.take(self.clients.key(self._address(sid)))
        code, token = self.classroom.create()
        return {"code": code, "teacher_token": token}

    def room_join(self, sid: str, data: object) -> dict:
        data = fields(data, "room_join", ("code", "name", "teacher_token", "member_id", "lang"))
        self.join_rate.take(sid)
        self._start_with_first_member()
        joined = self.classroom.join(
            sid,
            data.get("code"),
            data.get("name"),
            data.get("teacher_token"),
            data.get("member_id"),
            data.get("lang"),
        )
        previous = self._remember(sid, joined)
        if previous is not None and previous.code != joined.code:
            self._left(sid, previous)
        self.server.enter_room(sid, room(joined.code), namespace=NAMESPACE)
        if joined.role == "teacher":
            self.server.enter_room(sid, teachers(joined.code), namespace=NAMESPACE)
        else:
            self.server.leave_room(sid, teachers(joined.code), namespace=NAMESPACE)
        for lang in LANGUAGES:  # in its language's room only: a rejoin may change it
            if lang == joined.lang:
                self.server.enter_room(sid, readers(joined.code, lang), namespace=NAMESPACE)
            else:
                self.server.leave_room(sid, readers(joined.code, lang), namespace=NAMESPACE)
        self._members_changed(joined.code, joined.presence)
        # Read after entering the room: a drive from now on reaches this member as room_state.
        landing = self.classroom.snapshot(joined.code, joined.member_id, joined.lang)
        return {
            "code": joined.code,
            "role": joined.role,
            "member_id": joined.member_id,
            "members": joined.presence.students,
            **landing,
        }

    def room_leave(self, sid: str, data: object) -> dict:
        data = fields(data, "room_leave", ("code",))
        self.join_rate.take(sid)
        self._left(sid, self._member(sid, data.get("code")))
        return {}

    def room_drive(self, sid: str, data: object) -> dict:
        data = fields(data, "room_drive", ("code", "teacher_token", "state"))
        self.teacher_rate.take(sid)
        code = checks.code(data.get("code"))
        check = functools.partial(parse_state, config=self.config)
        with self._lock:  # stored and sent in seq order
            state, seq = self.classroom.drive(
                code, data.get("teacher_token"), data.get("state"), check
            )
            self._emit("room_state", {"state": state, "seq": seq}, room(code))
        return {"seq": seq}

    def poll_open(self, sid: str, data: object) -> dict:
        data = fields(data, "poll_open", ("code", "teacher_token", "question_id"))
        self.teacher_rate.take(sid)
        code = checks.code(data.get("code"))
        record = self.classroom.open_poll(code, data.get("teacher_token"), data.get("question_id"))
        for lang in LANGUAGES:
            self._emit("poll", polls.public_poll(record, lang), readers(code, lang))
        ack = {"poll_id": record["poll_id"]}
        if record["note"]:
            note = record["note"]
            ack["note"] = translate(self.language(sid), note["message"], **note["values"])
        return ack

    def poll_answer(self, sid: str, data: object) -> dict:
        data = fields(data, "poll_answer", ("code", "poll_id", "answer"))
        self.answer_rate.take(sid)
        member = self._member(sid, data.get("code"))
        if "answer" not in data:
            raise ClassError("answer", N_("missing"))
        tally = self.classroom.answer(member, data.get("poll_id"), data["answer"])
        presence = self.classroom.presence(member.code)
        payload = {
            "poll_id": data["poll_id"],
            "counts": tally.counts,
            "answered": tally.answered,
            "right": tally.right,
            "members": presence.students if presence else 0,
            "seq": tally.seq,
        }
        self._emit("poll_tally", payload, teachers(member.code))
        return {}

    def poll_reveal(self, sid: str, data: object) -> dict:
        data = fields(data, "poll_reveal", ("code", "teacher_token", "poll_id"))
        self.teacher_rate.take(sid)
        code = checks.code(data.get("code"))
        results = self.classroom.reveal(code, data.get("teacher_token"), data.get("poll_id"))
        for lang, result in results.items():
            self._emit("poll_result", result, readers(code, lang))
        return {}

    def room_end(self, sid: str, data: object) -> dict:
        data = fields(data, "room_end", ("code", "teacher_token"))
        self.teacher_rate.take(sid)
        code = self.classroom.end(data.get("code"), data.get("teacher_token"))
        self._emit("room_ended", {"code": code}, room(code))
        self.server.close_room(room(code), namespace=NAMESPACE)
        self.server.close_room(teachers(code), namespace=NAMESPACE)
        for lang in LANGUAGES:
            self.server.close_room(readers(code, lang), namespace=NAMESPACE)
        with self._lock:
            for gone in [s for s, m in self.members.items() if m.code == code]:
                del self.members[gone]
        return {}

    # -- connections --------------------------------------------------------------------------

    def disconnect(self, sid: str, reason: str | None = None) -> None:
        """Take a connection that went away out of its room, and forget its rate buckets."""
        if self.server.manager.is_connected(sid, NAMESPACE):
            return  # a client *sent* an event named "disconnect": it must not reset its limits
        for buckets in (self.teacher_rate, self.answer_rate, self.join_rate):
            buckets.forget(sid)
        with self._lock:
            joined = self.members.pop(sid, None)
        if joined is not None:
            try:
                self._left(sid, joined, forget=False)
            except StoreUnavailable as e:
                log.warning("classroom disconnect: %s", e)

    def undecodable(self, sid: str, *args) -> dict:
        reason = args[0] if args and isinstance(args[0], str) else "invalid JSON"
        self.noted.note(self._address(sid), f"malformed /class event ({reason})")
        return {"ok": False, "error": f"payload: the message could not be decoded ({reason})"}

    def unknown(self, *args) -> dict:
        """Answer an event `/class` does not know (acked only if the client asked)."""
        name, sid = caught_event(self.server, NAMESPACE, args)
        self.noted.note(self._address(sid), f"unknown /class event {name!r}")
        return {"ok": False, "error": f"unknown event {name!r}; known events: {', '.join(EVENTS)}"}

    # -- helpers ------------------------------------------------------------------------------

    def language(self, sid: str, event: str = "", data: object = None) -> str:
        """The language `sid` reads: what this event says (room_create, room_join), else what
        its join said, else English."""
        if event in SAYS_LANGUAGE and isinstance(data, dict) and data.get("lang") in LANGUAGES:
            return data["lang"]
        with self._lock:
            joined = self.members.get(sid)
        return joined.lang if joined is not None else DEFAULT

    def _member(self, sid: str, code: object) -> Joined:
        """Return this connection's place in room `code`, or raise: it must have joined it."""
        wanted = checks.code(code)
        with self._lock:
            joined = self.members.get(sid)
        if joined is None or joined.code != wanted:
            raise ClassError(
                "code", N_("this connection has not joined room %(code)s"), code=wanted
            )
        return joined

    def _remember(self, sid: str, joined: Joined) -> Joined | None:
        with self._lock:
            previous = self.members.get(sid)
            self.members[sid] = joined
        return previous

    def _left(self, sid: str, joined: Joined, forget: bool = True) -> None:
        """Take `sid` out of `joined`'s room, here and in the store, and tell the teachers."""
        if forget:
            with self._lock:
                if self.members.get(sid) == joined:
                    del self.members[sid]
            self.server.leave_room(sid, room(joined.code), namespace=NAMESPACE)
            self.server.leave_room(sid, teachers(joined.code), namespace=NAMESPACE)
            self.server.leave_room(sid, readers(joined.code, joined.lang), namespace=NAMESPACE)
        presence = self.classroom.leave(sid, joined.code)
        if presence is not None:
            self._members_changed(joined.code, presence)

    def _members_changed(self, code: str, presence) -> None:
        self._emit("room_members", {"count": presence.students}, teachers(code))

    def _emit(self, event: str, payload: dict, to: str) -> None:
        self.server.emit(event, payload, to=to, namespace=NAMESPACE)

    def _address(self, sid: str) -> str:
        environ = self.server.get_environ(sid, NAMESPACE) or {}
        return environ.get("REMOTE_ADDR") or "unknown"

    def _start_with_first_member(self) -> None:
        """Start this process's heartbeat (see app/classroom/store.py) and load the quiz bank.

        The bank loads in the background so the first poll answered on this process does not
        wait for it: on a second process behind Redis that wait was most of a poll's latency.
        """
        if self._started:
            return
        self.classroom.heartbeat()  # the first beat before the first member counts
        with self._lock:
            if self._started:
                return
            self._started = True
        self.server.start_background_task(heartbeat.beat_forever, self.server, self.classroom)
        self.server.start_background_task(self.classroom.warm_bank)
