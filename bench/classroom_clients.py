"""The classroom benchmark's other processes: students, independent learners, a bare server.

`bench/classroom.py` starts these with `python -m bench.classroom_clients ROLE ...`, each its
own OS process so the clients' CPU is spread over processes as a room of browsers' would be:

- `students`: N python-socketio clients join room CODE on namespace `/class` (spread over the
  given server URLs), print one JSON line `{"ready": ...}`, then record every `room_state`
  (seq, time) and `poll`; each answers a poll at a random moment within `--answer-window`
  seconds. On the line `stop` (or end of input) they leave and print one JSON line of what
  they saw.
- `learners`: N lab clients (bench/load.py's `LabClient`) connect, print `{"ready": ...}`,
  wait for `go`, run the load test's closed loop for `--seconds`, and print their tally.
- `bare-server`: the library's ceiling: a minimal python-socketio server (threading mode,
  Werkzeug's threaded server, as bench/streaming.py's bare server) that answers the same
  `/class` events with no checks and no store, and broadcasts each drive's `room_state` to
  the room; `--message-queue` puts Redis between several of them.

Times are `time.monotonic()`, one clock for every process on the machine.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import random
import secrets
import sys
import threading
import time
from collections import Counter

from .common import HOST, OrderedClient, no_delay, own_cpu_seconds
from .load import CONNECT_WORKERS, PARAMS, LabClient, Tally, parallel

NAMESPACE = "/class"
JOIN_TIMEOUT_S = 30.0


# --------------------------------------------------------------------------- students


class Student:
    """One student's connection: joins the room, records room_state and polls, answers."""

    def __init__(self, index: int, url: str, code: str, answer_window_s: float) -> None:
        self.index = index
        self.url = url
        self.code = code
        self.answer_window_s = answer_window_s
        self.sio = OrderedClient(reconnection=False)
        self.states: list[tuple[int, float]] = []  # (seq, received)
        self.polls: list[tuple[str, float]] = []  # (poll_id, received)
        self.answers: list[dict] = []
        self.error: str | None = None
        self.sio.on("room_state", self._on_state, namespace=NAMESPACE)
        self.sio.on("poll", self._on_poll, namespace=NAMESPACE)
        self.sio.on("disconnect", self._on_disconnect, namespace=NAMESPACE)
        self.disconnected: float | None = None

    def join(self) -> None:
        self.sio.connect(
            self.url, namespaces=[NAMESPACE], transports=["websocket"], wait_timeout=10
        )
        ack = self.sio.call(
            "room_join",
            {"code": self.code, "name": f"student {self.index}"},
            namespace=NAMESPACE,
            timeout=JOIN_TIMEOUT_S,
        )
        if not (isinstance(ack, dict) and ack.get("ok")):
            raise RuntimeError(f"room_join refused: {ack!r}"[:200])

    # handlers run on the client's read thread, in order: they must not block
    def _on_state(self, data: dict) -> None:
        self.states.append((data.get("seq", -1), time.monotonic()))

    def _on_disconnect(self, *reason) -> None:
        self.disconnected = time.monotonic()

    def _on_poll(self, data: dict) -> None:
        self.polls.append((data.get("poll_id"), time.monotonic()))
        if self.answer_window_s > 0:
            delay = random.Random(f"{self.index}:{data.get('poll_id')}").uniform(
                0, self.answer_window_s
            )
            threading.Timer(delay, self._answer, args=(data,)).start()

    def _answer(self, poll: dict) -> None:
        """Answer with option index % the options: the expected tally is known exactly."""
        options = (poll.get("question") or {}).get("options") or [{"id": "x"}]
        choice = options[self.index % len(options)]["id"]
        record = {"poll_id": poll.get("poll_id"), "answer": choice, "sent": time.monotonic()}
        self.answers.append(record)
        body = {"code": self.code, "poll_id": poll.get("poll_id"), "answer": choice}
        try:
            self.sio.emit(
                "poll_answer",
                body,
                namespace=NAMESPACE,
                callback=lambda ack=None: _acked(record, ack),
            )
        except Exception as exc:  # noqa: BLE001 - a client that lost its connection
            record["ok"], record["error"] = False, f"emit: {exc!r}"[:200]

    def report(self) -> dict:
        return {
            "states": self.states,
            "polls": self.polls,
            "answers": self.answers,
            "error": self.error,
            "disconnected": self.disconnected,
        }


def _acked(record: dict, ack: object) -> None:
    record["ok"] = isinstance(ack, dict) and ack.get("ok") is True
    record["acked"] = time.monotonic()
    if not record["ok"]:
        record["error"] = repr(ack)[:200]


def students(urls: list[str], code: str, count: int, first: int, window_s: float) -> None:
    pool = [Student(first + i, urls[(first + i) % len(urls)], code, window_s) for i in range(count)]

    def join(student: Student) -> None:
        try:
            student.join()
        except Exception as exc:  # noqa: BLE001 - reported with the results
            student.error = f"join: {exc!r}"[:200]

    parallel(join, pool, CONNECT_WORKERS, 120)
    joined = sum(s.error is None for s in pool)
    _say({"ready": len(pool), "joined": joined, "errors": [s.error for s in pool if s.error]})
    _wait_for_line("stop")
    parallel(lambda s: s.sio.disconnect(), pool, CONNECT_WORKERS, 30)
    _say({"students": [s.report() for s in pool]})


# --------------------------------------------------------------------------- learners


def learners(urls: list[str], count: int, first: int, seconds: float) -> None:
    pool = [LabClient(urls[(first + i) % len(urls)]) for i in range(count)]
    failures = parallel(lambda c: c.connect(), pool, CONNECT_WORKERS, 60)
    connected = [c for c in pool if c.sio.connected]
    _say({"ready": len(pool), "connected": len(connected)})
    _wait_for_line("go")
    cpu0 = own_cpu_seconds()
    deadline = time.monotonic() + seconds

    def loop(client: LabClient) -> None:
        while time.monotonic() < deadline and not client.disconnected:
            client.run_once(PARAMS, timeout=max(1.0, deadline + 30 - time.monotonic()))
            if client.retry_after:  # a well-behaved client waits as long as it was told
                time.sleep(min(client.retry_after, 5.0, max(0.0, deadline - time.monotonic())))

    threads = [threading.Thread(target=loop, args=(c,), daemon=True) for c in connected]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 60)
    parallel(lambda c: c.disconnect(), pool, CONNECT_WORKERS, 30)
    tally = Tally()
    for c in pool:
        tally.merge(c.tally)
    tally.errors.update(Counter(f"connect: {e!r}"[:120] for e in failures))
    # Not dataclasses.asdict: it rebuilds a Counter from its (key, count) pairs, as keys.
    cpu = own_cpu_seconds() - cpu0
    _say({"tally": {f.name: getattr(tally, f.name) for f in dataclasses.fields(tally)}, "cpu": cpu})


def tally_from(data: dict) -> Tally:
    """The `Tally` a learners process printed."""
    fields = {**data, "refusals": Counter(data["refusals"]), "errors": Counter(data["errors"])}
    return Tally(**fields)


# --------------------------------------------------------------------------- bare server


def serve_bare(port: int, queue: str | None) -> None:
    """The library's ceiling: `/class` answered by a minimal python-socketio server."""
    import socketio
    from werkzeug.serving import run_simple

    manager = socketio.RedisManager(queue) if queue else None
    sio = socketio.Server(
        async_mode="threading", client_manager=manager, async_handlers=False, json=json
    )
    rooms: dict[str, dict] = {}  # code -> seq and state (each process its own: no store)
    lock = threading.Lock()

    def create(sid, data):
        code = secrets.token_hex(3).upper()
        rooms[code] = {"seq": 0, "state": None}
        return {"ok": True, "code": code, "teacher_token": secrets.token_urlsafe(16)}

    def join(sid, data):
        code = data["code"]
        room = rooms.setdefault(code, {"seq": 0, "state": None})
        sio.enter_room(sid, f"class:{code}", namespace=NAMESPACE)
        role = "teacher" if data.get("teacher_token") else "student"
        if role == "teacher":
            sio.enter_room(sid, f"class:{code}:teachers", namespace=NAMESPACE)
        member = secrets.token_hex(8)
        return {"ok": True, "role": role, "member_id": member, "members": 0, **room}

    def drive(sid, data):
        code = data["code"]
        with lock:
            room = rooms.setdefault(code, {"seq": 0, "state": None})
            room["seq"] += 1
            room["state"] = data["state"]
            body = {"state": data["state"], "seq": room["seq"]}
        sio.emit("room_state", body, to=f"class:{code}", namespace=NAMESPACE)
        return {"ok": True, "seq": body["seq"]}

    for event, handler in (("room_create", create), ("room_join", join), ("room_drive", drive)):
        sio.on(event, handler, namespace=NAMESPACE)

    def health(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    with contextlib.suppress(KeyboardInterrupt):
        run_simple(HOST, port, no_delay(socketio.WSGIApp(sio, health)), threaded=True)


# --------------------------------------------------------------------------- plumbing


def _say(obj: dict) -> None:
    print(json.dumps(obj), flush=True)


def _wait_for_line(word: str) -> None:
    for line in sys.stdin:
        if line.strip() == word:
            return


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.classroom_clients", description=__doc__)
    parser.add_argument("role", choices=("students", "learners", "bare-server"))
    parser.add_argument("--urls", default="", help="comma-separated server URLs")
    parser.add_argument("--code", default="")
    parser.add_argument("--count", type=int, default=25)
    parser.add_argument("--first", type=int, default=0, help="index of the first client")
    parser.add_argument("--answer-window", type=float, default=0.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--message-queue", default=None)
    parser.add_argument("--host", default=HOST)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    urls = [u for u in args.urls.split(",") if u]
    count = max(1, min(args.count, 200))
    if args.role == "students":
        students(urls, args.code, count, args.first, args.answer_window)
    elif args.role == "learners":
        learners(urls, count, args.first, min(args.seconds, 60.0))
    else:
        if args.host != HOST:
            parser.error("the bare server binds 127.0.0.1 only")
        serve_bare(args.port, args.message_queue)
    return 0


if __name__ == "__main__":
    sys.exit(main())
