"""What the narration reads off a trace: each step's messages, and who holds what after it.

A step's transfers are grouped into messages (one per sender and receiver), summarised by
counts and sizes, never kept per transfer in the text: a 256-rank step can have 65,000
transfers. `Progress` replays the steps' changed cells once, in order, so that "rank 3 now has
5 of 8 final chunks" costs one dictionary update per changed cell (as the lab's own replay does),
not a `holdings_at` per step.
"""

from __future__ import annotations

from collections import Counter
from operator import eq, itemgetter

from ..layouts import COLLECTIVES, full_mask, receives_output
from ..trace import Step, Trace


class Run:
    """The run-wide facts every sentence may quote: ranks, sizes, the root, the topology."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.p = trace.ranks
        self.n = trace.total_steps
        self.spec = COLLECTIVES[trace.collective]
        self.chunk_bytes = [(stop - start) * trace.itemsize for start, stop in trace.chunks]
        self.equal_chunks = len(set(self.chunk_bytes)) == 1
        self.topology = trace.topology
        folded = {int(k): v for k, v in trace.topology.get("folded", {}).items()}
        self.folded = folded  # extra rank -> the survivor that stands in for it
        # Survivors of a fold, in order: survivor n of the hypercube is survivors[n].
        self.survivors = [r for r in range(self.p) if r not in folded]
        self.hypercube_rank = {r: n for n, r in enumerate(self.survivors)}


class View:
    """One step seen as messages: who sends how many chunks, how many bytes, to whom.

    Built from the step's compact moves with C-level passes where it can, and only what every
    shape reads; the rest (senders, receivers, bytes per message, distances) on first use: a
    64-rank ring has 8,000 transfers, and the narration must stay a small part of a run.
    Every algorithm either copies or reduces in a whole step, so the first move's op is the
    step's.
    """

    __slots__ = (
        "index",
        "moves",
        "messages",
        "reduces",
        "first",
        "chunk",
        "_run",
        "_pairs",
        "_one_chunk_each",
        "_nbytes",
        "_shifts",
        "_senders",
        "_receivers",
    )

    def __init__(self, run: Run, step: Step) -> None:
        moves = step.moves
        pairs = list(map(_PAIR, moves))
        self.index = step.index
        self.moves = moves  # (src, dst, chunk, op), for a shape that needs every chunk
        # (src, dst) -> chunks it carries, in sending order; most steps send one chunk each.
        messages = dict.fromkeys(pairs, 1)
        self._one_chunk_each = len(messages) == len(moves)
        self.messages = messages if self._one_chunk_each else Counter(pairs)
        src, dst, chunk, op = moves[0]
        self.reduces = op == "reduce"
        self.first = (src, dst)  # the message the sentence follows, and its first chunk
        self.chunk = chunk
        self._run, self._pairs = run, pairs
        self._nbytes: dict[tuple[int, int], int] | None = None  # read by few shapes: on demand
        self._shifts: set[int] | None = None
        self._senders: list[int] | None = None
        self._receivers: list[int] | None = None

    @property
    def senders(self) -> list[int]:
        """The ranks that send in this step, in order."""
        if self._senders is None:
            self._senders = sorted(set(map(_SRC, self._pairs)))
        return self._senders

    @property
    def receivers(self) -> list[int]:
        """The ranks that receive in this step, in order."""
        if self._receivers is None:
            self._receivers = sorted(set(map(_DST, self._pairs)))
        return self._receivers

    @property
    def nbytes(self) -> dict[tuple[int, int], int]:
        """Bytes per message, (src, dst) -> bytes."""
        if self._nbytes is None:
            size = self._run.chunk_bytes
            chunks = map(size.__getitem__, map(_CHUNK, self.moves))
            if self._one_chunk_each:  # no Python loop
                self._nbytes = dict(zip(self._pairs, chunks, strict=True))
            else:
                self._nbytes = dict.fromkeys(self.messages, 0)
                for pair, nbytes in zip(self._pairs, chunks, strict=True):
                    self._nbytes[pair] += nbytes
        return self._nbytes

    def sizes(self) -> list[int]:
        """Bytes per message."""
        if self._one_chunk_each:
            return list(map(self._run.chunk_bytes.__getitem__, map(_CHUNK, self.moves)))
        return list(self.nbytes.values())

    def count_range(self) -> tuple[int, int]:
        """The fewest and the most chunks a message carries."""
        if self._one_chunk_each:
            return 1, 1
        return min(self.messages.values()), max(self.messages.values())

    def size_range(self) -> tuple[int, int]:
        """The smallest and the largest message, in bytes."""
        run = self._run
        if run.equal_chunks and self._one_chunk_each:
            return run.chunk_bytes[0], run.chunk_bytes[0]
        sizes = self.sizes()
        return min(sizes), max(sizes)

    def shifts(self) -> set[int]:
        """The distances (dst - src) mod p of every message."""
        if self._shifts is None:
            p = self._run.p
            self._shifts = {(dst - src) % p for src, dst in self._pairs}
        return self._shifts


_PAIR = itemgetter(0, 1)
_SRC = itemgetter(0)
_DST = itemgetter(1)
_CHUNK = itemgetter(2)


class Progress:
    """Holdings replayed step by step, and what they say about each rank's result.

    The holdings are one dict keyed like `Step.changed` (rank * chunk_count + chunk), so each
    step is one `dict.update`; counting a rank's finished chunks is done only for the rank a
    sentence names.
    """

    def __init__(self, run: Run) -> None:
        trace = run.trace
        self.width = width = trace.chunk_count
        full = full_mask(run.p)
        reduces = run.spec.reduces
        self.want = [full if reduces else 1 << (src or 0) for src in trace.chunk_source]
        self.outputs = self._outputs(trace)
        self.masks = {r * width + c: m for (r, c), m in trace.initial_holdings.items()}

    @staticmethod
    def _outputs(trace: Trace) -> list[list[int]]:
        """List, for each rank, the chunks that make up its result (none if it has no output)."""
        everyone: list[int] = []
        mine: list[list[int]] = [[] for _ in range(trace.ranks)]
        for c, dest in enumerate(trace.chunk_dest):
            (everyone if dest is None else mine[dest]).append(c)
        return [
            everyone + mine[r] if receives_output(trace.collective, r, root=trace.root) else []
            for r in range(trace.ranks)
        ]

    def apply(self, step: Step) -> None:
        self.masks.update(step.changed)

    def holders(self, rank: int, chunk: int) -> int:
        return self.masks.get(rank * self.width + chunk, 0)

    def final(self, rank: int) -> int:
        """Count the chunks of `rank`'s result that are in their final state."""
        chunks, base = self.outputs[rank], rank * self.width
        # All in C: a 256-rank allgather asks this of 256 chunks at each of 255 steps.
        held = map(self.masks.get, map(base.__add__, chunks))
        return sum(map(eq, held, map(self.want.__getitem__, chunks)))

    def finished(self) -> int:
        """Count the ranks whose whole result is in place."""
        return sum(1 for r, out in enumerate(self.outputs) if out and self.final(r) == len(out))
