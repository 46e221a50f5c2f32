"""Read an NCCL_DEBUG=INFO log: the ranks and nodes, and the rings and trees NCCL built.

`parse(text)` returns a plain dict (JSON as is): ranks, nodes (host -> ranks), local ranks,
the NCCL version, each channel's ring order and the transport of each connection, the trees per
channel, NVLS and CollNet, the tuning choices logged, a one-sentence summary, and the lines it
did not understand with their numbers. Each line's patterns are in `nccl_log_lines`; the
summary's sentence in `nccl_log_summary`. No web imports: the API and the page both call this.
"""

from __future__ import annotations

from collections import defaultdict

from . import nccl_log_lines as L
from .nccl_log_summary import crossings, summarize, tree_depth

MAX_CHARS = 200_000  # a 64-rank init log is about 150 KB; a whole training run's log is not needed
MAX_LISTED = 100  # lines not understood listed, the rest counted


class NcclLogError(ValueError):
    """The text is not an NCCL log, or is too large; the message names the field `log`."""


class _Reading:
    """What the lines said so far; `result()` turns it into the answer."""

    def __init__(self) -> None:
        self.version: str | None = None
        self.nranks: int | None = None
        self.nnodes: int | None = None
        self.ranks: set[int] = set()
        self.hosts: dict[str, set[int]] = defaultdict(set)
        self.local: dict[int, dict] = {}
        self.orders: dict[int, list[int]] = {}
        self.ring_total: int | None = None
        self.links: dict[int, dict[int, int]] = defaultdict(dict)  # channel -> rank -> next
        self.edges: dict[tuple[int, int, int], dict] = {}
        self.trees: dict[int, dict[int, int]] = defaultdict(dict)  # channel -> child -> parent
        self.nvls_heads: dict[int, list[int]] = {}
        self.nvls_seen = False
        self.nvls_channels: int | None = None
        self.collnet_channels: int | None = None
        self.collnet_edges = 0
        self.coll_channels: int | None = None
        self.connected: set[str] = set()
        self.choices: dict[tuple, int] = defaultdict(int)
        self.table: dict = {"algorithms": [], "protocols": [], "rows": []}
        self.nccl_lines = 0
        self.unknown: list[dict] = []
        self.unknown_count = 0

    # -- each kind of line --------------------------------------------------------------------

    def rank_on(self, host: str | None, rank: int) -> None:
        """Note a rank, and the host whose logger wrote a line about it."""
        self.ranks.add(rank)
        if host:
            self.hosts[host].add(rank)

    def read(self, host: str | None, msg: str) -> bool:
        """Read one NCCL INFO message; return False when no pattern knows it."""
        for pattern, reader in _Reading.READERS:
            if m := pattern.match(msg):
                return reader(self, host, m) is not False
        if self.read_table(msg):
            return True
        if msg.startswith("NVLS") or "nvls" in msg.lower():
            self.nvls_seen = True
        if m := L.INIT_OLD.search(msg):
            self.rank_on(host, int(m.group(1)))
            self.nranks = self.nranks or int(m.group(2))
        return bool(L.BACKGROUND.match(msg)) and not L.STRUCTURAL.search(msg)

    def _init(self, host: str | None, m) -> None:
        rank, nranks, nnodes, local_ranks, local_rank = map(int, m.groups())
        self.rank_on(host, rank)
        self.nranks, self.nnodes = nranks, nnodes
        self.local[rank] = {"rank": rank, "local_rank": local_rank, "local_ranks": local_ranks}

    def _ring_order(self, host: str | None, m) -> None:
        order = [int(r) for r in m.group(3).split()]
        self.orders[int(m.group(1))] = order
        if m.group(2):
            self.ring_total = int(m.group(2))
        self.rank_on(host, order[0])  # rank 0 prints the rings, starting from itself
        self.ranks.update(order)

    def _ring_link(self, host: str | None, m) -> None:
        channel, prev, me, nxt = map(int, m.groups())
        self.rank_on(host, me)
        self.links[channel][me] = nxt
        self.links[channel].setdefault(prev, me)
        self.ranks.update((prev, nxt))

    def _edge(self, host: str | None, m) -> None:
        channel, src, dst = int(m.group(1)), int(m.group(2)), int(m.group(3))
        direction, label = m.group(4), m.group(5)
        # The receiving rank logs a `[receive]` line; every other line is its sender's.
        self.rank_on(host, dst if direction == "receive" else src)
        self.ranks.update((src, dst))
        edge = {"channel": channel, "src": src, "dst": dst, "transport": label}
        self.edges.setdefault((channel, src, dst), {**edge, "kind": L.transport_kind(label)})

    def _trees(self, host: str | None, m) -> bool:
        """`Trees [c] d0/d1/d2->me->up ...`, or 2.4's `up->me->d0/d1/d2` order."""
        now, old = L.TREE_ITEM.findall(m.string), L.TREE_ITEM_24.findall(m.string)
        items = [(c, me, up, (d0, d1, d2)) for c, d0, d1, d2, me, up in now] or [
            (c, me, up, (d0, d1, d2)) for c, up, me, d0, d1, d2 in old
        ]
        for c, me, up, down in items:
            self.tree_node(host, int(c), int(me), int(up), tuple(map(int, down)))
        return bool(items)

    def _tree_line(self, host: str | None, m) -> None:
        c, up, me, d0, d1, d2 = map(int, m.groups())
        self.tree_node(host, c, me, up, (d0, d1, d2))

    def _nvls_head(self, host: str | None, m) -> None:
        self.nvls_seen = True
        heads = self.nvls_heads[int(m.group(1))] = [int(r) for r in m.group(2).split()]
        self.ranks.update(heads)  # one head rank per node

    def _channel_counts(self, host: str | None, m) -> None:
        self.coll_channels = int(m.group(1))
        if m.group(2) is not None:
            self.collnet_channels = int(m.group(2))
        if m.group(3) is not None:
            self.nvls_channels = int(m.group(3))

    def _collnet_edge(self, host: str | None, m) -> None:
        self.collnet_edges += 1
        self.rank_on(host, int(m.group(2)))

    def _connected(self, host: str | None, m) -> None:
        self.connected.add(m.group(1).lower())

    def _choice(self, host: str | None, m) -> None:
        self.choices[(m.group(1), int(m.group(2)), m.group(3).title(), m.group(4).title())] += 1

    def _choice_numeric(self, host: str | None, m) -> None:
        algorithm, protocol = _named(L.ALGORITHMS, m.group(3)), _named(L.PROTOCOLS, m.group(4))
        self.choices[(m.group(1), int(m.group(2)), algorithm, protocol)] += 1

    # Each kind of line and its reader, tried in this order (the first pattern that matches
    # reads the line). A reader returns False only when the line did not hold what it expected.
    READERS = (
        (L.INIT, _init),
        (L.RING_ORDER, _ring_order),
        (L.RING_LINK, _ring_link),
        (L.EDGE, _edge),
        (L.TREES, _trees),
        (L.TREE_LINE, _tree_line),
        (L.NVLS_HEAD, _nvls_head),
        (L.CHANNEL_COUNTS, _channel_counts),
        (L.COLLNET_EDGE, _collnet_edge),
        (L.CONNECTED, _connected),
        (L.CHOICE, _choice),
        (L.CHOICE_NUMERIC, _choice_numeric),
    )

    def tree_node(
        self, host: str | None, channel: int, me: int, up: int, down: tuple[int, ...]
    ) -> None:
        """Note a rank's parent and children in one channel's tree (-1: none)."""
        self.rank_on(host, me)
        if up >= 0:
            self.trees[channel][me] = up
            self.ranks.add(up)
        for child in down:
            if child >= 0:
                self.trees[channel][child] = me
                self.ranks.add(child)
        if up < 0:
            self.trees[channel].setdefault(me, -1)  # a root

    def read_table(self, msg: str) -> bool:
        """Read a line of the TUNING table (latency/bandwidth per algorithm and protocol)."""
        if m := L.TABLE_ALGOS.match(msg):
            self.table["algorithms"] += [a for a in m.group(1).replace("|", " ").split()]
        elif m := L.TABLE_PROTOS.match(msg):
            protos = m.group(1).replace("|", " ").split()
            if not self.table["protocols"]:
                self.table["protocols"] = list(dict.fromkeys(protos))
        elif L.TABLE_THREADS.match(msg):
            pass
        elif m := L.TABLE_ROW.match(msg):
            cells = [c.strip() for c in m.group(2).split("|") if c.strip()]
            pairs = [[float(x) for x in c.replace(" ", "").split("/")] for c in cells]
            self.table["rows"].append({"function": m.group(1), "cells": pairs})
        else:
            return False
        return True

    # -- the answer ---------------------------------------------------------------------------

    def channels(self) -> list[dict]:
        """Return each channel's ring (order, or the links known) and its connections."""
        ids = set(self.orders) | set(self.links) | {c for c, _, _ in self.edges}
        out = []
        for c in sorted(ids):
            order = self.orders.get(c) or _ring_from_links(self.links.get(c, {}), self.nranks)
            edges = [e for (ch, _, _), e in sorted(self.edges.items()) if ch == c]
            links = sorted(self.links.get(c, {}).items())
            out.append(
                {
                    "channel": c,
                    "ring": order,
                    "ring_links": [list(x) for x in links],
                    "edges": edges,
                }
            )
        return out

    def tree_list(self) -> list[dict]:
        """Return each channel's tree as parent -> child edges, its roots and its depth."""
        out = []
        for c in sorted(self.trees):
            parents = self.trees[c]
            edges = [{"parent": p, "child": ch} for ch, p in sorted(parents.items()) if p >= 0]
            roots = sorted(r for r, p in parents.items() if p < 0)
            out.append({"channel": c, "edges": edges, "roots": roots, "depth": tree_depth(parents)})
        return out

    def result(self) -> dict:
        """Return the whole reading as a JSON-ready dict."""
        nranks = max(self.nranks or 0, max(self.ranks, default=-1) + 1) or None
        nodes = [
            {"host": h, "ranks": sorted(r)}
            for h, r in sorted(self.hosts.items(), key=lambda kv: min(kv[1]))
        ]
        channels = self.channels()
        channel_count = max(
            [self.ring_total or 0, self.coll_channels or 0, len(channels)]
            + [t["channel"] + 1 for t in self.tree_list() if t["channel"] < (self.ring_total or 64)]
        )
        reading = {
            "version": self.version,
            "ranks": nranks,
            "ranks_from_init": self.nranks is not None,  # else a lower bound: the highest rank seen
            "ranks_seen": sorted(self.ranks),
            "node_count": self.nnodes,  # from an init line; `nodes` lists the hosts named
            "nodes": nodes,
            "local_ranks": [self.local[r] for r in sorted(self.local)],
            "channel_count": channel_count or None,
            "channels": channels,
            "trees": self.tree_list(),
            "nvls": {
                "present": bool(self.nvls_seen or self.nvls_heads or (self.nvls_channels or 0) > 0),
                "channels": self.nvls_channels,
                "heads": [{"head": h, "ranks": r} for h, r in sorted(self.nvls_heads.items())],
            },
            "collnet": {
                "present": bool(self.collnet_edges or (self.collnet_channels or 0) > 0),
                "channels": self.collnet_channels,
            },
            "connected": sorted(self.connected),
            "tuning": {
                "choices": [
                    {
                        "collective": k[0],
                        "bytes": k[1],
                        "algorithm": k[2],
                        "protocol": k[3],
                        "calls": n,
                    }
                    for k, n in sorted(
                        self.choices.items(), key=lambda kv: (kv[0][0] or "", kv[0][1])
                    )
                ],
                "table": self.table if self.table["rows"] else None,
            },
            "not_understood": self.unknown,
            "not_understood_count": self.unknown_count,
        }
        reading["crossings"] = crossings(reading)
        reading["summary"] = summarize(reading)
        return reading


def _named(names: tuple[str, ...], number: str) -> str:
    """Return `Ring (1)` for a numbered algorithm or protocol NCCL printed as a number."""
    i = int(number)
    return f"{names[i]} ({i})" if i < len(names) else f"#{i}"


def _ring_from_links(links: dict[int, int], nranks: int | None) -> list[int] | None:
    """Return a ring's order from its `prev -> me -> next` lines when they close the loop."""
    if not links or 0 not in links:
        return None
    order, current = [0], links[0]
    while current != 0 and current in links and len(order) <= len(links):
        order.append(current)
        current = links[current]
    closed = current == 0 and (nranks is None or len(order) == nranks)
    return order if closed else None


def parse(text: object) -> dict:
    """Read the log `text`; raise NcclLogError for non-text, empty, too large or not NCCL."""
    if not isinstance(text, str):
        raise NcclLogError("log: must be the text of an NCCL_DEBUG=INFO log")
    if len(text) > MAX_CHARS:
        raise NcclLogError(f"log: at most {MAX_CHARS} characters, got {len(text)}")
    if not text.strip():
        raise NcclLogError("log: is empty; paste the output of a run with NCCL_DEBUG=INFO")
    reading = _Reading()
    for number, line in enumerate(text.splitlines(), start=1):
        _read_line(reading, number, line)
    if not reading.nccl_lines and reading.version is None:
        raise NcclLogError(
            "log: no NCCL line found (no `NCCL INFO` and no `NCCL version`); "
            "run with NCCL_DEBUG=INFO and paste its output"
        )
    return reading.result()


def _read_line(reading: _Reading, number: int, line: str) -> None:
    """Read one line of the text into `reading`; note it when nothing understood it."""
    if m := L.VERSION.search(line):
        reading.version = reading.version or m.group(1)
    parts = L.messages(line)
    reading.nccl_lines += bool(parts)
    understood = all([reading.read(host, msg) for host, msg in parts])  # read every one
    cut = not parts and L.CUT_PREFIX.match(line.strip())
    if not understood or cut:
        reading.unknown_count += 1
        if len(reading.unknown) < MAX_LISTED:
            reading.unknown.append({"line": number, "text": line[:300]})
