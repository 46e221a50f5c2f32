"""Which simulations the lab takes on, and where they compute: run caps, a memory budget, lanes.

The engine runs on the server, for Socket.IO streams and `POST /api/simulate` alike, so both
ask `Admission.admit` first:
- **At most `LAB_RUNS_PER_ADDRESS` runs per client address** (IPv6: per /64), at once. A
  connection runs one simulation at a time, but one address could open hundreds of
  connections and take every run slot. Addresses in CLASS_NETWORKS (a school's NAT) get
  `LAB_RUNS_PER_CLASS_ADDRESS`, a class's worth. Past it: HTTP 429, or an ack
  `{ok: false, error, retry_after_s}`.
- **At most `MAX_ACTIVE_RUNS` runs over all clients.** Past it: 503, "server busy".
- **A memory budget, `LAB_MEMORY_BUDGET_MB`.** Each run reserves an upper bound of the memory
  it will hold (`stream_bytes`, `document_bytes`: measured, see below) and is refused with 503
  when the reservations of the runs under way and its own would exceed the budget. A stream
  shrinks its reservation to what it really keeps once its payloads are encoded and the
  engine's trace is freed (`resize`). Runs of at most `LAB_SMALL_RUN_RANKS` ranks may use the
  whole budget; larger ones leave an eighth of it to them, so a flood of large runs cannot
  lock a learner's 8-rank run out.
`release` gives a run's share back when its task (or HTTP response) ends.

Then `Lanes` decides where the CPU work (the engine, and encoding its payloads) happens. Its
cost grows with the rank count squared (steps x cells changed per step) and hardly with
`elements`: on this 2-core machine ring allreduce on 8 ranks costs about 8 ms, on 64 ranks
0.3-0.8 s whatever `elements` is. Large runs take one of `LAB_LARGE_RUNS_AT_ONCE` slots; small
runs have slots of their own, so a flood of 64 x 4096 runs queues behind itself while an
8-rank run starts at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import threading
from collections import Counter
from collections.abc import Callable, Iterator

from app.collectives import buffer_length
from app.collectives.registry import REGISTRY

from ..params import SimParams
from .clients import Clients

MIB = 1 << 20
BUSY_RETRY_S = 2  # what a client is told to wait when the server has no room for its run
SMALL_SHARE = 8  # large runs leave 1/SMALL_SHARE of the memory budget to small runs

# The memory bound of one run, fitted over tracemalloc peaks of the code that runs it (every
# algorithm at 1-64 ranks, smallest to largest elements; tests/web/test_admission.py measures
# the worst cases again and checks the bound holds), with a margin of at least 11%:
# - numpy: the inputs, the working buffers, the reference and the outputs, 16 bytes per cell
#   of float32 (cells = ranks x working-buffer length, at most LAB_MAX_CELLS);
# - the trace and the encoded payloads: per cell a step changes, its holders, preview, the
#   transfer that changed it and their JSON; the holders list grows with the rank count. No
#   algorithm changes more cells than Bruck's all-to-all, p^2/2 a step over log2(p) steps, or
#   the ring's 2p(p-1) (`cell_updates_bound`).
# - the HTTP document also holds every rank's output and the reference as Python floats
#   (2 x cells at most), every step as dicts, and, while Python 3.11's json encoder runs, up
#   to 100,000 pieces of text of about 64 bytes before it joins them.
# Measured, the largest stream (ring allreduce, 64 x 4096) peaks at 10.8 MB and Bruck's
# all-to-all on 64 ranks at 14.7 MB (bound: 23.3 MB); the largest document at 45.6 MB
# (bound: 76.9 MB); the lab's default 8 x 64 at 0.2 / 0.4 MB.
BASE_BYTES = 256 * 1024
NUMPY_BYTES_PER_CELL = 20
UPDATE_BYTES = 900
UPDATE_BYTES_PER_RANK = 10
DOCUMENT_BYTES_PER_CELL = 72
DOCUMENT_UPDATE_BYTES = 600
DOCUMENT_UPDATE_BYTES_PER_RANK = 30
JSON_PIECE_BYTES = 64
JSON_PIECES = 100_000


class Busy(Exception):
    """The server has no room for a run now; the message names the limit it would pass."""

    def __init__(self, message: str, status: int = 503, retry_after_s: int | None = BUSY_RETRY_S):
        super().__init__(message)
        self.status = status  # 429: the client's own address is at its cap; 503: the server
        self.retry_after_s = retry_after_s  # None: retrying will not help


@dataclasses.dataclass(eq=False)
class Ticket:
    """One admitted run's claim: whose address it counts against, and the bytes it reserves."""

    key: str
    nbytes: int
    small: bool


def cells(p: SimParams) -> int:
    """Return ranks x working-buffer length: the values one run's numpy buffers hold."""
    return p.ranks * buffer_length(p.collective, p.ranks, p.elements)


def cell_updates_bound(ranks: int, factor: float = 1.0) -> int:
    """Return at least how many (rank, chunk) cells an algorithm's steps change in all: the
    usual bound, times the `cell_updates_factor` the catalog's registry gives the algorithm."""
    if ranks < 2:
        return 0
    return math.ceil(factor * ranks * ranks * max(2.0, math.ceil(math.log2(ranks)) / 2))


def _updates_bound(p: SimParams) -> int:
    """Return `cell_updates_bound` for the algorithm `p` runs."""
    return cell_updates_bound(p.ranks, REGISTRY[(p.collective, p.algorithm)].cell_updates_factor)


def stream_bytes(p: SimParams) -> int:
    """Return an upper bound of the memory a Socket.IO run holds at its peak.

    The peak comes while its payloads are encoded with the engine's trace still alive.
    """
    per_update = UPDATE_BYTES + UPDATE_BYTES_PER_RANK * p.ranks
    return BASE_BYTES + NUMPY_BYTES_PER_CELL * cells(p) + per_update * _updates_bound(p)


def document_bytes(p: SimParams) -> int:
    """Return an upper bound of the memory `POST /api/simulate` holds for one run."""
    n, updates = cells(p), _updates_bound(p)
    per_update = DOCUMENT_UPDATE_BYTES + DOCUMENT_UPDATE_BYTES_PER_RANK * p.ranks
    pieces = min(JSON_PIECES, 4 * n + (p.ranks + 12) * updates)
    return (
        stream_bytes(p)
        + DOCUMENT_BYTES_PER_CELL * n
        + per_update * updates
        + (JSON_PIECE_BYTES * pieces)
    )


def too_long(p: SimParams, total_steps: int, max_run_s: float) -> str | None:
    """Say why a stream paced at `p.interval_ms` would last too long, or None if it would not."""
    pauses = total_steps - 1
    if pauses < 1 or p.interval_ms * pauses <= max_run_s * 1000:
        return None
    highest = int(max_run_s * 1000 // pauses)
    return (
        f"interval_ms must be at most {highest} for this run: its {total_steps} steps "
        f"{p.interval_ms} ms apart would take {p.interval_ms * pauses / 1000:g} s, and a run "
        f"may last at most {max_run_s:g} s"
    )


def _mb(nbytes: int) -> str:
    return f"{nbytes / MIB:.1f}"


class Admission:
    """Count the runs under way per address and overall, and the memory they reserve."""

    def __init__(
        self,
        max_runs: int,
        per_address: int | None = None,
        per_class_address: int | None = None,
        class_networks: str = "",
        budget_bytes: int | None = None,
    ) -> None:
        self.max_runs = max_runs
        self.per_address = per_address
        self.per_class_address = per_class_address
        self.clients = Clients(class_networks)
        self.budget_bytes = budget_bytes
        self._lock = threading.Lock()
        self._tickets: set[Ticket] = set()
        self._per_key: Counter[str] = Counter()
        self._bytes = 0
        # Called, on the releasing thread, when the last run (Socket.IO or HTTP) has ended.
        self.on_idle: Callable[[], None] | None = None

    def admit(
        self, address: str, nbytes: int, small: bool, replacing: Ticket | None = None
    ) -> Ticket:
        """Reserve room for a run from `address`, or raise Busy naming the limit.

        `replacing` is the run this one replaces (the same client's previous run): it is
        being cancelled, so it counts against neither cap nor the budget.
        """
        key = self.clients.key(address)
        with self._lock:
            gone = replacing if replacing in self._tickets else None
            runs = len(self._tickets) - (gone is not None)
            if runs >= self.max_runs:
                raise Busy(
                    f"server busy: {self.max_runs} simulations are running; "
                    f"retry in {BUSY_RETRY_S} s"
                )
            cap = self._cap(address)
            mine = self._per_key[key] - (gone is not None and gone.key == key)
            if cap is not None and mine >= cap:
                raise Busy(
                    f"too many simulations from your address: at most {cap} may run at once; "
                    f"retry in {BUSY_RETRY_S} s, once one has ended or been cancelled",
                    status=429,
                )
            self._check_budget(nbytes, small, runs, self._bytes - (gone.nbytes if gone else 0))
            ticket = Ticket(key, nbytes, small)
            self._tickets.add(ticket)
            self._per_key[key] += 1
            self._bytes += nbytes
        return ticket

    def _cap(self, address: str) -> int | None:
        """Return how many runs `address` may have at once (None: no cap of its own)."""
        return self.per_class_address if self.clients.is_class(address) else self.per_address

    def _check_budget(self, nbytes: int, small: bool, runs: int, used: int) -> None:
        """Raise Busy if `nbytes` more would not fit in the budget (large runs leave a share)."""
        budget = self.budget_bytes
        if budget is None:
            return
        room = budget if small else budget - budget // SMALL_SHARE
        if nbytes > room:
            raise Busy(
                f"this simulation needs about {_mb(nbytes)} MB, more than the {_mb(room)} MB "
                f"of the server's memory budget it may use; use fewer ranks or elements",
                retry_after_s=None,
            )
        if used + nbytes > room:
            raise Busy(
                f"server busy: {runs} simulations use {_mb(used)} MB of the {_mb(budget)} MB "
                f"memory budget and this one needs {_mb(nbytes)} MB; retry in {BUSY_RETRY_S} s"
            )

    def resize(self, ticket: Ticket, nbytes: int) -> None:
        """Change what `ticket` reserves (a run that freed its engine buffers keeps less)."""
        with self._lock:
            if ticket in self._tickets:
                self._bytes += nbytes - ticket.nbytes
            ticket.nbytes = nbytes

    def release(self, ticket: Ticket | None) -> None:
        """Give back a run's share: its task or its response has ended."""
        if ticket is None:
            return
        with self._lock:
            if ticket not in self._tickets:
                return
            self._tickets.discard(ticket)
            self._per_key[ticket.key] -= 1
            if not self._per_key[ticket.key]:
                del self._per_key[ticket.key]
            self._bytes -= ticket.nbytes
            emptied = not self._tickets
        if emptied and self.on_idle is not None:
            self.on_idle()

    def idle(self) -> bool:
        """Say whether no run holds a ticket."""
        with self._lock:
            return not self._tickets

    def usage(self) -> dict:
        """Return the runs under way, the bytes they reserve and the budget (for tests, bench)."""
        with self._lock:
            return {
                "runs": len(self._tickets),
                "bytes": self._bytes,
                "budget_bytes": self.budget_bytes,
                "addresses": dict(self._per_key),
            }


class Lanes:
    """Slots for the engine's work: small runs and large runs each have their own."""

    def __init__(self, small_ranks: int, large_slots: int, small_slots: int | None = None) -> None:
        self.small_ranks = small_ranks
        self._large = threading.BoundedSemaphore(max(1, large_slots))
        # Small runs cost milliseconds; their own slots keep them from piling onto the GIL.
        self._small = threading.BoundedSemaphore(small_slots or max(2, os.cpu_count() or 2))

    def is_small(self, p: SimParams) -> bool:
        return p.ranks <= self.small_ranks

    @contextlib.contextmanager
    def slot(self, small: bool) -> Iterator[None]:
        """Hold a slot of the small or the large lane while the engine's work runs."""
        lane = self._small if small else self._large
        with lane:
            yield


def from_config(config) -> tuple[Admission, Lanes]:
    """Build the admission and the lanes from an app's settings (a cap of 0 or None: none)."""
    budget_mb = config.get("LAB_MEMORY_BUDGET_MB")
    admission = Admission(
        max_runs=config["MAX_ACTIVE_RUNS"],
        per_address=config.get("LAB_RUNS_PER_ADDRESS") or None,
        per_class_address=config.get("LAB_RUNS_PER_CLASS_ADDRESS") or None,
        class_networks=config.get("CLASS_NETWORKS", ""),
        budget_bytes=int(budget_mb * MIB) if budget_mb else None,
    )
    lanes = Lanes(config.get("LAB_SMALL_RUN_RANKS", 16), config.get("LAB_LARGE_RUNS_AT_ONCE", 2))
    return admission, lanes
