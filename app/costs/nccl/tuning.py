"""NCCL's cost model: the bandwidth and latency of every (algorithm, protocol), and the pick.

A transcription of NVIDIA/nccl v2.30.7-1:

* `tune` is `ncclTopoTuneModel` (src/graph/tuning.cc 243-438 for the tables, 495-541 for
  what is enabled): bus bandwidth = nChannels × the graph's bw per channel, with the
  per-protocol factors and per-channel caps, converted to algorithm bandwidth (×nRanks/nsteps
  for Ring and NVLS, ×0.5 for the others); latency = baseLat + hwLat × steps.
* `algo_time` is `ncclTopoGetAlgoTime` (tuning.cc 630-655): time = lat + nBytes / (1000 · bw)
  in µs, with the tree correction factors and the multi-node Ring/Simple ×1.4 latency plateau.
* the pick is `topoGetAlgoInfo` (src/enqueue.cc 2028-2045): the smallest time wins, ties to
  the first in NCCL's (algorithm, protocol) order.

Defaults assumed (the environment of a plain nccl-tests run): no NCCL_ALGO/NCCL_PROTO, no tuner
plugin, NCCL_COLLNET_ENABLE=0 (so CollNet and multi-node NVLS are off), NVLS enabled where
the graph exists, sum on a 32-bit type, one operation per launch (numPipeOps = 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from . import constants as k
from .constants import (
    COLLNET_CHAIN,
    COLLNET_DIRECT,
    LL,
    LL128,
    NET,
    NVLS,
    NVLS_TREE,
    PAT,
    RING,
    SIMPLE,
    TREE,
)
from .graph import Graph, Shape, nvls_graph, ring_graph, tree_graph

ALLREDUCE, RS, AG, BCAST, REDUCE = "allreduce", "reduce_scatter", "allgather", "broadcast", "reduce"


@dataclass(frozen=True)
class Entry:
    """One (algorithm, protocol) of NCCL's tables: bandwidth 0 means disabled."""

    algorithm: str
    protocol: str
    bw_gbs: float  # comm->bandwidths: algorithm bandwidth, GB/s
    lat_us: float  # comm->latencies


@dataclass(frozen=True)
class Tables:
    """NCCL's tables for one function on one communicator, and what is off and why."""

    shape: Shape
    function: str
    graphs: dict[str, Graph | None]
    entries: tuple[Entry, ...]
    disabled: tuple[dict, ...]
    comm_channels: int

    @property
    def ranks(self) -> int:
        return self.shape.nodes * self.shape.ppn


def log2i(n: int) -> int:
    """NCCL's log2i: floor(log2 n), and -1 for 0."""
    return n.bit_length() - 1


def graphs_for(shape: Shape) -> dict[str, Graph | None]:
    """The graph each algorithm uses (NVLSTree shares NVLS's; CollNet has none here)."""
    ring = ring_graph(shape)
    nvls = nvls_graph(shape)
    return {
        TREE: tree_graph(shape, ring),
        RING: ring,
        COLLNET_DIRECT: None,
        COLLNET_CHAIN: None,
        NVLS: nvls,
        NVLS_TREE: nvls,
        PAT: ring,
    }


def comm_channels(shape: Shape, ring: Graph) -> int:
    """comm->nChannels after src/graph/connect.cc 460 and 477-479 duplicate the channels."""
    n = min(k.MAX_COMM_CHANNELS, 2 * ring.n_channels)
    hopper = k.ARCHES.index(shape.system.arch) >= k.ARCHES.index("hopper")
    if hopper and shape.multi_node and ring.bw_intra > 45.0 and n < 16:
        n *= 2
    return n


def _skip_reason(shape: Shape, function: str, a: str, p: str, graph: Graph | None) -> str:
    """Why NCCL never fills or zeroes this cell (tuning.cc 294-304, 501-538; enqueue.cc)."""
    if function in (BCAST, REDUCE) and a != RING:
        return "Broadcast and Reduce run on Ring only (tuning.cc 294)"
    if function in (RS, AG) and a not in (PAT, RING, NVLS, COLLNET_DIRECT):
        return "not implemented for ReduceScatter/AllGather (tuning.cc 295-297)"
    if function == ALLREDUCE and a == PAT:
        return "PAT does ReduceScatter and AllGather only (tuning.cc 298)"
    if a in (NVLS, NVLS_TREE) and p != SIMPLE:
        return "NVLS runs Simple only (tuning.cc 301)"
    if a in (COLLNET_DIRECT, COLLNET_CHAIN):
        return "CollNet needs NCCL_COLLNET_ENABLE=1 and a SHARP plugin (tuning.cc 504-506)"
    if a == PAT and shape.ppn != 1:
        return "PAT is on by default only with one GPU per node (tuning.cc 215-223)"
    if a == PAT and p != SIMPLE:
        return "PAT runs Simple only (tuning.cc 302-304)"
    if a == NVLS_TREE and shape.nodes == 1:
        return "NVLSTree is off on a single node (tuning.cc 502)"
    if a == NVLS and shape.nodes > 1:
        return "multi-node NVLS needs CollNet (tuning.cc 504-506, enqueue.cc 2007)"
    if a in (NVLS, NVLS_TREE) and (graph is None or graph.n_channels < 2):
        return "no NVLS graph: needs NVSwitch, Hopper or newer and 2+ GPUs (search.cc 1124)"
    if p == LL128 and not _ll128_enabled(shape):
        return "LL128 is off over PCIe between GPUs (tuning.cc 518-536)"
    return ""


def _ll128_enabled(shape: Shape) -> bool:
    """typeIntra <= NVB: NVLink, or one GPU per node (typeIntra LOC). GPU-NIC is PXB here."""
    return shape.nvlink or shape.ppn == 1


def tune(shape: Shape, function: str) -> Tables:
    """Fill NCCL's bandwidth and latency tables for `function` (tuning.cc 288-541)."""
    graphs = graphs_for(shape)
    entries, disabled = [], []
    for a in k.ALGORITHMS:
        for p in k.PROTOCOLS:
            reason = _skip_reason(shape, function, a, p, graphs[a])
            if reason:
                disabled.append({"algorithm": a, "protocol": p, "reason": reason})
                continue
            entries.append(_entry(shape, function, a, p, graphs[a]))
    return Tables(
        shape,
        function,
        graphs,
        tuple(entries),
        tuple(disabled),
        comm_channels(shape, graphs[RING]),
    )


def _entry(shape: Shape, function: str, a: str, p: str, g: Graph) -> Entry:
    return Entry(a, p, _bandwidth(shape, function, a, p, g), _latency(shape, function, a, p, g))


def _bandwidth(shape: Shape, function: str, a: str, p: str, g: Graph) -> float:
    """tuning.cc 305-382: bus bandwidth of the graph, refined, then as algorithm bandwidth."""
    nodes, ppn = shape.nodes, shape.ppn
    ranks = nodes * ppn
    cc = k.ARCHES.index(shape.system.arch)
    index2 = nodes - 1 if nodes <= 2 else 2
    index1 = cc if nodes == 1 else (1 if shape.system.cpu == "amd" else 0)
    ll_max = k.LL_MAX_BW[index1][index2]
    bw = g.bw_intra if nodes <= 2 else g.bw_inter
    if a in (NVLS, NVLS_TREE):
        intra = g.bw_intra * k.NVLS_EFFICIENCY[cc] * (g.n_channels - 1) / g.n_channels
        intra *= 2.0 if function == ALLREDUCE else (ppn - 1) / ppn
        inter = g.bw_inter * (2 if nodes <= 2 and a == NVLS_TREE else 1)
        cap = k.PER_CH_MAX_NVLS_TREE_BW[cc][index2] if a == NVLS_TREE else math.inf
        bw = min(intra, inter, cap)
    bus = g.n_channels * bw
    if a == RING and p == LL:
        bus = min(ll_max, bus * 0.5)
    if a == RING and p == LL128:
        bus = min(bus * 0.92, g.n_channels * k.PER_CH_MAX_RING_LL128_BW[cc][index2])
    if a == TREE and function == ALLREDUCE:
        bus = min(bus * 0.92, g.n_channels * k.PER_CH_MAX_TREE_BW[cc][index2])
    if a == TREE and p == LL:
        bus = min(bus / 3.8, ll_max)
    if a == TREE and p == LL128:
        factor = 7.0 / 9.0 if nodes == 1 else 120.0 / 128.0
        bus = min(bus * factor, g.n_channels * k.PER_CH_MAX_TREE_LL128_BW[cc][index2])
    if a == PAT:
        bus *= 0.75
    if a == NVLS and function in (RS, AG) and nodes > 1:
        bus = 0.0  # tuning.cc 353-374: needs a CollNet plugin with iallgather/ireducescatter
    if a == RING or function not in (RS, AG):
        bus *= ranks / _nsteps(function, ranks) if a in (RING, NVLS, NVLS_TREE) else 0.5
    return bus


def _nsteps(function: str, ranks: int) -> int:
    if function == ALLREDUCE:
        return 2 * (ranks - 1)
    return ranks - 1 if function in (RS, AG) else ranks


def _latency(shape: Shape, function: str, a: str, p: str, g: Graph) -> float:
    """tuning.cc 384-435: base latency plus hardware latency per step."""
    nodes, ppn = shape.nodes, shape.ppn
    ranks = nodes * ppn
    pi = k.PROTOCOLS.index(p)
    lat = k.BASE_LAT[a][pi]
    intra_lat = k.HW_LAT[g.intra_hw][a][pi]
    inter_lat = k.HW_LAT[NET][TREE if ppn == 1 else a][pi]  # graph latencyInter: 0 on IB
    if a == RING:
        hw = g.intra_hw if nodes == 1 else NET
        if function in (BCAST, REDUCE):
            return lat + k.HW_LAT[hw][RING][pi]  # sameChannels graph
        overhead = 0.0
        if nodes > 1:
            overhead = k.NET_OVERHEAD_US[shape.system.cpu] * (3 if p == SIMPLE else 1)
        intra_lat = max(intra_lat, overhead)
        n_inter = 0 if nodes == 1 else (2 * (nodes - 1) if function == ALLREDUCE else nodes - 1)
        return lat + (_nsteps(function, ranks) - n_inter) * intra_lat + n_inter * inter_lat
    if a == TREE:
        if function == ALLREDUCE:
            lat += 2 * ((ppn - 1) * intra_lat + log2i(nodes) * inter_lat)
        return lat
    if a == NVLS:
        return intra_lat + (inter_lat if nodes > 1 else 0.0)
    if a == NVLS_TREE:
        return lat + intra_lat + 2 * log2i(nodes) * inter_lat
    if a == PAT and function in (RS, AG):
        lat += log2i(nodes) * (inter_lat / 3.5) + ranks * 2.8
    return lat


def algo_time(tables: Tables, entry: Entry, n_bytes: int) -> float | None:
    """tuning.cc 630-655 ncclTopoGetAlgoTime, in µs; None where the bandwidth is 0."""
    bw, lat = entry.bw_gbs, entry.lat_us
    if bw <= 0:
        return None
    shape, function = tables.shape, tables.function
    pi = k.PROTOCOLS.index(entry.protocol)
    log_size = log2i(n_bytes >> 6)
    cc = k.ARCHES.index(shape.system.arch)
    if entry.algorithm == TREE and function == ALLREDUCE and 0 <= log_size < 23:
        bw *= k.TREE_CORRECTION[pi][log_size]
    blackwell_x86 = cc >= k.ARCHES.index("blackwell") and shape.system.cpu in ("intel", "amd")
    if entry.algorithm == NVLS_TREE and function == ALLREDUCE and 0 <= log_size < 24:
        if blackwell_x86:
            bw *= k.TREE_CORRECTION[pi][log_size]
    if (
        entry.algorithm == RING
        and entry.protocol == SIMPLE
        and shape.nodes > 1
        and function == ALLREDUCE
        and n_bytes // (tables.comm_channels * tables.ranks) >= 64
    ):
        lat *= 1.9 if cc < k.ARCHES.index("ampere") else 1.4
    return lat + n_bytes / (1000.0 * bw)
