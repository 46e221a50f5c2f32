"""`simulate` and `catalog`: run one algorithm on real buffers and verify it; say what runs."""

from __future__ import annotations

import numpy as np

from . import layouts
from .errors import CollectiveError
from .layouts import COLLECTIVES, full_mask
from .machine import Machine
from .ops import finalize
from .parameters import ENGINE, MAX_BUFFER_CELLS, MAX_RANKS, Limits, check
from .registry import REGISTRY, Algorithm, algorithms
from .trace import Trace


def catalog(limits: Limits = ENGINE) -> list[dict]:
    """List every (collective, algorithm), in catalog order, with all a caller needs to know.

    Besides the description, each entry says what `check` enforces: the rank range (`limits`,
    the engine's own unless a caller passes tighter ones, and the algorithm's own for the
    in-network ones), whether elements must be a multiple of ranks, whether ranks_per_node is
    needed and its largest value; the switch an in-network algorithm needs (`needs_switch`);
    and what the collective is: whether it
    reduces (uses `op`), uses a root, keeps a block per rank (its working buffer is ranks x
    elements long) and leaves an output on the root only.
    """
    return [_entry(algo, limits) for algo in algorithms()]


def _entry(algo: Algorithm, limits: Limits) -> dict:
    """Describe one catalog entry (see `catalog`)."""
    c = COLLECTIVES[algo.collective]
    low, high = limits.min_ranks, min(limits.max_ranks, MAX_RANKS, algo.max_ranks or MAX_RANKS)
    constraints = {"ranks": f"{low}..{high}", "elements": ">= 1"}
    if c.needs_divisible:
        constraints["elements"] = "a positive multiple of ranks"
    if algo.needs_ranks_per_node:
        constraints["ranks_per_node"] = "required; must divide ranks"
        if algo.max_ranks_per_node:
            constraints["ranks_per_node"] += f"; at most {algo.max_ranks_per_node}"
    if algo.needs_switch:
        constraints["switch"] = algo.needs_switch
    if algo.grid is not None:
        constraints["grid"] = algo.grid_rule
    return {
        "collective": algo.collective,
        "algorithm": algo.name,
        "description": algo.description,
        "summary": c.summary,
        "title": c.title,
        "reduces": c.reduces,
        "uses_root": c.uses_root,
        "needs_ranks_per_node": algo.needs_ranks_per_node,
        "max_ranks_per_node": algo.max_ranks_per_node,
        "needs_switch": algo.needs_switch,
        "single_port": algo.single_port,
        "ports_note": algo.ports_note,
        "constraints": constraints,
        "min_ranks": low,
        "max_ranks": high,
        "max_cells": min(limits.max_cells, MAX_BUFFER_CELLS),
        "power_of_two": algo.power_of_two,
        "divisible": c.needs_divisible,
        "block_per_rank": c.block_per_rank,
        "root_only_output": c.root_only_output,
    }


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
    p = check(
        {
            "collective": collective,
            "algorithm": algorithm,
            "ranks": ranks,
            "elements": elements,
            "op": op,
            "root": root,
            "ranks_per_node": ranks_per_node,
            "seed": seed,
        }
    )
    algo = REGISTRY[(p["collective"], p["algorithm"])]
    data = _inputs(inputs, p["ranks"], p["elements"], p.pop("seed"))
    if algo.node_parts is not None:
        parts = max(1, algo.node_parts(p["ranks_per_node"]))
    else:
        parts = max(1, algo.parts(p["ranks"], p["elements"]))
    layout = layouts.layout_for(algo.collective, data, root=p["root"], parts=parts)
    machine = Machine(
        buffers=layout.buffers,
        chunks=layout.chunks,
        holdings=layout.holdings,
        op=p["op"],
        root=p["root"],
        ranks_per_node=p["ranks_per_node"],
    )
    algo.run(machine)

    trace = Trace(
        **p,  # collective, algorithm, ranks, elements, op, root, ranks_per_node
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
    _verify(trace, machine, layout, COLLECTIVES[algo.collective])
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


def _verify(trace: Trace, machine: Machine, layout: layouts.Layout, spec) -> None:
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
