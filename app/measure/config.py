"""What one measurement run is: a frozen, validated MeasureConfig.

Every error names the field and its allowed range, so the CLI and the /measure page can show it
as it is.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass

from .algorithms import MPICH_ALGORITHMS
from .sizes import parse_bytes

COLLECTIVES = (
    "allreduce",
    "allgather",
    "reduce_scatter",
    "broadcast",
    "reduce",
    "all_to_all",
    "sendrecv",
)
BACKENDS = ("mpi", "torch")
MAX_RANKS = 64
MAX_BYTES = 1 << 30  # 1 GiB: every rank holds a few buffers of this size
MAX_FACTOR = 1024
MAX_WARMUP = 1000
MAX_ITERS = 10_000
MAX_TIME_LIMIT_S = 3600.0
DEFAULT_TIME_LIMIT_S = 120.0


def cores() -> int:
    """Return the cores this process may run on (the affinity mask, not the machine's total)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _whole(field: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{field}: {value!r} is not a whole number ({low}..{high})")
    if not low <= value <= high:
        raise ValueError(f"{field}: {value} is outside {low}..{high}")
    return value


@dataclass(frozen=True)
class MeasureConfig:
    """One sweep: which collective, on which backend, over how many ranks and which sizes."""

    collective: str = "allreduce"
    backend: str = "mpi"
    ranks: int = 2
    min_bytes: int = 8
    max_bytes: int = 1 << 20
    factor: int = 2
    warmup: int = 1  # nccl-tests' -w default since 2025-08 (REFERENCE § 3)
    iters: int = 20  # nccl-tests' -n default
    algorithm: str | None = None  # an MPICH algorithm name for the collective; None: MPICH's own
    oversubscribe: bool = False
    time_limit_s: float = DEFAULT_TIME_LIMIT_S

    def __post_init__(self) -> None:
        if self.collective not in COLLECTIVES:
            raise ValueError(
                f"collective: {self.collective!r} is not one of {', '.join(COLLECTIVES)}"
            )
        if self.backend not in BACKENDS:
            raise ValueError(f"backend: {self.backend!r} is not one of {', '.join(BACKENDS)}")
        _whole("ranks", self.ranks, 1 if self.collective != "sendrecv" else 2, MAX_RANKS)
        if self.ranks > cores() and not self.oversubscribe:
            raise ValueError(
                f"ranks: {self.ranks} is more than this machine's {cores()} cores "
                f"(1..{cores()}; oversubscribe to run more)"
            )
        # Sizes may arrive as text ("1M"): frozen, so set through object.__setattr__.
        for field in ("min_bytes", "max_bytes"):
            object.__setattr__(self, field, parse_bytes(field, getattr(self, field)))
        _whole("min_bytes", self.min_bytes, 1, MAX_BYTES)
        _whole("max_bytes", self.max_bytes, self.min_bytes, MAX_BYTES)
        _whole("factor", self.factor, 2, MAX_FACTOR)
        _whole("warmup", self.warmup, 0, MAX_WARMUP)
        _whole("iters", self.iters, 1, MAX_ITERS)
        self._check_time_limit()
        self._check_algorithm()

    def _check_time_limit(self) -> None:
        limit = self.time_limit_s
        if isinstance(limit, bool) or not isinstance(limit, int | float) or limit != limit:
            raise ValueError(f"time_limit_s: {limit!r} is not a number (1..{MAX_TIME_LIMIT_S:g})")
        if not 1 <= limit <= MAX_TIME_LIMIT_S:
            raise ValueError(f"time_limit_s: {limit:g} is outside 1..{MAX_TIME_LIMIT_S:g}")

    def _check_algorithm(self) -> None:
        if self.algorithm in (None, "", "auto"):
            object.__setattr__(self, "algorithm", None)
            return
        if self.backend != "mpi":
            raise ValueError("algorithm: only the mpi backend can force an algorithm")
        names = MPICH_ALGORITHMS[self.collective]
        if not names:
            raise ValueError(f"algorithm: {self.collective} has none to choose (auto only)")
        if self.algorithm not in names:
            raise ValueError(
                f"algorithm: {self.algorithm!r} is not one of auto, {', '.join(names)}"
            )

    def as_dict(self) -> dict:
        """Return the config as plain JSON-ready data."""
        return asdict(self)
