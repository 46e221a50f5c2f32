"""Turn engine traces into JSON-ready dicts: the one place numpy meets JSON in the web layer.

Every payload of the lab's contract (docs/lab.md) is built here, for Socket.IO and HTTP alike.
Numbers leave as plain Python ints and floats. Floats are written in the shortest form that
reads back to the same value in the trace's dtype (a float32 0.1 is `0.1`, not
`0.10000000149011612`), and non-finite floats (a `prod` that overflowed) become `null`, as
JavaScript's `JSON.stringify` writes them, because `NaN` and `Infinity` are not JSON.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from app.collectives import Step, Trace, ranks_in
from app.collectives.trace import PREVIEW_ELEMENTS

# The link the lab's cost estimate assumes when the cost model has no preset to offer:
# InfiniBand NDR, 400 Gb/s = 50 GB/s per direction (REFERENCE § 4), and a NCCL-like
# per-step latency of 5 microseconds.
DEFAULT_LINK = {"name": "InfiniBand NDR", "latency_us": 5.0, "bandwidth_gbs": 50.0}


def numbers(values: Iterable | np.ndarray, dtype: str) -> list[float | int | None]:
    """Convert a 1-D run of `dtype` values to JSON numbers; non-finite floats become None."""
    kind = np.dtype(dtype)
    array = np.asarray(values, dtype=kind).ravel()
    out = array.tolist()
    if not np.issubdtype(kind, np.floating):
        return out
    exact = 2.0 ** (np.finfo(kind).nmant + 1)  # below this, whole numbers print shortest as-is
    with np.errstate(invalid="ignore"):
        special = ~(np.abs(array) <= exact) | (array != np.trunc(array))
    for i in np.flatnonzero(special):
        out[i] = _float(out[i], kind.type)
    return out


def _float(value: float, scalar: type) -> float | None:
    """Return `value` in the shortest form that round-trips through `scalar`, or None."""
    if not math.isfinite(value):
        return None
    return float(str(scalar(value)))


def cell(rank: int, chunk: int, holders: int, values: Iterable, dtype: str) -> dict:
    """Describe one rank's copy of one chunk: whose contributions it holds, its first values."""
    return {
        "rank": rank,
        "chunk": chunk,
        "holders": ranks_in(holders),
        "values": numbers(values, dtype),
    }


def layout(trace: Trace) -> dict:
    """Describe the topology to draw and how the working buffer is cut into chunks."""
    return {
        "topology": trace.topology,
        "chunks": [[int(start), int(stop)] for start, stop in trace.chunks],
        "chunk_source": list(trace.chunk_source),
        "chunk_dest": list(trace.chunk_dest),
        "buffer_length": int(trace.initial_buffers.shape[1]),
    }


def initial_state(trace: Trace) -> list[dict]:
    """List every non-empty (rank, chunk) cell before the first step, in rank, chunk order."""
    out = []
    for (rank, chunk), holders in sorted(trace.initial_holdings.items()):
        if not holders:
            continue
        start, stop = trace.chunks[chunk]
        values = trace.initial_buffers[rank, start : min(stop, start + PREVIEW_ELEMENTS)]
        out.append(cell(rank, chunk, holders, values, trace.dtype))
    return out


def step(trace: Trace, s: Step, run_id: str | None = None) -> dict:
    """Describe one step: its transfers and the cells it changed (`run_id` first, if given)."""
    out = {"run_id": run_id} if run_id is not None else {}
    out.update(
        index=s.index,
        phase=s.phase,
        transfers=[
            {"src": t.src, "dst": t.dst, "chunk": t.chunk, "elements": t.elements, "op": t.op}
            for t in s.transfers
        ],
        state=[cell(u.rank, u.chunk, u.holders, u.preview, trace.dtype) for u in s.updates],
    )
    return out


def start(trace: Trace, run_id: str | None = None) -> dict:
    """Describe a run before its first step: parameters, layout, initial state, cost."""
    out = {"run_id": run_id} if run_id is not None else {}
    estimate = cost(trace)
    out.update(
        collective=trace.collective,
        algorithm=trace.algorithm,
        ranks=trace.ranks,
        elements=trace.elements,
        op=trace.op,
        root=trace.root,
        ranks_per_node=trace.ranks_per_node,
        dtype=trace.dtype,
        total_steps=trace.total_steps,
        phases=[s.phase for s in trace.steps],
        layout=layout(trace),
        initial_state=initial_state(trace),
        expected_bytes_per_rank=_expected_bytes_per_rank(estimate),
        cost=estimate,
    )
    return out


def done(trace: Trace, run_id: str | None = None) -> dict:
    """Describe how a run ended: verified against numpy, its error, bytes each rank sent."""
    out = {"run_id": run_id} if run_id is not None else {}
    out.update(
        verified=bool(trace.verified),
        max_abs_error=_float(float(trace.max_abs_error), float),
        total_steps=trace.total_steps,
        bytes_sent=[int(b) for b in trace.bytes_sent],
    )
    return out


def document(trace: Trace) -> dict:
    """Describe a whole run in one document: start, every step, outputs and their check."""
    out = start(trace)
    out["steps"] = [step(trace, s) for s in trace.steps]
    out["outputs"] = [_vector(v, trace.dtype) for v in trace.outputs]
    out["expected"] = [_vector(v, trace.dtype) for v in trace.expected]
    out.update(done(trace))
    return out


def _vector(value: np.ndarray | None, dtype: str) -> list | None:
    return None if value is None else numbers(value, dtype)


def cost(trace: Trace) -> dict | None:
    """Estimate the run on the default link with the cost model; None until the model exists."""
    try:
        from app import costs
    except ImportError:
        return None
    estimate = getattr(costs, "cost", None)
    if estimate is None:
        return None
    return estimate(
        trace.collective,
        trace.algorithm,
        ranks=trace.ranks,
        message_bytes=_message_bytes(trace),
        latency_us=DEFAULT_LINK["latency_us"],
        bandwidth_gbs=DEFAULT_LINK["bandwidth_gbs"],
        ranks_per_node=trace.ranks_per_node,
    ).as_dict()


def _message_bytes(trace: Trace) -> int:
    """Return M, the cost model's message size, for this trace (REFERENCE § 1)."""
    per_rank = trace.elements * trace.itemsize
    return per_rank * trace.ranks if trace.collective in ("allgather", "gather") else per_rank


def _expected_bytes_per_rank(estimate: dict | None) -> float | None:
    return None if estimate is None else estimate.get("bytes_per_rank")
