"""In-network reduction: the switch adds, so each GPU sends and receives the message once.

A switch is a node of the trace after the ranks (id p, p+1, ...; `Machine.add_switch`), declared
in the topology's `switches` (docs/design-notes.md, "Switches in the trace"). Transfers go to it
and from it like to a rank: a reduce into the switch is the switch adding a contribution, a copy
out of it is the switch forwarding (or multicasting) the sum.

- `allreduce/nvls`: NVLink SHARP on an NVSwitch (NCCL's NVLS, single node). In NCCL each GPU
  h asks the switch for shard h with `multimem.ld_reduce` (the switch reads that shard from
  every GPU and adds) and stores the sum with `multimem.st` (the switch writes it to every GPU);
  the two run pipelined (`src/device/all_reduce.h`, `RunWorkColl<..., NCCL_ALGO_NVLS, ...>`).
  The engine shows the data flow on the wire: the message cut into NVLS_SEGMENTS segments; in
  step s every GPU's copy of segment s goes into the switch, which adds the p contributions,
  while the switch multicasts the sum of segment s-1 to every GPU. k+1 steps; each GPU sends M
  and receives M, both directions of its link busy at once.
- `reduce_scatter/nvls`: every GPU's whole input goes into the switch (the switch adds each
  block over all GPUs); then the switch hands block i to rank i. 2 steps.
- `allgather/nvls`: every GPU stores its block into the switch, which multicasts all of them
  to every GPU (the issuer included, as `multimem.st` writes to the whole multicast group).
  2 steps.
- `allreduce/collnet`: NCCL's CollNet Chain (`RunWorkColl<..., NCCL_ALGO_COLLNET_CHAIN, ...>`):
  inside each node a chain reduces up to the node's head (local rank 0, the GPU by the NIC),
  the head sends into a SHARP switch that adds the N nodes' sums and sends the result back to
  every head, and the chain broadcasts it down. Pipelined in COLLNET_SEGMENTS_PER_RANK · g
  segments: segment i makes hop h in step i + h, 2g hops in all, so 2g + k - 1 steps. The
  switch tree is drawn as one aggregation switch (a single Quantum-2 switch has 64 ports: the
  catalog's 64 nodes fit one level of the SHARP tree).
"""

from __future__ import annotations

from ..i18n import N_
from .machine import Machine
from .registry import algorithm

NVLS_SEGMENTS = 4  # allreduce/nvls: the pipeline's segments, independent of p
COLLNET_SEGMENTS_PER_RANK = 4  # allreduce/collnet: k = 4·g segments
# NCCL runs NVLS reduce-scatter and allgather on at most NCCL_MAX_NVLS_ARITY (32) local ranks
# (src/enqueue.cc); allreduce on a whole NVLink domain, 72 GPUs on a GB200 NVL72.
NVLS_MAX_RANKS = 72
NVLS_BLOCK_MAX_RANKS = 32
# CollNet Chain and Direct are disabled above NCCL_MAX_DIRECT_ARITY + 1 = 8 local GPUs.
COLLNET_MAX_RANKS_PER_NODE = 8
NVSWITCH = "an NVSwitch with NVLink SHARP (Hopper or later), every rank in one NVLink domain"
SHARP = "InfiniBand switches with SHARP in-network reduction (NCCL's CollNet plugin)"


def collnet_segments(ranks_per_node: int) -> int:
    """Return the segments allreduce/collnet cuts the vector into (k = 4·g)."""
    return COLLNET_SEGMENTS_PER_RANK * ranks_per_node


def _switch_topology(m: Machine, switch: int) -> dict:
    """Describe every rank hanging off one switch, for the views."""
    return {"kind": "switch", "switches": list(m.switches), "hub": switch}


# A literal, so that the catalog of UI strings holds it (app.i18n.N_); the check below keeps
# its numbers those of NVLS_SEGMENTS.
NVLS_ALLREDUCE = N_(
    "NVLink SHARP: the NVSwitch adds every GPU's copy of a segment (multimem.ld_reduce) and "
    "multicasts the sum (multimem.st), pipelined over 4 segments: "
    "5 steps, each GPU sends M and receives M once."
)
if f"over {NVLS_SEGMENTS} segments: {NVLS_SEGMENTS + 1} steps" not in NVLS_ALLREDUCE:
    raise RuntimeError("NVLS_ALLREDUCE must say NVLS_SEGMENTS's segments and steps")


@algorithm(
    "allreduce",
    "nvls",
    NVLS_ALLREDUCE,
    parts=lambda ranks, elements: NVLS_SEGMENTS,
    single_port=False,
    ports_note="Each GPU sends to the switch and receives from it in the same step (full "
    "duplex); the switch takes p contributions and multicasts to p GPUs at once.",
    needs_switch=NVSWITCH,
    max_ranks=NVLS_MAX_RANKS,
)
def nvls_allreduce(m: Machine) -> None:
    switch = m.add_switch("NVSwitch", "nvswitch")
    m.topology = _switch_topology(m, switch)
    if m.ranks == 1:
        return  # one rank already holds the result: nothing to send
    k = len(m.chunks)
    for s in range(k + 1):
        phase = "pipeline: into the switch, multicast out"
        if s == 0:
            phase = "into the switch (multimem.ld_reduce)"
        elif s == k:
            phase = "multicast out (multimem.st)"
        with m.step(phase):
            for r in range(m.ranks):
                if s < k:
                    m.send(r, switch, s, "reduce")
                if s > 0:
                    m.send(switch, r, s - 1)


@algorithm(
    "reduce_scatter",
    "nvls",
    N_(
        "NVLink SHARP: every GPU's whole input goes into the NVSwitch, which adds each block over "
        "all GPUs (multimem.ld_reduce), then hands block i to rank i: 2 steps, M out and M/p in "
        "per GPU."
    ),
    single_port=False,
    ports_note="The switch takes p contributions at once and answers p GPUs at once.",
    needs_switch=NVSWITCH,
    max_ranks=NVLS_BLOCK_MAX_RANKS,
)
def nvls_reduce_scatter(m: Machine) -> None:
    switch = m.add_switch("NVSwitch", "nvswitch")
    m.topology = _switch_topology(m, switch)
    if m.ranks == 1:
        return  # one rank already holds the result: nothing to send
    with m.step("into the switch (multimem.ld_reduce)"):
        for r in range(m.ranks):
            m.send_chunks(r, switch, range(m.ranks), "reduce")
    with m.step("each block to its rank"):
        for r in range(m.ranks):
            m.send(switch, r, r)


@algorithm(
    "allgather",
    "nvls",
    N_(
        "NVLink SHARP multicast: every GPU stores its block into the NVSwitch (multimem.st), which "
        "writes every block to every GPU: 2 steps, M/p out and M in per GPU."
    ),
    single_port=False,
    ports_note="The switch takes p blocks at once and multicasts each to p GPUs.",
    needs_switch=NVSWITCH,
    max_ranks=NVLS_BLOCK_MAX_RANKS,
)
def nvls_allgather(m: Machine) -> None:
    switch = m.add_switch("NVSwitch", "nvswitch")
    m.topology = _switch_topology(m, switch)
    if m.ranks == 1:
        return  # one rank already holds the result: nothing to send
    with m.step("into the switch (multimem.st)"):
        for r in range(m.ranks):
            m.send(r, switch, r)
    with m.step("multicast to every GPU"):
        for r in range(m.ranks):
            m.send_chunks(switch, r, range(m.ranks))


def collnet_hop(m: Machine, hop: int, segment: int, g: int, switch: int) -> None:
    """Queue hop `hop` of `segment` on every node: up the chain (reduce), into the switch
    (reduce), out of it to every head (copy), or down the chain (copy)."""
    nodes = m.ranks // g
    for node in range(nodes):
        base = node * g
        if hop < g - 1:  # local g-1-hop adds its partial sum into local g-2-hop
            m.send(base + g - 1 - hop, base + g - 2 - hop, segment, "reduce")
        elif hop == g - 1:
            m.send(base, switch, segment, "reduce")
        elif hop == g:
            m.send(switch, base, segment)
        else:  # local hop-g-1 passes the result to local hop-g
            m.send(base + hop - g - 1, base + hop - g, segment)


@algorithm(
    "allreduce",
    "collnet",
    N_(
        "CollNet Chain (SHARP): a chain inside each node reduces to the node's head, a SHARP "
        "switch adds the nodes' sums and returns the result to every head, and the chain passes "
        "it back down; pipelined in 4·g segments: 2g + 4g - 1 steps."
    ),
    node_parts=collnet_segments,
    single_port=False,
    ports_note="A chain rank sends up (reduce) and down (result) in the same step, to two "
    "different neighbours; the switch takes every node's sum at once.",
    needs_ranks_per_node=True,
    needs_switch=SHARP,
    max_ranks_per_node=COLLNET_MAX_RANKS_PER_NODE,
)
def collnet(m: Machine) -> None:
    g = m.ranks_per_node or 1
    switch = m.add_switch("SHARP switch", "sharp")
    m.topology = {
        "kind": "switch",
        "switches": list(m.switches),
        "hub": switch,
        "ranks_per_node": g,
        "nodes": m.ranks // g,
    }
    if m.ranks == 1:
        return  # one rank already holds the result: nothing to send
    k, hops = len(m.chunks), 2 * g
    for t in range(hops + k - 1):
        with m.step(_collnet_phase(t, g, k)):
            for hop in range(max(0, t - k + 1), min(hops, t + 1)):
                collnet_hop(m, hop, t - hop, g, switch)


def _collnet_phase(t: int, g: int, k: int) -> str:
    """Name step t of the CollNet pipeline by what its hops do."""
    if t < g - 1:
        return "chain reduce, filling"
    if t <= g + k - 1:
        return "through the SHARP switch"
    return "chain broadcast, draining"
