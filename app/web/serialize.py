"""Turn engine traces into JSON-ready dicts: the one place numpy meets JSON in the web layer.

Every payload of the lab's contract (docs/lab.md) is built here, for Socket.IO and HTTP alike.
Numbers leave as plain Python ints and floats. Floats are written in the shortest form that
reads back to the same value in the trace's dtype (a float32 0.1 is `0.1`, not
`0.10000000149011612`), and non-finite floats (a `prod` that overflowed) become `null`, as
JavaScript's `JSON.stringify` writes them, because `NaN` and `Infinity` are not JSON.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from app import costs
from app.collectives import COLLECTIVES, Step, Trace, ranks_in
from app.collectives.narration import narrate
from app.collectives.trace import PREVIEW_ELEMENTS
from app.costs import HARDWARE, CostError
from app.costs.terms import ALGORITHMS
from app.drawing import geometry
from app.drawing.grid import live as live_grid
from app.drawing.step0 import goal_cells
from app.i18n import DEFAULT as DEFAULT_LANGUAGE

log = logging.getLogger(__name__)

# The link the lab's cost estimate assumes: InfiniBand NDR, 400 Gb/s = 50 GB/s per direction,
# with NCCL's per-step latency constant for the network (REFERENCE § 4); hierarchical
# algorithms add the NVSwitch of an HGX H100 inside each node.
DEFAULT_LINK = HARDWARE["ib_ndr"]
DEFAULT_INTRA_LINK = HARDWARE["nvswitch_h100"]


def numbers(values: Iterable | np.ndarray, dtype: str) -> list[float | int | None]:
    """Convert a 1-D run of `dtype` values to JSON numbers; non-finite floats become None."""
    out = values.tolist() if isinstance(values, np.ndarray) else list(values)
    kind = np.dtype(dtype)
    if kind.kind != "f":
        return out
    exact = _exact_integers(kind)  # whole numbers up to here already print in shortest form
    return [v if -exact <= v <= exact and v.is_integer() else _float(v, kind.type) for v in out]


@functools.cache
def _exact_integers(kind: np.dtype) -> float:
    """Return the largest magnitude below which every whole number of `kind` is exact."""
    return 2.0 ** (np.finfo(kind).nmant + 1)


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
    """Describe the topology to draw, where its ranks sit, how the buffer is cut into chunks,
    and how the buffer grid is drawn."""
    return {
        "topology": trace.topology,
        "geometry": geometry(trace.topology, trace.ranks),
        "chunks": [[int(start), int(stop)] for start, stop in trace.chunks],
        "chunk_source": list(trace.chunk_source),
        "chunk_dest": list(trace.chunk_dest),
        "goal": goal_cells(trace),
        "grid": live_grid(trace),
        "buffer_length": trace.buffer_length,
    }


def initial_cells(trace: Trace) -> Iterator[tuple[int, int, int, np.ndarray]]:
    """Yield (rank, chunk, holders mask, first values) for every non-empty cell before the
    first step, in rank, chunk order: the full form's cells and the socket's (compact.py)."""
    for (rank, chunk), holders in sorted(trace.initial_holdings.items()):
        if holders:
            start, stop = trace.chunks[chunk]
            yield (
                rank,
                chunk,
                holders,
                trace.initial_buffers[rank, start : min(stop, start + PREVIEW_ELEMENTS)],
            )


def initial_state(trace: Trace) -> list[dict]:
    """List every non-empty (rank, chunk) cell before the first step, in rank, chunk order."""
    return [cell(*c, trace.dtype) for c in initial_cells(trace)]


def step(trace: Trace, s: Step, narration: str) -> dict:
    """Describe one step: its narration (`narrations`), its transfers, the cells it changed."""
    return dict(
        index=s.index,
        phase=s.phase,
        narration=narration,
        transfers=[
            {"src": t.src, "dst": t.dst, "chunk": t.chunk, "elements": t.elements, "op": t.op}
            for t in s.transfers
        ],
        state=[cell(u.rank, u.chunk, u.holders, u.preview, trace.dtype) for u in s.updates],
    )


def narrations(trace: Trace, lang: str = DEFAULT_LANGUAGE) -> list[str]:
    """Return the narration of every step in `lang`, in step order: written once per run, for
    all of them, because a sentence looks ahead ("after step 7, each rank owns one chunk")."""
    return narrate(trace, lang)


def start(trace: Trace, cells: Callable[[Trace], list] = initial_state) -> dict:
    """Describe a run before its first step: parameters, layout, initial state, cost.

    `cells` lists the initial state: full cells here and over HTTP, compact ones on the socket
    (app/web/compact.py)."""
    estimate = cost(trace)
    return dict(
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
        initial_state=cells(trace),
        expected_bytes_per_rank=estimate.get("bytes_per_rank") if estimate else None,
        cost=estimate,
    )


def done(trace: Trace) -> dict:
    """Describe how a run ended: verified against numpy, its error, bytes each rank sent."""
    return dict(
        verified=bool(trace.verified),
        max_abs_error=_float(float(trace.max_abs_error), float),
        total_steps=trace.total_steps,
        bytes_sent=[int(b) for b in trace.bytes_sent],
    )


def document_json(
    trace: Trace, dumps: Callable[[object], str], lang: str = DEFAULT_LANGUAGE
) -> str:
    """Encode a whole run as one JSON object: `start`, `steps`, `outputs`, `expected`, `done`;
    the steps narrated in `lang`.

    `dumps` encodes with sorted keys, compactly (the app's JSON provider). The object is encoded
    a piece at a time, never as one tree of Python objects: built whole, a large run's million
    small objects left Python's allocator fragmented, and the server 35 MB above its baseline
    after a flood of HTTP simulations (bench/RESULTS.md).
    """
    fields = {**start(trace), **done(trace)}
    lists = {
        "steps": lambda: map(functools.partial(step, trace), trace.steps, narrations(trace, lang)),
        "outputs": lambda: (_vector(v, trace.dtype) for v in trace.outputs),
        "expected": lambda: (_vector(v, trace.dtype) for v in trace.expected),
    }
    parts = []
    for key in sorted({*fields, *lists}):
        if key in lists:
            value = "[" + ",".join(dumps(item) for item in lists[key]()) + "]"
        else:
            value = dumps(fields[key])
        parts.append(f"{dumps(key)}:{value}")
    return "{" + ",".join(parts) + "}"


def _vector(value: np.ndarray | None, dtype: str) -> list | None:
    return None if value is None else numbers(value, dtype)


def cost(trace: Trace) -> dict | None:
    """Estimate the run on the default link with the cost model (None if it cannot)."""
    intra = DEFAULT_INTRA_LINK if trace.ranks_per_node is not None else None
    # NVLS runs inside one NVSwitch domain: its one link is a GPU's NVLink into the switch.
    main = DEFAULT_INTRA_LINK if trace.switches and intra is None else DEFAULT_LINK
    key = (trace.collective, trace.algorithm)
    try:
        estimate = costs.cost(
            trace.collective,
            trace.algorithm,
            ranks=trace.ranks,
            message_bytes=trace.message_bytes,
            latency_us=main.latency_us,
            bandwidth_gbs=main.bandwidth_gbs,
            ranks_per_node=trace.ranks_per_node,
            root=trace.root if COLLECTIVES[trace.collective].uses_root else 0,
            intra_latency_us=intra.latency_us if intra else None,
            intra_bandwidth_gbs=intra.bandwidth_gbs if intra else None,
            # Pipelined chains cut the data into as many segments as the engine did.
            segments=trace.chunk_count if ALGORITHMS[key].segments else None,
        )
    except CostError:
        log.exception("no cost estimate for %s/%s", trace.collective, trace.algorithm)
        return None
    out = estimate.as_dict()
    out["link"] = main.label + (f"; inside a node {intra.label}" if intra else "")
    return out
