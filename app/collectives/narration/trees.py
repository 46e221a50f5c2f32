"""Tree shapes: binomial and binary trees, the reduce-broadcast star, NCCL's double binary tree.

A step goes up a tree when every message goes from a rank to its parent, down when from a
parent to its child (the topology's parent lists, docs/engine.md). The van de Geijn broadcast
draws a tree and then a ring: a step in which every rank sends is its ring allgather.
"""

from __future__ import annotations

from .facts import View
from .shapes import Ring, Shape


class Tree(Shape):
    name = "tree"

    def kind(self, n, v: View) -> str:
        trace = n.run.trace
        parent = n.run.topology["parent"]
        if len(v.senders) == n.run.p:
            return "ring"
        up = all(parent[src] == dst for src, dst in v.messages)
        if trace.algorithm == "reduce_broadcast":
            return "to_root" if up else "from_root"
        if up:
            return "gather_up" if trace.collective == "gather" else "up"
        scatters = trace.collective == "scatter" or trace.algorithm == "scatter_allgather"
        return "scatter_down" if scatters else "down"

    def what(self, n, v: View, kind: str) -> str:
        if kind == "ring":
            return Ring().what(n, v, kind)
        many = 1 if len(v.senders) == 1 else 2
        if kind in ("to_root", "from_root"):
            key = kind.replace("_", " ")
            who, whom = n.who(v.senders), n.who(v.receivers)
            return n.say(key, who=who, whom=whom, amount=n.amount(v), verb=n.verb(v, 1))
        return n.say(
            "up" if kind in ("up", "gather_up") else "down",
            n=many,
            who=n.who(v.senders),
            whom=n.who(v.receivers),
            amount=n.amount(v, many),
            verb=n.verb(v, len(v.receivers)),
        )


class DoubleTree(Shape):
    """Two trees at once, tree t carrying chunk t (half of the data) up and then down."""

    name = "double_tree"

    def _moving(self, n, v: View) -> dict[int, tuple[str, list[int], list[int]]]:
        """Map each chunk (tree) moving this step to its direction, senders and receivers."""
        parents = n.run.topology["parents"]
        out: dict[int, tuple[str, list[int], list[int]]] = {}
        for src, dst, c, _ in v.moves:
            direction = "up" if parents[c][src] == dst else "down"
            _, senders, receivers = out.setdefault(c, (direction, [], []))
            senders.append(src)
            receivers.append(dst)
        return out

    def kind(self, n, v: View) -> str:
        directions = {direction for direction, _, _ in self._moving(n, v).values()}
        return directions.pop() if len(directions) == 1 else "mixed"

    def what(self, n, v: View, kind: str) -> str:
        parts = [
            n.say(
                f"half {direction}",
                label=n.label(c),
                who=n.who(sorted(set(senders))),
                whom=n.who(sorted(set(receivers))),
            )
            for c, (direction, senders, receivers) in sorted(self._moving(n, v).items())
        ]
        return n.say("halves", parts=n.say("while").join(parts), size=n.words.sizes(v.sizes()))


class PipelinedTrees(DoubleTree):
    """Two trees, each half cut into chunks that stream up and back down: up and down overlap."""

    name = "pipelined_trees"

    def _streams(self, n, v: View) -> dict[tuple[int, str], tuple[list, list, list]]:
        """Map (tree, direction) to the chunks moving that way, their senders and receivers."""
        parents = n.run.topology["parents"]
        out: dict[tuple[int, str], tuple[list, list, list]] = {}
        for src, dst, c, _ in v.moves:
            tree = c % len(parents)  # tree t carries chunks t, t+2, ...
            direction = "up" if parents[tree][src] == dst else "down"
            chunks, senders, receivers = out.setdefault((tree, direction), ([], [], []))
            if c not in chunks:
                chunks.append(c)
            senders.append(src)
            receivers.append(dst)
        return out

    def kind(self, n, v: View) -> str:
        directions = {direction for _, direction in self._streams(n, v)}
        return directions.pop() if len(directions) == 1 else "mixed"

    def what(self, n, v: View, kind: str) -> str:
        parts = []
        for (tree, direction), (chunks, senders, receivers) in sorted(self._streams(n, v).items()):
            labels = n.words.listing([n.label(c) for c in sorted(chunks)])
            parts.append(
                n.say(
                    f"stream {direction}",
                    n=len(chunks),
                    labels=labels,
                    tree=n.say(f"tree {tree}"),
                    who=n.who(sorted(set(senders))),
                    whom=n.who(sorted(set(receivers))),
                )
            )
        return n.say("halves", parts=n.say("while").join(parts), size=n.words.sizes(v.sizes()))
