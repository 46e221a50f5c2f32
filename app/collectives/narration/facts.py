"""What the narration reads off a trace: each step's messages, and who holds what after it.

A step's transfers are grouped into messages (one per sender and receiver), summarised by
counts and sizes, never kept per transfer in the text: a 256-rank step can have 65,000
transfers. `Progress` replays the steps' changed cells once, in order, so that "rank 3 now has
5 of 8 final chunks" costs one dictionary update per changed cell (as the lab's own replay does),
not a `holdings_at` per step.
"""

from __future__ import annotations

from collections import Counter
from operator import eq, itemgetter, sub

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
        self.topology = trace.topology
        folded = {int(k): v for k, v in trace.topology.get("folded", {}).items()}
        self.folded = folded  # extra rank -> the survivor that stands in for it
        # Survivors of a fold, in order: survivor n of the hypercube is survivors[n].
        self.survivors = [r for r in range(self.p) if r not in folded]
        self.hypercube_rank = {r: n for n, r in enumerate(self.survivors)}


class View:
    """One step seen as messages: who sends how many chunks, how many bytes, to whom.

    Built from the step's compact moves with C-level passes where it can (`Counter`, `map`):
    a 64-rank ring has 8,000 transfers, and the narration must stay a small part of a run.
    Every algorithm either copies or reduces in a whole step, so the first move's op is the
    step's.
    """

    __slots__ = (
        "index",
        "moves",
        "messages",
        "nbytes",
        "senders",
        "receivers",
        "reduces",
        "first",
        "chunk",
    )

    def __init__(self, run: Run, step: Step) -> None:
        moves = step.moves
        pairs = list(map(_PAIR, moves))
        self.index = step.index
        self.moves = moves  # (src, dst, chunk, op), for a shape that needs every chunk
        self.messages = Counter(pairs)  # (src, dst) -> chunks it carries, in sending order
        size = run.chunk_bytes
        if len(self.messages) == len(moves):  # one chunk per message: no loop in Python
            self.nbytes = dict(zip(pairs, map(size.__getitem__, map(_CHUNK, moves)), strict=True))
        else:
            self.nbytes = dict.fromkeys(self.messages, 0)
            for pair, chunk in zip(pairs, map(_CHUNK, moves), strict=True):
                self.nbytes[pair] += size[chunk]
        self.senders = sorted(set(map(_SRC, self.messages)))
        self.receivers = sorted(set(map(_DST, self.messages)))
        src, dst, chunk, op = moves[0]
        self.reduces = op == "reduce"
        self.first = (src, dst)  # the message the sentence follows, and its first chunk
        self.chunk = chunk

    def counts(self) -> list[int]:
        """Chunks per message."""
        return list(self.messages.values())

    def sizes(self) -> list[int]:
        """Bytes per message."""
        return list(self.nbytes.values())

    def shifts(self, p: int) -> set[int]:
        """The distances (dst - src) mod p of every message."""
        gaps = map(sub, map(_DST, self.messages), map(_SRC, self.messages))
        return set(map(p.__rmod__, gaps))


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
