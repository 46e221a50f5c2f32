"""The reader's sentence about an NCCL log's reading, and the figures it rests on.

How often a ring crosses the network is counted from the hosts the log's prefixes name (a
ring's neighbours on different hosts), or from the transports of its connections when the hosts
are not all named; an init line's `nNodes 1` says it at once: no hop can leave the one node.
When none of these covers a whole ring the count is left unknown, not guessed.
"""

from __future__ import annotations

from collections import Counter

TIMES = {0: "no times", 1: "once", 2: "twice"}


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


def _times(n: int) -> str:
    return TIMES.get(n, f"{n} times")


def summarize(reading: dict) -> str:
    """Return one sentence: ranks, nodes, channels, network crossings, trees, NVLS, transports."""
    parts = []
    ranks, nodes, hosts = reading["ranks"], reading["node_count"], len(reading["nodes"])
    if not ranks:
        head = "An unknown number of ranks"
    else:
        head = f"{ranks} ranks" if reading["ranks_from_init"] else f"At least {ranks} ranks"
    if nodes:
        head += f" on {nodes} node" + ("s" if nodes != 1 else "")
    elif hosts:
        head += f" on {hosts} host" + ("s" if hosts != 1 else "") + " named in the log"
    if reading["version"]:
        head += f" (NCCL {reading['version']})"
    parts.append(head)
    if reading["channel_count"]:
        parts.append(
            f"{reading['channel_count']} channel" + ("s" if reading["channel_count"] != 1 else "")
        )
    counts = sorted({c["count"] for c in reading["crossings"]["per_channel"]})
    if counts == [0]:
        parts.append("rings stay inside a node")
    elif len(counts) == 1:
        parts.append(f"rings cross the network {_times(counts[0])} per channel")
    elif counts:
        parts.append(f"rings cross the network {counts[0]} to {counts[-1]} times per channel")
    depths = [t["depth"] for t in reading["trees"] if t["edges"]]
    if depths:
        parts.append(f"trees up to {max(depths) + 1} levels")
    if reading["nvls"]["present"]:
        parts.append("NVLS (NVLink SHARP) set up")
    if reading["collnet"]["present"]:
        parts.append("CollNet set up")
    kinds = Counter(e["kind"] for c in reading["channels"] for e in c["edges"])
    if kinds:
        parts.append("connections: " + ", ".join(f"{n} {k}" for k, n in kinds.most_common()))
    if reading["tuning"]["choices"]:
        parts.append(f"{len(reading['tuning']['choices'])} tuning choice(s) logged")
    return ", ".join(parts) + "."
