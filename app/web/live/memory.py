"""Give freed memory back to the system: glibc's mmap threshold and `malloc_trim(0)`.

A large run allocates tens of MB (numpy buffers, the trace, its JSON) across the threads that
stream it. Python frees all of it, but glibc keeps freed memory in its per-thread arenas, so
after floods of large runs the server's RSS stayed 40-100 MB above its baseline
(bench/RESULTS.md). Two things give it back:
- `fix_mmap_threshold`: blocks of 128 KiB and more are always mmapped, so freeing one unmaps it;
- `IdleTrimmer`: when the last live run (Socket.IO or HTTP) ends, glibc is asked to return
  the free pages of its heaps; at most once per `min_interval_s`, so a busy server that
  empties between runs does not trim after every run, and a trim that was due too soon is
  deferred, not dropped.
Where libc has neither function (macOS, musl, Windows) both do nothing. What stays is Python's
own small-object allocator: its 1 MiB arenas go back only once every object in them is freed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

MIN_INTERVAL_S = 1.0
# Blocks from this size up are mmapped and unmapped when freed: glibc's default, made fixed.
MMAP_THRESHOLD = 128 * 1024
_M_MMAP_THRESHOLD = -3  # mallopt's parameter numbers (malloc.h)
_M_ARENA_MAX = -8
# Heaps glibc may keep: its default is 8 per core, one per thread that allocates, and each
# keeps freed memory of its own; HTTP runs on gunicorn's many threads spread over all of them.
ARENA_MAX = 2


def _libc_function(name: str):
    """Return libc's function `name`, or None where there is no such libc or function."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return getattr(libc, name)
    except (OSError, AttributeError, TypeError):
        return None


def _load_malloc_trim() -> Callable[[], int] | None:
    """Return glibc's malloc_trim bound to pad 0, or None where libc has none."""
    trim = _libc_function("malloc_trim")
    if trim is None:
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    # ctypes releases the GIL for the call: streams keep running while glibc trims.
    return lambda: trim(0)


malloc_trim = _load_malloc_trim()


def limit_arenas(count: int = ARENA_MAX) -> bool:
    """Have glibc keep at most `count` heaps; say if it did (MALLOC_ARENA_MAX in the env wins)."""
    return _mallopt("MALLOC_ARENA_MAX", _M_ARENA_MAX, count)


def fix_mmap_threshold(size: int = MMAP_THRESHOLD) -> bool:
    """Have glibc mmap every block of `size` bytes or more; say if it did.

    glibc starts at 128 KiB but raises the threshold to the size of each mmapped block that
    is freed (up to 32 MiB), after which a large run's numpy buffers and JSON come from the
    per-thread heaps and stay there. A fixed threshold keeps them mmapped, so freeing them
    returns them at once. An explicit MALLOC_MMAP_THRESHOLD_ in the environment wins.
    """
    return _mallopt("MALLOC_MMAP_THRESHOLD_", _M_MMAP_THRESHOLD, size)


def _mallopt(variable: str, parameter: int, value: int) -> bool:
    """Set glibc's malloc `parameter` unless the environment's `variable` sets it; say if set."""
    if variable in os.environ:
        return False
    mallopt = _libc_function("mallopt")
    if mallopt is None:
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return mallopt(parameter, value) == 1


def start_daemon_thread(job: Callable[[], None]) -> None:
    """Run `job` on a thread of its own that never keeps the process alive."""
    threading.Thread(target=job, name="heap-trim", daemon=True).start()


class IdleTrimmer:
    """Trim the heap when the lab goes idle: at most once per `min_interval_s`, never mid-run.

    `on_idle()` is called (by `Admission.release`) on the thread of the run that ended last,
    a Socket.IO stream or an HTTP simulation.
    If a trim ran less than `min_interval_s` ago, the rest of the interval is waited out on the
    `background` thread when one is given (the app gives one: an HTTP simulation releases its
    ticket before its response leaves, which must not wait a second), else on the caller's; only
    one thread waits at a time. Right before trimming it checks `is_idle()` again: a run that
    started meanwhile cancels the trim, and the next time the lab empties asks again.
    """

    def __init__(
        self,
        is_idle: Callable[[], bool],
        trim: Callable[[], object] | None = malloc_trim,
        min_interval_s: float = MIN_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        background: Callable[[Callable[[], None]], object] | None = None,
    ) -> None:
        self.is_idle = is_idle
        self.trim = trim
        self.min_interval_s = min_interval_s
        self.clock = clock
        self.sleep = sleep
        # Runs a trim that must wait off the caller's thread (the app: a daemon thread), so an
        # HTTP simulation's response is not held back by the interval; None waits in place.
        self.background = background
        self.trims = 0  # how many trims ran (the tests and the benchmarks read it)
        self._lock = threading.Lock()
        self._pending = False  # a thread is waiting to trim
        self._again = False  # the lab emptied again while that thread waited or trimmed
        self._last = float("-inf")

    @property
    def available(self) -> bool:
        return self.trim is not None

    def on_idle(self) -> None:
        """The last live run ended: trim now, or once the interval since the last trim is over."""
        if self.trim is None:
            return
        with self._lock:
            if self._pending:
                self._again = True  # the waiting thread looks at the registry once more
                return
            self._pending = True
            wait = self._last + self.min_interval_s - self.clock()
        if wait > 0 and self.background is not None:
            self.background(self._wait_and_trim)
            return
        self._wait_and_trim()

    def _wait_and_trim(self) -> None:
        """Wait out the interval, then trim if the lab is still idle; repeat while it emptied
        again meanwhile. Only the thread that set `_pending` runs this."""
        try:
            while True:
                with self._lock:
                    wait = self._last + self.min_interval_s - self.clock()
                if wait > 0:
                    self.sleep(wait)
                with self._lock:
                    self._again = False  # this check covers every run that ended before it
                if self.is_idle():
                    self._trim()
                with self._lock:
                    if not self._again:
                        self._pending = False
                        return
        except BaseException:
            with self._lock:
                self._pending = False
            raise

    def _trim(self) -> None:
        try:
            self.trim()
        except Exception:  # noqa: BLE001 - a failed trim must never break a run's cleanup
            log.exception("malloc_trim failed")
        with self._lock:
            self._last = self.clock()
            self.trims += 1
