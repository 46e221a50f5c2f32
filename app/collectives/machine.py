"""The simulated cluster an algorithm drives: one numpy buffer per rank, stepped in rounds.

An algorithm opens a step, queues transfers, and closes it. Closing executes the round as
real hardware would: every transfer reads its source as it was *before* the round (so two
ranks can swap or exchange-and-reduce in one step), then writes or reduces into its target.
The machine also checks the algorithm as it goes: no self-sends, no sending a chunk one does
not hold, no conflicting writes, and no contribution ever reduced in twice.

The ring makes p² transfers for p× the bytes, so everything done per transfer is kept to a
few dictionary and slice operations: holdings live in one dict per rank, bytes are counted in
a Python list, and only a source that the same round overwrites is copied before the writes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from .ops import combiner
from .trace import PREVIEW_ELEMENTS, Step

_OPS = ("copy", "reduce")


class AlgorithmBug(AssertionError):
    """An algorithm broke a rule of the machine: a defect in the engine, never bad user input."""


class Machine:
    """Per-rank buffers, chunk holdings, and the steps executed so far."""

    def __init__(
        self,
        *,
        buffers: np.ndarray,
        chunks: list[tuple[int, int]],
        holdings: dict[tuple[int, int], int],
        op: str,
        root: int = 0,
        ranks_per_node: int | None = None,
    ) -> None:
        self.buffers = buffers  # (ranks, buffer_length)
        self.chunks = chunks
        self.op = op
        self.root = root
        self.ranks_per_node = ranks_per_node
        self.ranks = buffers.shape[0]
        self.steps: list[Step] = []
        self.topology: dict = {"kind": "complete"}
        self._pending: list[tuple[int, int, int, str]] | None = None
        self._rows = list(buffers)  # one view per rank: slicing a row is cheaper than 2-D
        self._held: list[dict[int, int]] = [{} for _ in range(self.ranks)]  # rank -> chunk -> mask
        for (rank, chunk), mask in holdings.items():
            self._held[rank][chunk] = mask
        self.switches: list[dict] = []  # {id, name, kind}; ids follow the ranks (p, p+1, ...)
        self._spans = [slice(start, stop) for start, stop in chunks]
        self._sizes = [stop - start for start, stop in chunks]
        self._chunk_bytes = [size * buffers.itemsize for size in self._sizes]
        self._sent = [0] * self.ranks
        self._combine = combiner(op)
        self._starts = np.array([start for start, _ in chunks], dtype=np.int64)
        # Previews are gathered in one numpy read per step when every chunk is long enough.
        self._preview_index = (
            np.arange(PREVIEW_ELEMENTS)
            if min(self._sizes, default=0) >= PREVIEW_ELEMENTS and buffers.flags.c_contiguous
            else None
        )

    # -- what algorithms call ------------------------------------------------------------

    @contextmanager
    def step(self, phase: str) -> Iterator[Machine]:
        """Open one round; transfers queued inside run concurrently when the block ends."""
        if self._pending is not None:
            raise AlgorithmBug("steps cannot nest")
        self._pending = []
        try:
            yield self
            pending = self._pending
        finally:
            self._pending = None
        if pending:
            self._execute(phase, pending)

    def send(self, src: int, dst: int, chunk: int, op: str = "copy") -> None:
        """Queue `chunk` from `src` to `dst` in the open step; `op` is "copy" or "reduce"."""
        if self._pending is None:
            raise AlgorithmBug("send outside a step")
        if op not in _OPS:
            raise AlgorithmBug(f"transfer op must be copy or reduce, got {op!r}")
        if src == dst:
            raise AlgorithmBug(f"rank {src} sends chunk {chunk} to itself")
        self._pending.append((src, dst, chunk, op))

    def send_chunks(self, src: int, dst: int, chunks, op: str = "copy") -> None:
        """Queue several chunks from `src` to `dst` as one message (one transfer per chunk)."""
        for chunk in chunks:
            self.send(src, dst, chunk, op)

    def all_pairs(self, phase: str, chunk_of: Callable[[int, int], int], op: str = "copy") -> None:
        """Run one all-port step: every rank sends `chunk_of(src, dst)` to every other rank."""
        with self.step(phase):
            for src in range(self.ranks):
                for dst in range(self.ranks):
                    if src != dst:
                        self.send(src, dst, chunk_of(src, dst), op)

    def root_step(
        self, phase: str, chunk_of: Callable[[int], int], op: str = "copy", *, to_root: bool
    ) -> None:
        """Run one all-port step between the root and every other rank r: `chunk_of(r)` goes
        from r to the root (`to_root`) or from the root to r."""
        with self.step(phase):
            for r in range(self.ranks):
                if r != self.root:
                    self.send(*((r, self.root) if to_root else (self.root, r)), chunk_of(r), op)

    def add_switch(self, name: str, kind: str) -> int:
        """Add a switch that reduces and forwards in the network; return its id (p, p+1, ...).

        A switch is a node of the trace, not a rank: it has no input and no output, transfers
        go to and from it like to a rank, and its contributions are checked like a rank's. Its
        cells start empty, and the first contribution a reduce brings lands as it is. It keeps
        no buffer the views show (an NVSwitch reduces in flight): its cells are left out of the
        steps' changed cells, and its sends out of `bytes_sent` (docs/design-notes.md).
        """
        switch = self.ranks + len(self.switches)
        self.switches.append({"id": switch, "name": name, "kind": kind})
        self._rows.append(np.zeros_like(self.buffers[0]))
        self._held.append({})
        self._sent.append(0)
        return switch

    def holders(self, rank: int, chunk: int) -> int:
        """Return the bitmask of contributions rank `rank` holds for `chunk`."""
        return self._held[rank].get(chunk, 0)

    @property
    def holdings(self) -> dict[tuple[int, int], int]:
        """Every (rank, chunk) -> mask a rank holds now (absent means empty)."""
        return {(r, c): m for r, held in enumerate(self._held) for c, m in held.items() if m}

    @property
    def bytes_sent(self) -> np.ndarray:
        """Bytes each rank has sent so far (switches' sends are not a rank's)."""
        return np.array(self._sent[: self.ranks], dtype=np.int64)

    # -- executing a round ---------------------------------------------------------------

    def _execute(self, phase: str, transfers: list[tuple[int, int, int, str]]) -> None:
        held, width, ranks = self._held, len(self.chunks), self.ranks
        new, fresh = self._new_holdings(transfers)
        self._move(transfers, new, fresh)
        for cell, mask in new.items():
            dst, chunk = divmod(cell, width)
            held[dst][chunk] = mask
        if self.switches:  # a switch's cells are no rank's state
            new = {cell: mask for cell, mask in new.items() if cell < ranks * width}
        previews = self._previews(list(new))
        step = Step(len(self.steps), phase, transfers, self._sizes, new, width, previews)
        self.steps.append(step)

    def _new_holdings(self, transfers) -> tuple[dict[int, int], set[int]]:
        """Return the new holdings of every target cell, checked before any data moves, and
        the empty switch cells a reduce fills first. Cells are keyed by the int
        rank·chunks + chunk: no tuple per transfer for the collector to track."""
        held, width = self._held, len(self.chunks)
        new: dict[int, int] = {}
        copied: set[int] = set()  # targets written by a copy
        fresh: set[int] = set()  # empty switch cells a reduce fills first: that one is written
        ranks = self.ranks
        for src, dst, chunk, op in transfers:
            incoming = held[src].get(chunk, 0)
            if not incoming:
                raise AlgorithmBug(f"rank {src} sends chunk {chunk} it does not hold")
            cell = dst * width + chunk
            if cell in new:
                if op == "copy" or cell in copied:
                    raise AlgorithmBug(
                        f"conflicting writes to rank {dst} chunk {chunk} in one step"
                    )
                mask = new[cell]
            elif op == "copy":
                new[cell] = incoming
                copied.add(cell)
                continue
            else:
                mask = held[dst].get(chunk, 0)
                if not mask and dst >= ranks:
                    new[cell] = incoming
                    fresh.add(cell)
                    continue
            if mask & incoming:
                raise AlgorithmBug(
                    f"rank {dst} chunk {chunk} would count a contribution twice "
                    f"(holds {mask:#x}, receives {incoming:#x} from rank {src})"
                )
            new[cell] = mask | incoming
        return new, fresh

    def _move(self, transfers, new: dict[int, int], fresh: set[int]) -> None:
        """Move and combine the data of one concurrent round, counting the bytes sent."""
        width = len(self.chunks)
        rows, spans, sent, chunk_bytes = self._rows, self._spans, self._sent, self._chunk_bytes
        # Read before write: the round is concurrent, so a source this round overwrites is
        # copied first. Most rounds (rings, trees) never read a cell they write.
        saved = {
            src * width + chunk: rows[src][spans[chunk]].copy()
            for src, _, chunk, _ in transfers
            if src * width + chunk in new
        }
        combine = self._combine
        with np.errstate(over="ignore", under="ignore"):  # IEEE inf/0, as MPI and NCCL give
            for src, dst, chunk, op in transfers:
                span = spans[chunk]
                data = saved.get(src * width + chunk) if saved else None
                if data is None:
                    data = rows[src][span]
                if op == "copy" or (fresh and dst * width + chunk in fresh):
                    rows[dst][span] = data
                    fresh.discard(dst * width + chunk)
                else:
                    target = rows[dst][span]
                    combine(target, data, out=target)
                sent[src] += chunk_bytes[chunk]

    def _previews(self, cells: list[int]) -> list[tuple] | np.ndarray:
        """Return the first PREVIEW_ELEMENTS values of each cell (fewer for shorter chunks)."""
        width = len(self.chunks)
        if self._preview_index is None:
            return [
                tuple(self._rows[dst][self._spans[chunk]][:PREVIEW_ELEMENTS].tolist())
                for dst, chunk in (divmod(cell, width) for cell in cells)
            ]
        # Every chunk is long enough: one gather for the whole step.
        dst, chunk = np.divmod(np.fromiter(cells, np.int64, len(cells)), width)
        index = (dst * self.buffers.shape[1] + self._starts[chunk])[:, None] + self._preview_index
        return self.buffers.reshape(-1)[index]
