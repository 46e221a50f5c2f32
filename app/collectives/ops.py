"""Reduction operators, with MPI / NCCL semantics.

`avg` is NCCL's ncclAvg: the transfers sum, and each rank divides by p once at the end.
"""

from __future__ import annotations

import numpy as np

OPS = ("sum", "prod", "max", "min", "avg")

_COMBINE = {
    "sum": np.add,
    "avg": np.add,
    "prod": np.multiply,
    "max": np.maximum,
    "min": np.minimum,
}

SYMBOL = {"sum": "+", "avg": "+", "prod": "×", "max": "max", "min": "min"}


def combiner(op: str) -> np.ufunc:
    """Return the ufunc that reduces two operands with `op` (call it with out= to reduce in
    place; callers set np.errstate for overflow)."""
    return _COMBINE[op]


def reduce_all(op: str, stacked: np.ndarray) -> np.ndarray:
    """Reduce along axis 0 directly with numpy: the ground truth the engine is checked against."""
    with np.errstate(over="ignore", under="ignore"):
        return _reduce_all(op, stacked)


def _reduce_all(op: str, stacked: np.ndarray) -> np.ndarray:
    if op in ("sum", "avg"):
        out = np.sum(stacked, axis=0, dtype=stacked.dtype)
    elif op == "prod":
        out = np.prod(stacked, axis=0, dtype=stacked.dtype)
    elif op == "max":
        out = np.max(stacked, axis=0)
    else:
        out = np.min(stacked, axis=0)
    return finalize(op, out, stacked.shape[0])


def finalize(op: str, reduced: np.ndarray, ranks: int) -> np.ndarray:
    """Apply the post-reduction step: divide by p for `avg` (truncating for integers, as C)."""
    if op != "avg":
        return reduced
    if np.issubdtype(reduced.dtype, np.integer):
        return (np.trunc(reduced / ranks)).astype(reduced.dtype)
    return (reduced / reduced.dtype.type(ranks)).astype(reduced.dtype)
