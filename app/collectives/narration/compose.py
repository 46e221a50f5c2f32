"""Put each step's sentence together: header, what moves and why, progress and goal, start, end."""

from __future__ import annotations

from itertools import islice

from ..trace import Trace, chunk_label
from .facts import Progress, Run, View
from .shapes import Bruck, Chain, Complete, Hierarchical, Hypercube, Pat, Ring, Shape, Torus
from .switch import Switch
from .trees import DoubleTree, PipelinedTrees, Tree
from .words import Words

SHAPES: dict[str, type[Shape]] = {
    "ring": Ring,
    "hypercube": Hypercube,
    "hierarchical": Hierarchical,
    "chain": Chain,
    "circulant": Bruck,
    "complete": Complete,
    "tree": Tree,
    "trees": DoubleTree,
    "switch": Switch,
    "torus": Torus,
}


def shape_for(trace: Trace) -> type[Shape]:
    """Return the shape that reads `trace`: by its topology, with two refinements (two trees
    cut into chunks are pipelined; PAT's circulant runs its distances the other way)."""
    topology = trace.topology
    if topology["kind"] == "trees" and topology.get("chunks_per_tree", 1) > 1:
        return PipelinedTrees
    if trace.algorithm == "pat":
        return Pat
    return SHAPES[topology["kind"]]


class Narrator:
    """One trace's narration in one language; the shapes call back for words and phrases."""

    def __init__(self, trace: Trace, language: str = "en") -> None:
        self.run = run = Run(trace)
        self.words = Words(language)
        self.shape = shape_for(trace)()
        self.unit = self._unit(trace)
        self._said: dict[tuple, str] = {}
        self._keys_found: dict[tuple[str, str], str | None] = {}
        topology = trace.topology
        self.base = {
            "p": run.p,
            "root": trace.root,
            "last": run.p - 1,
            "op": self.words.say(f"op {trace.op}"),
            "elements": trace.elements,
            "chunks": trace.chunk_count,
            "count": self.words.say(self.unit, n=trace.chunk_count),
            "noun": self.words.say(f"noun {self.unit}"),
            "pof2": len(run.survivors),
            "hops": len(topology.get("order", ())) - 1,
            "head": topology.get("order", [None])[0],
            "tail": topology.get("order", [None])[-1],
            "nodes": topology.get("nodes"),
            "g": topology.get("ranks_per_node"),
        }

    @staticmethod
    def _unit(trace: Trace) -> str:
        """The word for a chunk of this run: block, segment, micro-batch or chunk."""
        if trace.collective == "sendrecv":
            return "micro-batch"
        if trace.topology["kind"] == "chain":
            return "segment"
        if trace.collective in ("allgather", "gather", "scatter", "reduce_scatter", "all_to_all"):
            return "block"
        return "chunk"

    # -- phrases the shapes use ----------------------------------------------------------

    def say(self, key: str, n: int | None = None, **fields) -> str:
        """Fill template `key` with the run's fields and `fields`. Remembered: most phrases
        ("every rank", "1 chunk (32 bytes)", the why of a part) repeat from step to step, and
        filling templates is most of the narration's cost."""
        memo = (key, n, *fields.items())
        text = self._said.get(memo)
        if text is None:
            text = self._said[memo] = self.fill(key, n, **fields)
        return text

    def fill(self, key: str, n: int | None = None, **fields) -> str:
        """Fill template `key` as `say` does, not remembered: for a phrase only one step says
        (its header, the contributions it leaves at one rank)."""
        return self.words.fill(key, {**self.base, **fields, "n": n}, n)

    def has(self, key: str) -> bool:
        return key in self.words.table

    def who(self, ranks: list[int]) -> str:
        return self.words.ranks(ranks, self.run.p)

    def label(self, chunk: int) -> str:
        return chunk_label(chunk)

    def pairs(self, pairs: list[tuple[int, int]]) -> str:
        return self.words.listing([self.say("pair", a=a, b=b) for a, b in pairs])

    def amount(self, v: View, many: int = 1) -> str:
        """How much each message carries: "its whole vector (48 bytes)", "2 chunks (16 bytes
        each)". Remembered by the counts and sizes, which most steps repeat."""
        counts, sizes = v.count_range(), v.size_range()
        memo = ("amount", counts, sizes, many)
        text = self._said.get(memo)
        if text is None:
            size = self.words.sizes(sizes)
            if self.run.trace.chunk_count == 1:
                count = self.say("whole vector", n=many)
            else:
                count = self.words.count(self.unit, counts)
            text = self._said[memo] = self.say("amount", count=count, size=size)
        return text

    def verb(self, v: View, many: int) -> str:
        """What the receiver does: combine with the run's op, or keep a copy."""
        return self.say(f"combine {self.run.trace.op}" if v.reduces else "store", n=many)

    # -- the sentences -------------------------------------------------------------------

    def sentences(self) -> list[str]:
        steps = self.run.trace.steps
        views = [View(self.run, s) for s in steps]
        kinds = [self.shape.kind(self, v) for v in views]
        progress = Progress(self.run)
        out = []
        ends = self.shape.ends(kinds)
        for step, view, kind, end in zip(steps, views, kinds, ends, strict=True):
            progress.apply(step)
            out.append(self._step(view, kind, end, progress))
        return out

    def _step(self, v: View, kind: str, end: int, progress: Progress) -> str:
        fields = self.shape.fields(self, v)
        what = self.shape.what(self, v, kind)
        why = self._lookup("why", kind, fields)
        parts = [self.fill("because", what=what, why=why) if why else what]
        last = v.index == self.run.n - 1
        if v.index == 0:
            parts.insert(0, self._start())
        if last:
            parts.append(self.say(f"end {self.run.trace.collective}"))
        else:
            parts.append(self._outlook(v, kind, end, progress, fields))
        phase = self.words.phase(kind, self.shape.name, **fields)
        header = self.fill("header", k=v.index + 1, total=self.run.n, phase=phase)
        return self.words.sentences(header, parts)

    def _outlook(self, v: View, kind: str, end: int, progress: Progress, fields: dict) -> str:
        now = self._progress(v, progress)
        goal = self._lookup("goal", kind, fields)
        if not goal:
            return now
        if end == v.index:
            ahead = self.say("now", goal=goal)
        else:
            ahead = self.say("after", end=end + 1, goal=goal)
        return self.fill("join", a=now, b=ahead)

    def _keys(self, prefix: str, kind: str) -> list[str]:
        trace = self.run.trace
        return [
            f"{prefix} {trace.collective} {trace.algorithm} {kind}",
            f"{prefix} {trace.algorithm} {kind}",
            f"{prefix} {trace.collective} {kind}",
            f"{prefix} {trace.collective} {self.shape.name}",
            f"{prefix} {self.shape.name} {kind}",
            f"{prefix} {kind}",
        ]

    def _lookup(self, prefix: str, kind: str, fields: dict) -> str:
        """Say the most specific `why` or `goal` template for `kind` ("" if there is none)."""
        memo = (prefix, kind)
        if memo not in self._keys_found:
            keys = self._keys(prefix, kind)
            self._keys_found[memo] = next((k for k in keys if self.has(k)), None)
        key = self._keys_found[memo]
        return self.say(key, **fields) if key else ""

    def _start(self) -> str:
        trace, run = self.run.trace, self.run
        size = self.words.size(trace.elements * trace.itemsize)
        block = trace.chunks[0][1] - trace.chunks[0][0]
        if trace.collective in ("broadcast",):
            key = "start root"
        elif trace.collective in ("scatter", "all_to_all", "sendrecv"):
            key = f"start {trace.collective}"
        elif run.spec.block_per_rank:
            key = "start blocks"
        else:
            key = "start every"
        return self.say(key, size=size, block=block)

    def _progress(self, v: View, progress: Progress) -> str:
        """Say what the step achieved at one rank: contributions gathered, or finished chunks."""
        said = self.shape.progress(self, v, progress)
        if said:
            return said
        if v.reduces:
            dst = v.first[1]
            k = progress.holders(dst, v.chunk).bit_count()
            key = "complete" if k == self.run.p else "contributions"
            return self.fill(key, r=dst, c=self.label(v.chunk), k=k)
        outputs = progress.outputs
        if self.run.spec.root_only_output:
            root = self.run.trace.root
            total = self.say(self.unit, n=len(outputs[root]))
            return self.fill("root has", r=root, k=progress.final(root), total=total)
        growing = list(islice((d for _, d in v.messages if len(outputs[d]) > 1), 3))
        if not growing:
            total = sum(1 for out in outputs if out)
            return self.fill("ranks final", k=progress.finished(), t=total)
        # Follow a rank still short of its result, if this step left one.
        for dst in growing:
            k = progress.final(dst)
            if k < len(outputs[dst]):
                break
        else:
            dst = growing[0]
            k = progress.final(dst)
        total = self.say(self.unit, n=len(outputs[dst]))
        key = "has all" if k == len(outputs[dst]) else "has final"
        return self.fill(key, r=dst, k=k, total=total)
