"""What a simulation produces: steps of transfers, per-step holdings, outputs and their check.

A *chunk* is a contiguous slice of every rank's working buffer. Holdings are bitmasks over
source ranks: bit s of `holders` is set when rank s's contribution to that chunk is present in
that rank's copy. Steps record only the cells they changed; `holdings_at` replays them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

PREVIEW_ELEMENTS = 4  # values kept per changed cell, for the lab's "inspect real numbers"


class Transfer(NamedTuple):
    """One chunk moving from `src` to `dst` in one step: copied over, or reduced into.

    Named tuples rather than dataclasses: a run at 256 ranks makes 130,000 of them, and a
    tuple is built and unpacked several times faster.
    """

    src: int
    dst: int
    chunk: int
    elements: int
    op: str  # "copy" or "reduce"


class CellUpdate(NamedTuple):
    """The new state of rank `rank`'s copy of `chunk` after a step."""

    rank: int
    chunk: int
    holders: int  # bitmask over source ranks
    preview: tuple[float | int, ...]  # the first PREVIEW_ELEMENTS values after the step


@dataclass(slots=True)
class Step:
    """One round of concurrent transfers: one alpha in the cost model."""

    index: int
    phase: str
    transfers: list[Transfer]
    updates: list[CellUpdate]


def ranks_in(mask: int) -> list[int]:
    """List the ranks whose bits are set in `mask`, in ascending order."""
    return list(_ranks_in(mask))


@functools.lru_cache(maxsize=1 << 16)
def _ranks_in(mask: int) -> tuple[int, ...]:
    # Cached: a run's cells repeat the same few thousand masks, and the lab serializes
    # every one of them once per step it changes in.
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


@dataclass
class Trace:
    """The full record of one simulated collective."""

    collective: str
    algorithm: str
    ranks: int
    elements: int
    op: str
    root: int
    ranks_per_node: int | None
    dtype: str
    itemsize: int
    chunks: list[tuple[int, int]]  # (start, stop) in each rank's working buffer
    chunk_source: list[int | None]  # whose input a chunk comes from; None when reduced from all
    chunk_dest: list[int | None]  # whose output a chunk ends in; None when every rank keeps it
    topology: dict
    inputs: np.ndarray  # (ranks, elements)
    initial_holdings: dict[tuple[int, int], int]  # (rank, chunk) -> mask; absent means empty
    parts: int  # the chunk count the algorithm asked for (vector collectives)
    steps: list[Step] = field(default_factory=list)
    outputs: list[np.ndarray | None] = field(default_factory=list)
    expected: list[np.ndarray | None] = field(default_factory=list)
    verified: bool = False
    max_abs_error: float = 0.0
    bytes_sent: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    final_holdings: dict[tuple[int, int], int] = field(default_factory=dict)
    _initial_buffers: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def total_steps(self) -> int:
        return len(self.steps)

    @property
    def buffer_length(self) -> int:
        from .layouts import buffer_length

        return buffer_length(self.collective, self.ranks, self.elements)

    @property
    def initial_buffers(self) -> np.ndarray:
        """(ranks, buffer_length): every rank's buffer before step 0, rebuilt from the inputs
        on first use (a viewer needs it; `simulate` itself does not, and at 256 ranks it is
        another GiB to copy)."""
        if self._initial_buffers is None:
            from .layouts import layout_for

            layout = layout_for(self.collective, self.inputs, root=self.root, parts=self.parts)
            layout.buffers.flags.writeable = False
            self._initial_buffers = layout.buffers
        return self._initial_buffers

    @property
    def message_bytes(self) -> int:
        """M in the cost model's sense (REFERENCE § 1) for this run."""
        from .layouts import message_bytes

        return message_bytes(self.collective, self.ranks, self.elements, self.itemsize)

    @property
    def chunk_count(self) -> int:
        return len(self.chunks)

    def holdings_at(self, step: int) -> dict[tuple[int, int], int]:
        """Return (rank, chunk) -> holders after step `step` (-1 means before the first step)."""
        if not -1 <= step < len(self.steps):
            raise IndexError(f"step must be in -1..{len(self.steps) - 1}, got {step}")
        state = dict(self.initial_holdings)
        for s in self.steps[: step + 1]:
            for u in s.updates:
                state[(u.rank, u.chunk)] = u.holders
        return state

    def bytes_sent_by_step(self) -> np.ndarray:
        """Return bytes each rank sends in each step, shape (steps, ranks)."""
        out = np.zeros((len(self.steps), self.ranks), dtype=np.int64)
        for s in self.steps:
            for t in s.transfers:
                out[s.index, t.src] += t.elements * self.itemsize
        return out
