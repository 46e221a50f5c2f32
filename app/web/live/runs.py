"""The lab's runs: each client's current simulation and every run whose task has not ended.

A run holds an admission ticket (app/web/guard/admission.py) from its start until its task ends or
it is cancelled: the caps on runs per address and overall, and the memory budget, count it.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable

from app.i18n import DEFAULT as DEFAULT_LANGUAGE

from ..guard.admission import Admission, Ticket


class Run:
    """One client's simulation: its id, its owner, and the flag its task checks between steps."""

    def __init__(
        self,
        sid: str,
        ticket: Ticket | None = None,
        release: Callable[[Ticket], None] | None = None,
        lang: str = DEFAULT_LANGUAGE,
    ) -> None:
        self.run_id = uuid.uuid4().hex[:16]
        self.sid = sid
        self.lang = lang  # the language its steps are narrated in: its client's
        self.ticket = ticket  # its share of the run caps and the memory budget
        self._release = release  # gives the share back: when the run is cancelled or ends
        self._cancelled = threading.Event()
        self._lock = threading.Lock()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def cancel(self) -> None:
        """Stop the run; once this returns, the run emits nothing more.

        Its share of the caps goes back at once: a replaced run that still waits for an
        engine slot will skip the engine, and the slots bound those still in it.
        """
        with self._lock:
            self._cancelled.set()
        self.release()

    def release(self) -> None:
        """Give back the run's share of the caps and the budget (at most once)."""
        if self._release is not None and self.ticket is not None:
            self._release(self.ticket)

    def emit_unless_cancelled(self, emit: Callable[[], None]) -> bool:
        """Call `emit` unless the run is cancelled, atomically with `cancel`; say if it ran."""
        with self._lock:
            if self._cancelled.is_set():
                return False
            emit()
            return True

    def end_with(self, emit: Callable[[], None]) -> bool:
        """Call `emit` (a last event) and cancel the run, unless it was cancelled already."""
        with self._lock:
            if self._cancelled.is_set():
                return False
            emit()
            self._cancelled.set()
        self.release()
        return True


class RunRegistry:
    """Every run whose task has not ended, and each client's current run; thread-safe.

    Each run holds a ticket of `admission` (app/web/guard/admission.py) from `start` to
    `finish`: the caps on runs per address and overall, and the memory budget, count it until
    its task ends.
    """

    def __init__(self, max_active: int, admission: Admission | None = None) -> None:
        self.max_active = max_active
        self.admission = admission or Admission(max_active)
        self._lock = threading.Lock()
        self._current: dict[str, Run] = {}  # sid -> the run it started last
        self._live: dict[str, Run] = {}  # run_id -> run, until its task ends

    def start(
        self,
        sid: str,
        address: str = "",
        nbytes: int = 0,
        small: bool = True,
        lang: str = DEFAULT_LANGUAGE,
    ) -> Run:
        """Register a new run for `sid`, cancelling the run it replaces; raise Busy.

        `address` is the client's, `nbytes` the memory the run reserves, `small` its lane,
        `lang` the language its steps are narrated in.
        """
        with self._lock:
            previous = self._current.get(sid)
            # The run this one replaces stops at its next step; it does not hold a slot.
            replacing = previous.ticket if previous is not None else None
            ticket = self.admission.admit(address, nbytes, small, replacing=replacing)
            run = Run(sid, ticket, self.admission.release, lang)
            self._current[sid] = run
            self._live[run.run_id] = run
        if previous is not None:
            previous.cancel()
        return run

    def resize(self, run: Run, nbytes: int) -> None:
        """Change the memory `run` reserves: what it keeps once its payloads are encoded."""
        if run.ticket is not None:
            self.admission.resize(run.ticket, nbytes)

    def cancel(self, sid: str, run_id: str | None = None) -> bool:
        """Cancel `sid`'s current run (only if it is `run_id`, when given); say if one was."""
        with self._lock:
            run = self._current.get(sid)
            if run is None or (run_id is not None and run.run_id != run_id):
                return False
            del self._current[sid]
        was_running = not run.cancelled
        run.cancel()
        return was_running

    def finish(self, run: Run) -> None:
        """Forget `run`: its task has ended, and its admission ticket is given back."""
        with self._lock:
            self._live.pop(run.run_id, None)
            if self._current.get(run.sid) is run:
                del self._current[run.sid]
        run.release()

    def idle(self) -> bool:
        """Say whether no run's task is left."""
        with self._lock:
            return not self._live

    def cancel_all(self) -> int:
        """Cancel every run (the server is shutting down); return how many there were."""
        with self._lock:
            live = list(self._live.values())
            self._current.clear()
        for run in live:
            run.cancel()
        return len(live)

    def running(self) -> list[str]:
        """Return the ids of runs whose task has not ended yet."""
        with self._lock:
            return list(self._live)

    def live(self) -> list[Run]:
        """Return the runs whose task has not ended yet (to end them when the server stops)."""
        with self._lock:
            return list(self._live.values())
