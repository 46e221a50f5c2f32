"""The reader's sentence about an NCCL log's reading, and the figures it rests on.

How often a ring crosses the network is counted from the hosts the log's prefixes name (a
ring's neighbours on different hosts), or from the transports of its connections when the hosts
are not all named; an init line's `nNodes 1` says it at once: no hop can leave the one node.
When none of these covers a whole ring the count is left unknown, not guessed.
"""

from __future__ import annotations

from collections import Counter

from app.i18n import N_
from app.i18n.catalog import translate


def tree_depth(parents: dict[int, int]) -> int:
    """Return the most parent links from any rank up to a root (a loop counts once round)."""
    deepest = 0
    for rank in parents:
        seen, hops = {rank}, 0
        while parents.get(rank, -1) >= 0 and parents[rank] not in seen:
            rank = parents[rank]
            seen.add(rank)
            hops += 1
        deepest = max(deepest, hops)
    return deepest


def crossings(reading: dict) -> dict:
    """Return how many of each whole ring's hops go between nodes, per channel (or unknown)."""
    host = {}
    for node in reading["nodes"]:
        for rank in node["ranks"]:
            host[rank] = node["host"] if rank not in host else None  # a rank on two hosts: unsure
    per_channel = []
    for channel in reading["channels"]:
        order = channel["ring"]
        if not order:
            continue
        hops = list(zip(order, order[1:] + order[:1], strict=True))
        kinds = {(e["src"], e["dst"]): e["kind"] for e in channel["edges"]}
        if reading["node_count"] == 1:
            count = 0
        elif all(host.get(a) and host.get(b) for a, b in hops):
            count = sum(host[a] != host[b] for a, b in hops)
        elif all(hop in kinds for hop in hops):
            count = sum(kinds[hop].startswith("NET") for hop in hops)
        else:
            continue
        per_channel.append({"channel": channel["channel"], "count": count})
    return {"per_channel": per_channel}


def _crossing_clause(counts: list[int], lang: str) -> str | None:
    """Say how often the rings cross the network per channel (None: unknown)."""
    if counts == [0]:
        return translate(lang, "rings stay inside a node")
    if len(counts) == 1:
        times = {
            1: N_("rings cross the network once per channel"),
            2: N_("rings cross the network twice per channel"),
        }
        if counts[0] in times:
            return translate(lang, times[counts[0]])
        return translate(lang, "rings cross the network %(n)s times per channel", n=counts[0])
    if counts:
        return translate(
            lang,
            "rings cross the network %(low)s to %(high)s times per channel",
            low=counts[0],
            high=counts[-1],
        )
    return None


def _head(reading: dict, lang: str) -> str:
    """The sentence's start: ranks, then nodes (or hosts), then NCCL's version."""
    ranks, nodes, hosts = reading["ranks"], reading["node_count"], len(reading["nodes"])
    if not ranks:
        head = translate(lang, "An unknown number of ranks")
    elif reading["ranks_from_init"]:
        head = translate(lang, "%(n)s ranks", n=ranks)
    else:
        head = translate(lang, "At least %(n)s ranks", n=ranks)
    if nodes:
        head += (
            translate(lang, " on 1 node")
            if nodes == 1
            else translate(lang, " on %(n)s nodes", n=nodes)
        )
    elif hosts:
        head += (
            translate(lang, " on 1 host named in the log")
            if hosts == 1
            else translate(lang, " on %(n)s hosts named in the log", n=hosts)
        )
    if reading["version"]:
        head += translate(lang, " (NCCL %(version)s)", version=reading["version"])
    return head


def summarize(reading: dict, lang: str = "en") -> str:
    """Return one sentence, in `lang`: ranks, nodes, channels, network crossings, trees, NVLS,
    transports."""
    parts = [_head(reading, lang)]
    channels = reading["channel_count"]
    if channels:
        parts.append(
            translate(lang, "1 channel")
            if channels == 1
            else translate(lang, "%(n)s channels", n=channels)
        )
    crossing = _crossing_clause(
        sorted({c["count"] for c in reading["crossings"]["per_channel"]}), lang
    )
    if crossing:
        parts.append(crossing)
    depths = [t["depth"] for t in reading["trees"] if t["edges"]]
    if depths:
        parts.append(translate(lang, "trees up to %(n)s levels", n=max(depths) + 1))
    if reading["nvls"]["present"]:
        parts.append(translate(lang, "NVLS (NVLink SHARP) set up"))
    if reading["collnet"]["present"]:
        parts.append(translate(lang, "CollNet set up"))
    kinds = Counter(e["kind"] for c in reading["channels"] for e in c["edges"])
    if kinds:
        listed = ", ".join(f"{n} {k}" for k, n in kinds.most_common())
        parts.append(translate(lang, "connections: %(list)s", list=listed))
    if reading["tuning"]["choices"]:
        parts.append(
            translate(lang, "%(n)s tuning choice(s) logged", n=len(reading["tuning"]["choices"]))
        )
    return translate(lang, ", ").join(parts) + translate(lang, ".")
