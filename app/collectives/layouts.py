"""How each collective lays its data out in the ranks' working buffers, and what it must produce.

A layout answers four questions for one collective: how long each rank's working buffer is,
how it is cut into chunks, what every rank holds before the first step, and which slice of
which rank is the output. `expected` computes the MPI / torch.distributed result directly with
numpy, without the steps, so the engine can be checked against it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..i18n import N_
from .ops import finalize, reduce_all


def split(length: int, parts: int) -> list[tuple[int, int]]:
    """Cut [0, length) into `parts` contiguous ranges, the first length % parts one longer."""
    base, extra = divmod(length, parts)
    bounds, start = [], 0
    for i in range(parts):
        stop = start + base + (1 if i < extra else 0)
        bounds.append((start, stop))
        start = stop
    return bounds


@dataclass
class Layout:
    """The starting point and the finish line of one collective."""

    buffers: np.ndarray  # (ranks, buffer_length)
    chunks: list[tuple[int, int]]
    holdings: dict[tuple[int, int], int]
    chunk_source: list[int | None]
    chunk_dest: list[int | None]
    output_chunks: Callable[[int], list[int]]  # rank -> the chunks that make up its output


@dataclass(frozen=True)
class Collective:
    """A collective's semantics: what it computes, who takes part, and how its data is laid out."""

    name: str
    title: str  # how people write it: "AllReduce", "All-to-All"
    summary: str
    reduces: bool = False  # combines values with `op`
    uses_root: bool = False
    needs_divisible: bool = False  # elements must be a multiple of ranks
    # The working buffer holds one block of `elements` per rank, ranks x elements in all
    # (docs/engine.md, "Chunks and holdings"); every other buffer is the input itself.
    block_per_rank: bool = False
    root_only_output: bool = False  # only the root has an output (MPI: reduce, gather)


# The order of this table is the catalog's order of collectives (see registry.ALGORITHM_ORDER).
COLLECTIVES: dict[str, Collective] = {
    c.name: c
    for c in (
        Collective(
            "allreduce",
            N_("AllReduce"),
            "every rank ends with the reduction of all inputs",
            reduces=True,
        ),
        Collective(
            "reduce",
            N_("Reduce"),
            "the root ends with the reduction of all inputs",
            reduces=True,
            uses_root=True,
            root_only_output=True,
        ),
        Collective(
            "broadcast", N_("Broadcast"), "every rank ends with the root's input", uses_root=True
        ),
        Collective(
            "allgather",
            N_("AllGather"),
            "every rank ends with all inputs, in rank order",
            block_per_rank=True,
        ),
        Collective(
            "reduce_scatter",
            N_("ReduceScatter"),
            "rank i ends with block i of the reduction",
            reduces=True,
            needs_divisible=True,
        ),
        Collective(
            "all_to_all",
            N_("All-to-All"),
            "block j of rank i goes to rank j, in source order",
            needs_divisible=True,
            block_per_rank=True,
        ),
        Collective(
            "gather",
            N_("Gather"),
            "the root ends with all inputs, in rank order",
            uses_root=True,
            block_per_rank=True,
            root_only_output=True,
        ),
        Collective(
            "scatter",
            N_("Scatter"),
            "rank i ends with block i of the root's input",
            uses_root=True,
            needs_divisible=True,
        ),
        Collective("sendrecv", N_("Send/Recv"), "stage k sends to stage k+1 along a pipeline"),
    )
}


def buffer_length(collective: str, ranks: int, elements: int) -> int:
    """Return the length of each rank's working buffer (see docs/engine.md)."""
    return ranks * elements if COLLECTIVES[collective].block_per_rank else elements


def message_bytes(collective: str, ranks: int, elements: int, itemsize: int) -> int:
    """Return M, the cost model's message size (REFERENCE § 1), for one engine run.

    M is the vector every rank holds for allreduce, reduce and broadcast; the total output for
    allgather and gather; the total input for reduce_scatter and scatter; what each rank sends
    for all_to_all; the activations each stage passes on for sendrecv.
    """
    per_rank = elements * itemsize
    return per_rank * ranks if collective in ("allgather", "gather") else per_rank


def _vector(inputs: np.ndarray, parts: int, owners: list[int]) -> Layout:
    """The buffer is the input vector itself, cut into `parts` chunks; `owners` hold theirs."""
    ranks, elements = inputs.shape
    if len(owners) == ranks:
        buffers = inputs.copy()
    else:
        buffers = np.zeros(inputs.shape, dtype=inputs.dtype)  # calloc: untouched pages cost nothing
        for r in owners:
            buffers[r] = inputs[r]
    chunks = split(elements, parts)
    holdings = {(r, c): 1 << r for r in owners for c in range(parts)}
    every = list(range(parts))
    return Layout(buffers, chunks, holdings, [None] * parts, [None] * parts, lambda r: every)


def _blocks_of_outputs(inputs: np.ndarray) -> Layout:
    """The buffer is p blocks of `elements`; block r starts at rank r (allgather, gather)."""
    ranks, elements = inputs.shape
    buffers = np.zeros((ranks, ranks * elements), dtype=inputs.dtype)
    for r in range(ranks):
        buffers[r, r * elements : (r + 1) * elements] = inputs[r]
    chunks = [(r * elements, (r + 1) * elements) for r in range(ranks)]
    holdings = {(r, r): 1 << r for r in range(ranks)}
    every = list(range(ranks))
    return Layout(buffers, chunks, holdings, list(range(ranks)), [None] * ranks, lambda r: every)


def layout_for(collective: str, inputs: np.ndarray, *, root: int, parts: int) -> Layout:
    """Build the starting layout of `collective`; `parts` is the chunk count for vector ones."""
    ranks, elements = inputs.shape
    everyone = list(range(ranks))
    if collective in ("allreduce", "reduce"):
        return _vector(inputs, parts, everyone)
    if collective == "broadcast":
        layout = _vector(inputs, parts, [root])
        layout.chunk_source = [root] * parts
        return layout
    if collective == "sendrecv":
        layout = _vector(inputs, parts, [0])
        layout.chunk_source = [0] * parts
        return layout
    if collective in ("allgather", "gather"):
        return _blocks_of_outputs(inputs)
    if collective == "reduce_scatter":
        layout = _vector(inputs, ranks, everyone)
        layout.chunk_dest = everyone
        layout.output_chunks = lambda r: [r]
        return layout
    if collective == "scatter":
        layout = _vector(inputs, ranks, [root])
        layout.chunk_source = [root] * ranks
        layout.chunk_dest = everyone
        layout.output_chunks = lambda r: [r]
        return layout
    if collective == "all_to_all":
        return _all_to_all(inputs)
    raise KeyError(collective)


def _all_to_all(inputs: np.ndarray) -> Layout:
    """Chunk s*p+d is the block rank s sends to rank d; every rank has a slot for each."""
    ranks, elements = inputs.shape
    block = elements // ranks
    buffers = np.zeros((ranks, ranks * elements), dtype=inputs.dtype)
    for s in range(ranks):
        buffers[s, s * elements : (s + 1) * elements] = inputs[s]
    chunks = [(c * block, (c + 1) * block) for c in range(ranks * ranks)]
    holdings = {(s, s * ranks + d): 1 << s for s in range(ranks) for d in range(ranks)}
    source = [c // ranks for c in range(ranks * ranks)]
    dest = [c % ranks for c in range(ranks * ranks)]
    return Layout(
        buffers, chunks, holdings, source, dest, lambda d: [s * ranks + d for s in range(ranks)]
    )


def receives_output(collective: str, rank: int, *, root: int) -> bool:
    """Say whether `rank` has an output at all (MPI: only the root for reduce and gather)."""
    if COLLECTIVES[collective].root_only_output:
        return rank == root
    if collective == "sendrecv":
        return rank != 0
    return True


def _shared(value: np.ndarray, count: int) -> list[np.ndarray]:
    """Return `count` references to one read-only array: every rank expects the same result."""
    value.flags.writeable = False
    return [value] * count


def expected(collective: str, inputs: np.ndarray, *, op: str, root: int) -> list:
    """Compute each rank's result directly with numpy (None where a rank receives nothing)."""
    ranks, elements = inputs.shape
    if collective == "allreduce":
        return _shared(reduce_all(op, inputs), ranks)
    if collective == "reduce":
        return [reduce_all(op, inputs) if r == root else None for r in range(ranks)]
    if collective == "broadcast":
        return _shared(inputs[root].copy(), ranks)
    if collective == "allgather":
        return _shared(inputs.reshape(-1).copy(), ranks)
    if collective == "gather":
        return [inputs.reshape(-1).copy() if r == root else None for r in range(ranks)]
    if collective == "reduce_scatter":
        return list(reduce_all(op, inputs).reshape(ranks, -1).copy())
    if collective == "scatter":
        return list(inputs[root].reshape(ranks, -1).copy())
    if collective == "all_to_all":
        blocks = inputs.reshape(ranks, ranks, -1)  # (src, dst, block)
        return [blocks[:, d, :].reshape(-1).copy() for d in range(ranks)]
    if collective == "sendrecv":
        return [None] + _shared(inputs[0].copy(), ranks - 1)
    raise KeyError(collective)


def full_mask(ranks: int) -> int:
    """Return the bitmask with every rank's bit set."""
    return (1 << ranks) - 1


def extract(buffers: np.ndarray, chunks: list[tuple[int, int]], chunk_ids: list[int], rank: int):
    """Return rank `rank`'s copies of `chunk_ids`, concatenated, as one read-only vector.

    Contiguous chunks (every vector collective) give a view of the final buffer, not a copy.
    """
    spans = [chunks[c] for c in chunk_ids]
    if all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False)):
        out = buffers[rank, spans[0][0] : spans[-1][1]]
    else:
        out = np.concatenate([buffers[rank, start:stop] for start, stop in spans])
    out.flags.writeable = False
    return out


__all__ = ["COLLECTIVES", "Collective", "Layout", "expected", "finalize", "layout_for", "split"]
