"""nccl-tests' algorithm and bus bandwidth, so a learner can read an nccl-tests table.

From nccl-tests `doc/PERFORMANCE.md` and `src/*.cu` (REFERENCE § 2 [PERF]): algbw = S / t
with GB = 1e9, where S is the size column (the cost model's M for every collective), and
busbw = algbw × a per-collective factor that makes busbw comparable to the link bandwidth.
"""

from __future__ import annotations

from .checks import choice, integer
from .terms import COLLECTIVES

MAX_RANKS = 1 << 16


def bus_factor(collective: str, ranks: int) -> float:
    """Return nccl-tests' busbw/algbw factor for `collective` on `ranks` ranks."""
    collective = choice("collective", collective, COLLECTIVES)
    n = integer("ranks", ranks, low=1, high=MAX_RANKS)
    if collective == "allreduce":
        return 2 * (n - 1) / n
    if collective in ("reduce_scatter", "allgather", "all_to_all", "gather", "scatter"):
        return (n - 1) / n
    return 1.0  # broadcast, reduce, sendrecv


def algbw_gbs(message_bytes: float, time_s: float) -> float | None:
    """Return nccl-tests' algbw in GB/s, or None when the time is zero (nothing to move)."""
    return None if time_s <= 0 else message_bytes / time_s / 1e9


def busbw_gbs(collective: str, ranks: int, message_bytes: float, time_s: float) -> float | None:
    """Return nccl-tests' busbw in GB/s, or None when the time is zero."""
    alg = algbw_gbs(message_bytes, time_s)
    return None if alg is None else alg * bus_factor(collective, ranks)
