"""The engine's trace reduced to its structure: per step, who sends how much of M to whom.

`simulate` runs at the smallest element count that cuts every chunk equally (so each transfer
is an exact fraction of M), and each transfer becomes (src, dst, share of M) with
share = transfer elements / M's elements (M as REFERENCE § 1 defines it, `message_bytes`).
Transfers between the same pair in one step are summed. Kept per (collective, algorithm,
ranks, ranks_per_node) in a bounded cache: the structure does not depend on the byte size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from app.collectives import message_bytes, simulate
from app.collectives.registry import REGISTRY

CACHED_TRACES = 64  # a 64-rank ring's shape is ~8,000 transfers: well under a MB each


@dataclass(frozen=True, eq=False)  # kept in caches by identity
class StepShape:
    """One engine step: the pairs that exchange data and each pair's share of M."""

    index: int
    phase: str
    src: np.ndarray  # ranks
    dst: np.ndarray
    share: np.ndarray  # bytes per byte of M


def equal_chunk_elements(collective: str, algorithm: str, ranks: int) -> int:
    """Return the smallest element count at which every chunk of the run has the same size."""
    parts = REGISTRY[(collective, algorithm)].parts
    elements = ranks
    while True:
        needed = math.lcm(elements, max(1, parts(ranks, elements)))
        if needed == elements:
            return elements
        elements = needed


@lru_cache(maxsize=CACHED_TRACES)
def shape(
    collective: str, algorithm: str, ranks: int, ranks_per_node: int | None = None
) -> tuple[StepShape, ...]:
    """Return the steps of `collective`/`algorithm` on `ranks` ranks as shares of M."""
    elements = equal_chunk_elements(collective, algorithm, ranks)
    trace = simulate(
        collective, algorithm, ranks=ranks, elements=elements, ranks_per_node=ranks_per_node
    )
    whole = message_bytes(collective, ranks, elements, 1)
    sizes = [stop - start for start, stop in trace.chunks]
    steps = []
    for step in trace.steps:
        pairs: dict[tuple[int, int], int] = {}
        for src, dst, chunk, _op in step.moves:
            pairs[(src, dst)] = pairs.get((src, dst), 0) + sizes[chunk]
        keys = list(pairs)
        steps.append(
            StepShape(
                step.index,
                step.phase,
                np.array([k[0] for k in keys], dtype=np.int64),
                np.array([k[1] for k in keys], dtype=np.int64),
                np.array([pairs[k] for k in keys], dtype=np.float64) / whole,
            )
        )
    return tuple(steps)
