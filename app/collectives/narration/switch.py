"""How the in-network algorithms read: ranks send into a switch that adds, and it sends back.

A switch is a node after the ranks (id p, p+1, ...; the topology's `switches`). A step may
do three things at once: ranks send into the switch (it adds, or takes blocks to multicast),
the switch sends out (multicast, or each block to its rank), and, for CollNet, ranks pass
partial sums up or results down the chain inside each node. The sentence says each part that
happens, with its real sizes; the progress names a rank that just received, or, when none did,
what the switch now holds.
"""

from __future__ import annotations

from .facts import Progress, View
from .shapes import Shape


class Switch(Shape):
    name = "switch"

    def kind(self, n, v: View) -> str:
        p = n.run.p
        into = any(d >= p for _, d in v.messages)
        out = any(s >= p for s, _ in v.messages)
        if into and out:
            return "switch_both"
        if into:
            return "switch_in"
        if out:
            return "switch_out"
        return "chain_up" if v.reduces else "chain_down"

    def what(self, n, v: View, kind: str) -> str:
        p, size = n.run.p, n.run.chunk_bytes
        into: dict[int, list[int]] = {}  # sender -> chunks it sends into the switch
        out: dict[int, list[int]] = {}  # receiver -> chunks the switch sends it
        up, down = [], []  # chain moves: (src, chunk)
        reduce_in = False
        for src, dst, chunk, op in v.moves:
            if dst >= p:
                into.setdefault(src, []).append(chunk)
                reduce_in |= op == "reduce"
            elif src >= p:
                out.setdefault(dst, []).append(chunk)
            else:
                (up if op == "reduce" else down).append(size[chunk])
        name = self._switch_name(n)
        parts = []
        if into:
            parts.append(self._into(n, into, reduce_in, name))
        if out:
            parts.append(self._out(n, out, name))
        if up:
            parts.append(n.say("chain up", len(up), k=len(up), size=n.words.sizes(up)))
        if down:
            parts.append(n.say("chain down", len(down), k=len(down), size=n.words.sizes(down)))
        text = parts[0]
        for part in parts[1:]:
            text = n.say("and while", a=text, b=part)
        return text

    @staticmethod
    def _switch_name(n) -> str:
        switches = n.run.topology.get("switches") or [{"name": "switch"}]
        name = switches[0]["name"]
        key = f"switch {name}"  # a name with words in it ("SHARP switch") is translated
        return n.say(key) if n.has(key) else name

    def _amount(self, n, chunks: list[list[int]]) -> str:
        """How much each sender (or receiver) moves: "1 chunk (16 bytes)", "8 blocks (256 B)"."""
        size = n.run.chunk_bytes
        counts = [len(c) for c in chunks]
        nbytes = [sum(size[c] for c in cs) for cs in chunks]
        count = n.words.count(n.unit, (min(counts), max(counts)))
        return n.say("amount", count=count, size=n.words.sizes(nbytes))

    def _into(self, n, into: dict[int, list[int]], reduces: bool, name: str) -> str:
        senders = sorted(into)
        amount = self._amount(n, list(into.values()))
        first = into[senders[0]][0]
        label = n.label(first) if len(into[senders[0]]) == 1 else ""
        key = "into switch reduce" if reduces else "into switch copy"
        nodes = bool(n.run.topology.get("nodes"))
        if reduces and label:
            key = "into switch reduce nodes" if nodes else "into switch reduce one"
        sums = n.say("node sum" if nodes else "contribution", len(senders))
        return n.say(
            key,
            2 if 1 < len(senders) < n.run.p else 1,
            who=n.who(senders),
            amount=amount,
            switch=name,
            sums=sums,
            c=label,
        )

    def _out(self, n, out: dict[int, list[int]], name: str) -> str:
        receivers = sorted(out)
        amount = self._amount(n, list(out.values()))
        chunks = {tuple(c) for c in out.values()}
        if len(chunks) > 1 and all(len(c) == 1 for c in out.values()):
            return n.say("switch hands", switch=name, amount=amount)
        first = out[receivers[0]]
        label = n.label(first[0]) if len(first) == 1 else ""
        key = "switch multicasts one" if label else "switch multicasts"
        size = n.words.size(n.run.chunk_bytes[first[0]])
        return n.say(key, switch=name, amount=amount, size=size, whom=n.who(receivers), c=label)

    def ends(self, kinds: list[str]) -> list[int]:
        return [len(kinds) - 1] * len(kinds)  # every step serves the one result

    def progress(self, n, v: View, progress: Progress) -> str:
        """A rank that just received something reduced, or what the switch now holds."""
        p = n.run.p
        # Follow the switch's answer first: it is what completes a chunk.
        received = next(((d, c) for s, d, c, _ in v.moves if s >= p), None)
        received = received or next(((d, c) for _, d, c, _ in v.moves if d < p), None)
        if received is None:
            chunks = {c for _, d, c, _ in v.moves if d >= p}
            held = n.say(n.unit, n=len(chunks))
            key = "switch holds sums" if n.run.spec.reduces else "switch holds blocks"
            return n.say(key, switch=self._switch_name(n), count=held)
        if not n.run.spec.reduces:
            return ""
        dst, chunk = received
        k = progress.holders(dst, chunk).bit_count()
        key = "complete" if k == p else "contributions"
        return n.say(key, r=dst, c=n.label(chunk), k=k)
