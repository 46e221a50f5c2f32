"""`simulate` and `catalog`: validate parameters, run one algorithm on real buffers, check it."""

from __future__ import annotations

import numbers

import numpy as np

from . import layouts
from .errors import CollectiveError
from .layouts import COLLECTIVES, full_mask
from .machine import Machine
from .ops import OPS, finalize
from .registry import REGISTRY
from .trace import Trace

MAX_RANKS = 256
MAX_BUFFER_CELLS = 1 << 28  # ranks x working-buffer length: 1 GiB of float32


def catalog() -> list[dict]:
    """List every (collective, algorithm) with its description and constraints."""
    out = []
    for (collective, name), algo in REGISTRY.items():
        c = COLLECTIVES[collective]
        constraints = {"ranks": f"1..{MAX_RANKS}", "elements": ">= 1"}
        if c.needs_divisible:
            constraints["elements"] = "a positive multiple of ranks"
        if algo.needs_ranks_per_node:
            constraints["ranks_per_node"] = "required; must divide ranks"
        out.append(
            {
                "collective": collective,
                "algorithm": name,
                "description": algo.description,
                "summary": c.summary,
                "title": c.title,
                "reduces": c.reduces,
                "uses_root": c.uses_root,
                "needs_ranks_per_node": algo.needs_ranks_per_node,
                "single_port": algo.single_port,
                "ports_note": algo.ports_note,
                "constraints": constraints,
            }
        )
    return out


def _integer(name: str, value, low: int, high: int | None = None) -> int:
    """Check that `value` is an integer in [low, high] and return it."""
    allowed = f"an integer >= {low}" if high is None else f"an integer in {low}..{high}"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise CollectiveError(f"{name} must be {allowed}, got {value!r}")
    value = int(value)
    if value < low or (high is not None and value > high):
        raise CollectiveError(f"{name} must be {allowed}, got {value}")
    return value


def _choose(name: str, value, allowed) -> str:
    allowed = list(allowed)
    if value not in allowed:
        raise CollectiveError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def _inputs(inputs, ranks: int, elements: int, seed: int) -> np.ndarray:
    """Return the (ranks, elements) input array: the caller's, or seeded small integers.

    Default inputs are integers 1..9 stored as float32: random, yet every sum is exact and
    short enough to read in the lab ("4.0 = 1.0 (r0) + 3.0 (r1)").
    """
    if inputs is None:
        rng = np.random.default_rng(seed)
        return rng.integers(1, 10, size=(ranks, elements)).astype(np.float32)
    array = np.asarray(inputs)
    if array.shape != (ranks, elements):
        raise CollectiveError(
            f"inputs must have shape (ranks, elements) = ({ranks}, {elements}), got {array.shape}"
        )
    if array.dtype == bool or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise CollectiveError(f"inputs must be an integer or floating array, got {array.dtype}")
    return array.copy()


def simulate(
    collective: str,
    algorithm: str,
    *,
    ranks: int,
    elements: int,
    op: str = "sum",
    root: int = 0,
    ranks_per_node: int | None = None,
    seed: int = 0,
    inputs=None,
) -> Trace:
    """Run `collective` with `algorithm` step by step on real numpy buffers and verify it."""
    collective = _choose("collective", collective, COLLECTIVES)
    names = [name for (c, name) in REGISTRY if c == collective]
    algorithm = _choose(f"algorithm for {collective}", algorithm, names)
    algo = REGISTRY[(collective, algorithm)]
    spec = COLLECTIVES[collective]
    ranks = _integer("ranks", ranks, 1, MAX_RANKS)
    elements = _integer("elements", elements, 1)
    op = _choose("op", op, OPS)
    root = _integer("root", root, 0, ranks - 1)
    seed = _integer("seed", seed, 0)
    if spec.needs_divisible and elements % ranks:
        raise CollectiveError(
            f"elements must be a multiple of ranks for {collective} "
            f"(equal blocks, as MPI and torch.distributed require); "
            f"got {elements} for {ranks} ranks"
        )
    if algo.needs_ranks_per_node:
        if ranks_per_node is None:
            raise CollectiveError(f"ranks_per_node is required for {collective}/{algorithm}")
        ranks_per_node = _integer("ranks_per_node", ranks_per_node, 1, ranks)
        if ranks % ranks_per_node:
            raise CollectiveError(
                f"ranks_per_node must divide ranks: {ranks} ranks cannot be split into nodes "
                f"of {ranks_per_node}"
            )
    else:
        ranks_per_node = None
    cells = ranks * layouts.buffer_length(collective, ranks, elements)
    if cells > MAX_BUFFER_CELLS:
        raise CollectiveError(
            f"ranks x elements is too large for {collective}: the working buffers would hold "
            f"{cells} values, the limit is {MAX_BUFFER_CELLS}"
        )
    data = _inputs(inputs, ranks, elements, seed)

    parts = max(1, algo.parts(ranks, elements))
    layout = layouts.layout_for(collective, data, root=root, parts=parts)
    machine = Machine(
        buffers=layout.buffers,
        chunks=layout.chunks,
        holdings=layout.holdings,
        op=op,
        root=root,
        ranks_per_node=ranks_per_node,
    )
    algo.run(machine)

    trace = Trace(
        collective=collective,
        algorithm=algorithm,
        ranks=ranks,
        elements=elements,
        op=op,
        root=root,
        ranks_per_node=ranks_per_node,
        dtype=str(data.dtype),
        itemsize=data.dtype.itemsize,
        chunks=layout.chunks,
        chunk_source=layout.chunk_source,
        chunk_dest=layout.chunk_dest,
        topology=machine.topology,
        inputs=data,
        initial_holdings=layout.holdings,
        parts=parts,
        steps=machine.steps,
        bytes_sent=machine.bytes_sent,
        final_holdings=machine.holdings,
    )
    _check(trace, machine, layout, spec)
    return trace


def _float_gap(got: np.ndarray, want: np.ndarray, ranks: int) -> tuple[float, bool]:
    """Return the largest finite |got - want| and whether every element is within tolerance.

    The engine reduces in a different order from numpy, so rounding may differ: allow a
    relative error that grows with the number of operands. Equal infinities and NaN pairs
    (an overflowing product) count as equal.
    """
    if np.array_equal(got, want):  # the default inputs are small integers: sums are exact
        return 0.0, True
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(got - want)
        within = diff <= 1e-6 + (1e-5 * ranks) * np.abs(want)
        if not within.all():
            within |= (got == want) | (np.isnan(got) & np.isnan(want))
    finite = diff[np.isfinite(diff)]
    return float(finite.max(initial=0.0)), bool(within.all())


def _check(trace: Trace, machine: Machine, layout: layouts.Layout, spec) -> None:
    """Fill outputs and expected, and verify values and holdings against numpy."""
    ranks, collective = trace.ranks, trace.collective
    expected = layouts.expected(collective, trace.inputs, op=trace.op, root=trace.root)
    outputs: list[np.ndarray | None] = []
    holdings_ok = True
    for r in range(ranks):
        if not layouts.receives_output(collective, r, root=trace.root):
            outputs.append(None)
            continue
        ids = layout.output_chunks(r)
        value = layouts.extract(machine.buffers, layout.chunks, ids, r)
        outputs.append(finalize(trace.op, value, ranks) if spec.reduces else value)
        for c in ids:
            want = full_mask(ranks) if spec.reduces else 1 << layout.chunk_source[c]
            holdings_ok &= machine.holders(r, c) == want
    error = 0.0
    values_ok = True
    for got, want in zip(outputs, expected, strict=True):
        if (got is None) != (want is None):
            values_ok = False
            continue
        if got is None:
            continue
        if np.issubdtype(got.dtype, np.floating):
            gap, same = _float_gap(got, want, ranks)
        else:
            same = bool(np.array_equal(got, want))
            gap = 0.0 if same else float(np.max(np.abs(got.astype(np.float64) - want)))
        error = max(error, gap)
        values_ok &= same
    trace.outputs = outputs
    trace.expected = expected
    trace.max_abs_error = error
    trace.verified = bool(values_ok and holdings_ok)
