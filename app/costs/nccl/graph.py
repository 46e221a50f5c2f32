"""What NCCL's graph search would find on a system: channels and bandwidth per channel.

NCCL's `ncclTopoCompute` (NVIDIA/nccl v2.30.7-1 src/graph/search.cc 1074-1313) walks the real
PCI/NVLink tree, trying the per-channel speeds of `speedArray*` (1051-1067) from the fastest,
and keeps the graph with the largest nChannels × bw. It then doubles channels
(`ncclTopoDupChannels`, 1036-1049) and tries faster speeds again (pass 2, 1254-1287).

This module replays the same speed ladder, duplication rule and pass 2 on a closed-form
capacity model instead of the path search. **Simplifications** (each because the real search
needs the PCI tree this app does not have):

* NVSwitch nodes only: every GPU reaches every other through its own NVLinks, so a ring
  channel at speed s costs s of the GPU's NVLink bandwidth, and a node fits
  floor(NVLink bw / s) channels (PCIe-only nodes: the GPU's PCIe link instead).
* Multi-node rings: each channel enters and leaves the node through one NIC whose path is
  min(NIC, PCIe) wide; a NIC carries floor(path / s) channels, and inside the node a channel
  uses s on (g − 1)/g of the GPUs' NVLinks.
* Trees use the ring's channels and speed (NCCL first tries to match them, search.cc 447),
  then pass 2 raises bwIntra while it stays under 2 × bwInter and fits the NVLinks. The
  balanced tree is assumed to succeed, so tuning.cc 336's ×0.85 for plain trees never applies.
* NVLS: one channel per GPU (head), each head costs its GPU 2·s and every other GPU s
  (search.cc 410-443), so (heads + 1)·s must fit the NVLink bandwidth; bwInter is then
  raised as pass 2 does (1274-1278), up to the NIC path on multi-node systems.
* Path types: NVLink systems have typeIntra NVL; the GPU–NIC path is a PCIe switch (PXB),
  so LL128 stays enabled (tuning.cc 518-536). A comm with one GPU per node has typeIntra LOC,
  which tuning.cc 285 counts as PCI.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .constants import (
    ARCHES,
    MAX_GRAPH_CHANNELS,
    MAX_NVLS_ARITY,
    NVLINK,
    PCI,
    SPEEDS_INTER,
    SPEEDS_INTRA,
)
from .systems import NcclSystem

EPS = 1e-9


@dataclass(frozen=True)
class Graph:
    """One algorithm's graph as tuning.cc reads it."""

    n_channels: int
    bw_intra: float  # GB/s per channel
    bw_inter: float
    intra_hw: str  # NVLINK or PCI: tuning.cc 284-285

    def as_dict(self) -> dict:
        """Return JSON-ready data."""
        return vars(self).copy()


@dataclass(frozen=True)
class Shape:
    """The communicator: how many nodes and GPUs per node, on which system."""

    system: NcclSystem
    nodes: int
    ppn: int  # GPUs (ranks) per node

    @property
    def multi_node(self) -> bool:
        return self.nodes > 1

    @property
    def nvlink(self) -> bool:
        """Whether GPUs of a node talk over NVLink (tuning.cc: typeIntra == LINK_NVL)."""
        return self.system.nvlinks_per_gpu > 0 and self.ppn > 1

    @property
    def intra_gbs(self) -> float:
        """NCCL's bandwidth out of one GPU inside the node."""
        return self.system.nvlink_gbs if self.nvlink else self.system.pci_gbs

    @property
    def nics(self) -> int:
        """NICs the comm's GPUs use: the ones local to its GPUs on each node."""
        s = self.system
        return max(1, round(s.nics_per_node * self.ppn / s.gpus_per_node))

    @property
    def speeds(self) -> tuple[float, ...]:
        table = SPEEDS_INTER if self.multi_node else SPEEDS_INTRA
        return table[self.system.arch]

    @property
    def net_path_gbs(self) -> float:
        """The narrowest link between a GPU and its NIC."""
        return min(self.system.nic_gbs, self.system.pci_gbs)


def _fits(n: float) -> int:
    return int(math.floor(n + EPS))


def ring_channels(shape: Shape, speed: float) -> int:
    """Channels of `speed` GB/s the node can carry (0 if none)."""
    if shape.multi_node:
        if speed > shape.net_path_gbs + EPS:
            return 0
        n = shape.nics * _fits(shape.net_path_gbs / speed)
        if shape.ppn > 1:
            n = min(n, _fits(shape.intra_gbs / (speed * (shape.ppn - 1) / shape.ppn)))
    else:
        n = _fits(shape.intra_gbs / speed)
    return min(n, MAX_GRAPH_CHANNELS)


def ring_graph(shape: Shape) -> Graph:
    """Pass 1 (slowest acceptable speed ladder), duplication, pass 2, as search.cc does."""
    speeds = shape.speeds
    top = shape.net_path_gbs if shape.multi_node else shape.intra_gbs
    idx = next((i for i, s in enumerate(speeds) if s <= top + EPS), len(speeds) - 1)
    best_n, best_s = 0, 0.0
    while True:  # pass 1: search.cc 1170-1252
        n = ring_channels(shape, speeds[idx])
        if n and n * speeds[idx] > best_n * best_s + EPS:
            best_n, best_s = n, speeds[idx]
        if best_n and best_n * best_s >= shape.intra_gbs - EPS:
            break  # "perfect": the GPU's bandwidth is used up
        if idx + 1 < len(speeds) and (not best_n or speeds[idx + 1] / best_s > 0.49):
            idx += 1
        else:
            break
    if not best_n:  # search.cc 1289-1311: fall back to one slow channel
        return Graph(1, 0.1, 0.1, _hw(shape))
    best_n, best_s = _dup_channels(shape, best_n, best_s)
    idx = next(i for i, s in enumerate(speeds) if s <= best_s + EPS)
    while idx > 0:  # pass 2: try faster speeds with at least as many channels
        idx -= 1
        if ring_channels(shape, speeds[idx]) >= best_n:
            best_s = speeds[idx]
    return Graph(best_n, best_s, best_s, _hw(shape))


def _dup_channels(shape: Shape, n: int, bw: float) -> tuple[int, float]:
    """search.cc 1036-1049 ncclTopoDupChannels."""
    cc_above_80 = ARCHES.index(shape.system.arch) >= ARCHES.index("hopper")
    if bw < 25.0 or (cc_above_80 and bw < 50.0 and n > 4):
        return n, bw
    dup = min(2 * n, MAX_GRAPH_CHANNELS)
    return dup, bw / math.ceil(dup / n)


def tree_graph(shape: Shape, ring: Graph) -> Graph:
    """The ring's channels, then pass 2's "increase bwIntra for trees" (search.cc 1279-1282)."""
    speeds, bw_intra = shape.speeds, ring.bw_intra
    idx = next((i for i, s in enumerate(speeds) if s <= bw_intra + EPS), len(speeds) - 1)
    while idx > 0 and bw_intra < 2 * ring.bw_inter - EPS:
        faster = speeds[idx - 1]
        if ring.n_channels * faster > shape.intra_gbs + EPS:
            break
        idx, bw_intra = idx - 1, faster
    return Graph(ring.n_channels, bw_intra, ring.bw_inter, ring.intra_hw)


def nvls_graph(shape: Shape) -> Graph | None:
    """NVLS's graph, or None where NCCL builds none (search.cc 1124: NVSwitch and sm90+)."""
    hopper = ARCHES.index(shape.system.arch) >= ARCHES.index("hopper")
    if not (hopper and shape.nvlink):
        return None
    heads = min(MAX_NVLS_ARITY, shape.ppn)
    if shape.multi_node:
        heads = min(heads, shape.nics)
    speeds = shape.speeds
    fitting = [i for i, s in enumerate(speeds) if (heads + 1) * s <= shape.intra_gbs + EPS]
    if not fitting:
        return None
    idx = fitting[0]
    bw_intra = bw_inter = speeds[idx]
    limit = shape.net_path_gbs if shape.multi_node else math.inf
    while idx > 0 and bw_inter < 2 * bw_intra - EPS and speeds[idx - 1] <= limit + EPS:
        idx -= 1
        bw_inter = speeds[idx]
    return Graph(heads, bw_intra, bw_inter, NVLINK)


def _hw(shape: Shape) -> str:
    return NVLINK if shape.nvlink else PCI
