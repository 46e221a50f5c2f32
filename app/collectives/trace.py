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


class Step:
    """One round of concurrent transfers: one alpha in the cost model.

    The machine records a round compactly (plain tuples, the cells it changed as ints, the
    previews as one array); `transfers` and `updates` are built on first use. A ring on 256
    ranks has 130,560 of each, and most readers of a large trace never look at them.
    """

    __slots__ = ("index", "phase", "_moves", "_sizes", "_cells", "_width", "_previews", "_t", "_u")

    def __init__(
        self,
        index: int,
        phase: str,
        moves: list[tuple[int, int, int, str]],
        sizes: list[int],
        cells: dict[int, int],
        width: int,
        previews,
    ) -> None:
        self.index = index
        self.phase = phase
        self._moves = moves  # (src, dst, chunk, op), in the order the algorithm sent them
        self._sizes = sizes  # elements of each chunk
        self._cells = cells  # rank * width + chunk -> holders after the step
        self._width = width
        self._previews = previews  # per cell: an array (cells, PREVIEW_ELEMENTS) or tuples
        self._t: list[Transfer] | None = None
        self._u: list[CellUpdate] | None = None

    @property
    def transfers(self) -> list[Transfer]:
        """Every chunk moved in this round, in the order the algorithm sent them."""
        if self._t is None:
            sizes = self._sizes
            self._t = [Transfer(s, d, c, sizes[c], op) for s, d, c, op in self._moves]
        return self._t

    @property
    def moves(self) -> list[tuple[int, int, int, str]]:
        """Every chunk moved, compactly: (src, dst, chunk, op) tuples; do not modify."""
        return self._moves

    @property
    def changed(self) -> dict[int, int]:
        """The cells this round wrote, compactly: rank * chunk_count + chunk -> holders after
        the step; do not modify. A reader that replays holdings needs no `CellUpdate`s."""
        return self._cells

    @property
    def updates(self) -> list[CellUpdate]:
        """The new state of every cell this round wrote."""
        if self._u is None:
            previews = self._previews
            if isinstance(previews, np.ndarray):
                previews = map(tuple, previews.tolist())
            width = self._width
            self._u = [
                CellUpdate(*divmod(cell, width), mask, preview)
                for (cell, mask), preview in zip(self._cells.items(), previews, strict=True)
            ]
        return self._u

    def __repr__(self) -> str:
        return f"Step({self.index}, {self.phase!r}, {len(self._moves)} transfers)"


def chunk_label(chunk: int) -> str:
    """Name a chunk as the lab, the lessons and the quiz do: A, B, ..., Z, then C26, C27, ..."""
    return chr(ord("A") + chunk) if chunk < 26 else f"C{chunk}"


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

    @property
    def switches(self) -> list[dict]:
        """The switches that reduce or forward in the network ({id, name, kind}, ids p, p+1,
        ...): a transfer's src or dst at or past `ranks` is one of them. Declared by the
        topology, which every view already reads."""
        return list(self.topology.get("switches", ()))

    def bytes_sent_by_step(self) -> np.ndarray:
        """Return bytes each rank sends in each step, shape (steps, ranks); a switch's sends
        are not counted."""
        return self._bytes_by_step(0)

    def bytes_received_by_step(self) -> np.ndarray:
        """Return bytes each rank receives in each step, shape (steps, ranks)."""
        return self._bytes_by_step(1)

    def bytes_received(self) -> np.ndarray:
        """Return the bytes each rank receives over the whole run."""
        return self.bytes_received_by_step().sum(axis=0, dtype=np.int64)

    def _bytes_by_step(self, end: int) -> np.ndarray:
        out = np.zeros((len(self.steps), self.ranks), dtype=np.int64)
        for s in self.steps:
            for t in s.transfers:
                if t[end] < self.ranks:
                    out[s.index, t[end]] += t.elements * self.itemsize
        return out
