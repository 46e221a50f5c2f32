"""One run's events on their way to its client: emitted as fast as the client takes them.

engine.io queues every packet until the client's transport takes it (app/web/live/send_queue.py).
A stream asks its `Outbox` to send each event; the outbox waits while the client is too far
behind (`Pacing`) and ends the run of a client that takes nothing for too long.
"""

from __future__ import annotations

import dataclasses

import socketio

from app.i18n.errors import translate_error

from . import send_queue
from .runs import Run
from .socket_json import Encoded, encode

ROOM_SLICE_S = 0.01  # how often a stream waiting for its client looks at the client's queue


@dataclasses.dataclass(frozen=True)
class Pacing:
    """How far a stream may run ahead of its client, and how long a paced run may last."""

    queue_bytes: int | None = None  # wait while more than this waits to be sent to the client
    stall_s: float = 15.0  # end the run when the client takes nothing for this long
    max_run_s: float | None = None  # refuse an interval_ms that would hold a run longer

    @classmethod
    def from_config(cls, config) -> Pacing:
        return cls(  # 0 or None: no bound
            queue_bytes=config.get("LAB_SEND_QUEUE_BYTES") or None,
            stall_s=config.get("LAB_SEND_STALL_S", cls.stall_s),
            max_run_s=config.get("LAB_MAX_RUN_S") or None,
        )


DEFAULT_PACING = Pacing()


class Outbox:
    """Emit one run's events to its client, waiting while the client is too far behind.

    engine.io queues every packet until the client's transport takes it (see
    app/web/live/send_queue.py). While more than `pacing.queue_bytes` wait, the stream waits too;
    a client that takes nothing for `pacing.stall_s` loses the run, with a sim_error it will
    read if it ever reads again.
    """

    def __init__(self, server: socketio.Server, run: Run, pacing: Pacing) -> None:
        self.server = server
        self.run = run
        self.pacing = pacing
        self.sent = 0  # events emitted so far

    def waiting(self) -> int:
        return send_queue.pending_bytes(self.server, self.run.sid)

    def has_room(self) -> bool:
        bound = self.pacing.queue_bytes
        return bound is None or self.waiting() <= bound

    def send_early(self, event: str, body: str) -> None:
        """Emit sim_start, then the first sim_step, now if the client has room for them."""
        position = 0 if event == "sim_start" else 1
        if self.sent == position and self.has_room():
            self._emit(event, body)

    def send(self, event: str, body: str) -> bool:
        """Emit `event` once the client has room; False if the run was cancelled meanwhile."""
        if not self._wait_for_room():
            return False
        return self._emit(event, body)

    def fail(self, message: str) -> None:
        """End the run with sim_error `message` (nothing if it was cancelled)."""
        message = translate_error(self.run.lang, message)
        payload = Encoded(encode({"error": message}), self.run.run_id)
        self.run.end_with(
            lambda: send_queue.emit_to(self.server, self.run.sid, "sim_error", payload)
        )

    def _emit(self, event: str, body: str) -> bool:
        payload = Encoded(body, self.run.run_id)  # the run's id goes in front as it is sent
        emitted = self.run.emit_unless_cancelled(
            lambda: send_queue.emit_to(self.server, self.run.sid, event, payload)
        )
        self.sent += emitted
        return emitted

    def _wait_for_room(self) -> bool:
        """Wait until the client's queue is under the bound; end the run if it stalls."""
        stalled = 0.0
        last = None
        while not self.has_room():
            if self.run.cancelled:
                return False
            waiting = self.waiting()
            stalled = 0.0 if last is not None and waiting < last else stalled
            last = waiting
            if stalled >= self.pacing.stall_s:
                self.fail(
                    f"your connection is not keeping up: run cancelled ({waiting} bytes were "
                    f"still waiting to be sent after {self.pacing.stall_s:g} s)"
                )
                return False
            self.server.sleep(ROOM_SLICE_S)
            stalled += ROOM_SLICE_S
        return not self.run.cancelled
