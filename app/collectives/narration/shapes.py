"""How each communication shape moves data, read off a step: the "what" of each sentence.

One class per topology the engine draws (docs/engine.md, "Topology"). `kind` names the part
of the algorithm a step belongs to (reduce-scatter, fold-in, pipeline filling, ...), read
from the step's messages and the topology, not from the step's index, so the text follows
the trace at any rank count. `what` says what moves; the why and the goal of each kind are
templates (en.py) looked up by family and kind.
"""

from __future__ import annotations

from .facts import View


class Shape:
    """The default reading of a step: who sends how much to whom, copied or combined."""

    name = "shape"

    def kind(self, n, v: View) -> str:
        return "reduce_scatter" if v.reduces else "allgather"

    def fields(self, n, v: View) -> dict:
        """Numbers a phase name or a why template needs (a distance, a shift)."""
        return {}

    def progress(self, n, v: View, progress) -> str:
        """Say what the step achieved, where a shape knows better than the default ("")."""
        return ""

    def ends(self, kinds: list[str]) -> list[int]:
        """Return, for each step, the index of the last step of its part: its goal is met then."""
        ends = list(range(len(kinds)))
        for i in reversed(range(len(kinds) - 1)):
            if kinds[i] == kinds[i + 1]:
                ends[i] = ends[i + 1]
        return ends

    def what(self, n, v: View, kind: str) -> str:
        many = len(v.senders) > 1 and len(v.senders) < n.run.p
        return n.say(
            "sends to",
            n=2 if many else 1,
            who=n.who(v.senders),
            amount=n.amount(v),
            whom=n.who(v.receivers),
            verb=n.verb(v, 2 if len(v.receivers) > 1 else 1),
        )


class Ring(Shape):
    name = "ring"

    def what(self, n, v: View, kind: str) -> str:
        p = n.run.p
        if n.run.topology.get("bidirectional") and v.shifts() == {1, p - 1}:
            return n.say("both ways", amount=n.amount(v), verb=n.verb(v, 2))
        if v.shifts() != {1}:
            return super().what(n, v, kind)
        return n.say("ring", who=n.who(v.senders), amount=n.amount(v), verb=n.verb(v, 1))


class Hypercube(Shape):
    """Recursive doubling and halving, Rabenseifner: partners n XOR 2^k, with MPICH's fold."""

    name = "hypercube"
    KINDS = {
        ("allreduce", "recursive_doubling"): ("exchange", "exchange"),
        ("allreduce", "rabenseifner"): ("halving", "doubling"),
        ("allgather", "recursive_doubling"): ("exchange", "exchange"),
        ("reduce_scatter", "recursive_halving"): ("halving", "halving"),
    }

    def kind(self, n, v: View) -> str:
        folded = n.run.folded
        if folded and all(src in folded and folded[src] == dst for src, dst in v.messages):
            return "fold_in"
        if folded and all(dst in folded and folded[dst] == src for src, dst in v.messages):
            return "fold_out"
        reducing, copying = self.KINDS[(n.run.trace.collective, n.run.trace.algorithm)]
        return reducing if v.reduces else copying

    def fields(self, n, v: View) -> dict:
        rank = n.run.hypercube_rank
        src, dst = v.first
        if src in rank and dst in rank:
            return {"d": rank[src] ^ rank[dst]}
        return {}

    def what(self, n, v: View, kind: str) -> str:
        many = 2 if len(v.senders) > 1 else 1
        if kind in ("fold_in", "fold_out"):
            who, whom = n.who(v.senders), n.who(v.receivers)
            amount, verb = n.amount(v, many), n.verb(v, many)
            return n.say(kind, n=many, who=who, whom=whom, amount=amount, verb=verb)
        pairs = sorted({tuple(sorted(pair)) for pair in v.messages})
        listed = n.pairs(pairs) if len(pairs) <= 4 else n.say("n pairs", n=len(pairs))
        key = "halve" if kind == "halving" else "partner"
        common = dict(amount=n.amount(v), verb=n.verb(v, 1), pairs=listed)
        return n.say(key, **self.fields(n, v), **common)


class Hierarchical(Shape):
    """Rings inside each node, then rings across nodes (one per local rank), then inside again."""

    name = "hierarchical"

    def kind(self, n, v: View) -> str:
        g = n.run.topology["ranks_per_node"]
        src, dst = v.first
        inside = src // g == dst // g
        if inside:
            return "intra_rs" if v.reduces else "intra_ag"
        return "inter_rs" if v.reduces else "inter_ag"

    def what(self, n, v: View, kind: str) -> str:
        topology = n.run.topology
        if kind.startswith("intra"):
            return n.say("intra", topology["nodes"], amount=n.amount(v), verb=n.verb(v, 1))
        return n.say("inter", topology["ranks_per_node"], amount=n.amount(v), verb=n.verb(v, 1))


class Torus(Shape):
    """Rings along the rows of a grid, then rings down its columns, then along the rows again."""

    name = "torus"

    def kind(self, n, v: View) -> str:
        columns = n.run.topology["columns"]
        src, dst = v.first
        along = "row" if src // columns == dst // columns else "col"
        return f"{along}_{'rs' if v.reduces else 'ag'}"

    def what(self, n, v: View, kind: str) -> str:
        key = "torus row" if kind.startswith("row") else "torus column"
        return n.say(key, amount=n.amount(v), verb=n.verb(v, 1))


class Chain(Shape):
    """A pipeline along a chain: filling, full (every link busy), draining."""

    name = "chain"

    def kind(self, n, v: View) -> str:
        order = n.run.topology["order"]
        first, last = order[0], order[-2]
        if len(order) > 2 and first in v.senders and last in v.senders:
            return "full"
        if len(order) == 2:
            return "full"
        return "fill" if first in v.senders else "drain"

    def ends(self, kinds: list[str]) -> list[int]:
        return [len(kinds) - 1] * len(kinds)  # every part of a pipeline serves the one goal

    def what(self, n, v: View, kind: str) -> str:
        if len(v.messages) == 1:
            (src, dst), chunk = v.first, v.chunk
            size = n.words.size(n.run.chunk_bytes[chunk])
            label = n.label(chunk)
            return n.say("pass one", src=src, dst=dst, label=label, size=size, verb=n.verb(v, 1))
        size = n.words.sizes(v.sizes())
        key = "pass all" if len(v.messages) == n.base["hops"] else "pass many"
        return n.say(key, k=len(v.messages), size=size, verb=n.verb(v, 2))


class Bruck(Shape):
    """Bruck's circulant: distances 1, 2, 4, ... (allgather sends down, all-to-all up)."""

    name = "bruck"

    def kind(self, n, v: View) -> str:
        return "distance"

    def fields(self, n, v: View) -> dict:
        src, dst = v.first
        down = n.run.trace.collective == "allgather"
        return {"d": (src - dst) % n.run.p if down else (dst - src) % n.run.p}

    def ends(self, kinds: list[str]) -> list[int]:
        return [len(kinds) - 1] * len(kinds)

    def what(self, n, v: View, kind: str) -> str:
        key = f"bruck {n.run.trace.collective}"
        return n.say(key, amount=n.amount(v), **self.fields(n, v))


class Pat(Bruck):
    """NCCL's PAT: distances 2^d, allgather down to rank r - 2^d, reduce-scatter up to r + 2^d."""

    name = "pat"

    def what(self, n, v: View, kind: str) -> str:
        key = f"pat {n.run.trace.collective}"
        return n.say(key, amount=n.amount(v), **self.fields(n, v))


class Complete(Shape):
    """Pairwise exchange (a shift per step) and the all-port `direct` algorithms."""

    name = "complete"

    def kind(self, n, v: View) -> str:
        if n.run.trace.algorithm == "pairwise":
            return "shift"
        root = n.run.trace.root
        if v.senders == [root]:
            return "direct_from_root"
        return "direct_to_root" if v.receivers == [root] else "direct_all"

    def fields(self, n, v: View) -> dict:
        src, dst = v.first
        if n.run.trace.algorithm == "pairwise":
            return {"d": (dst - src) % n.run.p}
        return self._contention(n, v)

    def _contention(self, n, v: View) -> dict:
        """The busiest rank's messages and bytes, out and in: what all-port hides."""
        sent: dict[int, tuple[int, int]] = {}  # rank -> (messages, bytes)
        heard: dict[int, tuple[int, int]] = {}
        for (src, dst), nbytes in v.nbytes.items():
            count, total = sent.get(src, (0, 0))
            sent[src] = (count + 1, total + nbytes)
            count, total = heard.get(dst, (0, 0))
            heard[dst] = (count + 1, total + nbytes)
        out, out_bytes = max(sent.values())
        inn, in_bytes = max(heard.values())
        size, say = n.words.size, n.say
        return {
            "out": say("message", n=out),
            "out_size": size(out_bytes),
            "inn": say("message", n=inn),
            "in_size": size(in_bytes),
        }

    def ends(self, kinds: list[str]) -> list[int]:
        return [len(kinds) - 1] * len(kinds)

    def what(self, n, v: View, kind: str) -> str:
        if kind == "shift":
            return n.say("shift", amount=n.amount(v), **self.fields(n, v))
        key = kind.replace("_", " ")
        return n.say(key, amount=n.amount(v), verb=n.verb(v, 1), others=n.run.p - 1)
