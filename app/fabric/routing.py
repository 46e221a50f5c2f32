"""Route a transfer between two GPUs onto links: shortest paths (fewest hops), spread evenly
over all of them where there are several (ECMP as an ideal per-packet spray).

For a pair (s, t), σ_s(v) counts shortest paths from s to v and σ_t(v) from v to t; a link
u → v lies on a shortest path when d_s(u) + 1 + d_t(v) = d(s, t), and carries the share
σ_s(u)·σ_t(v) / σ_s(t) of the traffic (the counting behind Brandes' betweenness). A path may
pass through a GPU only where the topology's GPUs forward traffic (a torus).
A path's α is the largest latency sum over the shortest paths.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache

import numpy as np

from .graph import GPU, Topology


class Router:
    """Shortest-path routes of one topology, computed on demand and kept."""

    def __init__(self, topology: Topology) -> None:
        self.topology = topology
        self.links = topology.links
        nodes = topology.nodes
        self.transit = [topology.gpu_forwarding or n.kind != GPU for n in nodes]
        self.direct = {(link.src, link.dst): link.index for link in topology.links}
        self._from: dict[int, tuple[list, list]] = {}
        self._to: dict[int, tuple[list, list]] = {}
        self._routes: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, float]] = {}

    def _bfs(self, start: int, forward: bool) -> tuple[list, list]:
        """Hop distances and shortest-path counts from (or, backward, to) `start`."""
        cache = self._from if forward else self._to
        if start in cache:
            return cache[start]
        n = len(self.topology.nodes)
        dist, count = [-1] * n, [0] * n
        dist[start], count[start] = 0, 1
        adjacency = self.topology.outgoing if forward else self.topology.incoming
        queue = deque([start])
        while queue:
            u = queue.popleft()
            if u != start and not self.transit[u]:
                continue  # reached, but traffic does not pass through it
            for index in adjacency[u]:
                link = self.links[index]
                v = link.dst if forward else link.src
                if dist[v] < 0:
                    dist[v] = dist[u] + 1
                    queue.append(v)
                if dist[v] == dist[u] + 1:
                    count[v] += count[u]
        cache[start] = (dist, count)
        return dist, count

    def route(self, s: int, t: int) -> tuple[np.ndarray, np.ndarray, float]:
        """Return (link indices, share of the bytes on each, path latency in µs) from s to t."""
        key = (s, t)
        if key in self._routes:
            return self._routes[key]
        if key in self.direct:  # a wire between them: the one shortest path
            link = self.links[self.direct[key]]
            found = (np.array([link.index]), np.array([1.0]), link.latency_us)
        else:
            found = self._spread(s, t)
        self._routes[key] = found
        return found

    def _spread(self, s: int, t: int) -> tuple[np.ndarray, np.ndarray, float]:
        ds, cs = self._bfs(s, True)
        dt, ct = self._bfs(t, False)
        total = ds[t]
        if total < 0:
            raise ValueError(f"{self.topology.nodes[t].name} is unreachable")
        indices, shares = [], []
        latency = {s: 0.0}
        frontier = [s]
        for _ in range(total):
            following = []
            for u in frontier:
                for index in self.topology.outgoing[u]:
                    link = self.links[index]
                    v = link.dst
                    if ds[v] != ds[u] + 1 or dt[v] != total - ds[v]:
                        continue
                    if v != t and not self.transit[v]:
                        continue
                    indices.append(index)
                    shares.append(cs[u] * ct[v] / cs[t])
                    reach = latency[u] + link.latency_us
                    if v not in latency:
                        following.append(v)
                        latency[v] = reach
                    else:
                        latency[v] = max(latency[v], reach)
            frontier = following
        return np.array(indices), np.array(shares), latency[t]


@lru_cache(maxsize=8)  # its BFS tables: two lists of the node count per GPU used
def router(topology: Topology) -> Router:
    """Return the (kept) router of `topology`."""
    return Router(topology)
