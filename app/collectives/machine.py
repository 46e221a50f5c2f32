"""The simulated cluster an algorithm drives: one numpy buffer per rank, stepped in rounds.

An algorithm opens a step, queues transfers, and closes it. Closing executes the round as
real hardware would: every transfer reads its source as it was *before* the round (so two
ranks can swap or exchange-and-reduce in one step), then writes or reduces into its target.
The machine also checks the algorithm as it goes: no self-sends, no sending a chunk one does
not hold, no conflicting writes, and no contribution ever reduced in twice.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from .ops import combine
from .trace import PREVIEW_ELEMENTS, CellUpdate, Step, Transfer


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
        self.holdings = dict(holdings)
        self.op = op
        self.root = root
        self.ranks_per_node = ranks_per_node
        self.ranks = buffers.shape[0]
        self.steps: list[Step] = []
        self.bytes_sent = np.zeros(self.ranks, dtype=np.int64)
        self.topology: dict = {"kind": "complete"}
        self._pending: list[Transfer] | None = None

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
        if op not in ("copy", "reduce"):
            raise AlgorithmBug(f"transfer op must be copy or reduce, got {op!r}")
        if src == dst:
            raise AlgorithmBug(f"rank {src} sends chunk {chunk} to itself")
        start, stop = self.chunks[chunk]
        self._pending.append(Transfer(src, dst, chunk, stop - start, op))

    def send_chunks(self, src: int, dst: int, chunks, op: str = "copy") -> None:
        """Queue several chunks from `src` to `dst` as one message (one transfer per chunk)."""
        for chunk in chunks:
            self.send(src, dst, chunk, op)

    def holders(self, rank: int, chunk: int) -> int:
        """Return the bitmask of contributions rank `rank` holds for `chunk`."""
        return self.holdings.get((rank, chunk), 0)

    # -- executing a round ---------------------------------------------------------------

    def _execute(self, phase: str, transfers: list[Transfer]) -> None:
        targets: dict[tuple[int, int], list[Transfer]] = {}
        for t in transfers:
            if not self.holders(t.src, t.chunk):
                raise AlgorithmBug(f"rank {t.src} sends chunk {t.chunk} it does not hold")
            targets.setdefault((t.dst, t.chunk), []).append(t)

        new_holders: dict[tuple[int, int], int] = {}
        for (dst, chunk), writes in targets.items():
            kinds = {w.op for w in writes}
            if len(writes) > 1 and kinds != {"reduce"}:
                raise AlgorithmBug(f"conflicting writes to rank {dst} chunk {chunk} in one step")
            if kinds == {"copy"}:
                new_holders[(dst, chunk)] = self.holders(writes[0].src, chunk)
                continue
            mask = self.holders(dst, chunk)
            for w in writes:
                incoming = self.holders(w.src, chunk)
                if mask & incoming:
                    raise AlgorithmBug(
                        f"rank {dst} chunk {chunk} would count a contribution twice "
                        f"(holds {mask:#x}, receives {incoming:#x} from rank {w.src})"
                    )
                mask |= incoming
            new_holders[(dst, chunk)] = mask

        # Read every payload before writing any target: the round is concurrent.
        written = set(targets)
        payloads = []
        for t in transfers:
            start, stop = self.chunks[t.chunk]
            data = self.buffers[t.src, start:stop]
            payloads.append(data.copy() if (t.src, t.chunk) in written else data)

        with np.errstate(over="ignore", under="ignore"):  # IEEE inf/0, as MPI and NCCL give
            for t, data in zip(transfers, payloads, strict=True):
                start, stop = self.chunks[t.chunk]
                target = self.buffers[t.dst, start:stop]
                if t.op == "copy":
                    target[...] = data
                else:
                    combine(self.op, target, data)
                self.bytes_sent[t.src] += data.nbytes

        updates = []
        for (dst, chunk), mask in new_holders.items():
            self.holdings[(dst, chunk)] = mask
            start, stop = self.chunks[chunk]
            preview = self.buffers[dst, start : min(stop, start + PREVIEW_ELEMENTS)].tolist()
            updates.append(CellUpdate(dst, chunk, mask, tuple(preview)))
        self.steps.append(Step(len(self.steps), phase, transfers, updates))
