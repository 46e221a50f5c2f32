"""Hierarchical allreduce: reduce-scatter inside each node, allreduce across nodes, allgather.

REFERENCE § 2, variant (b), the scheme behind NCCL's multi-NIC and Horovod's hierarchical
allreduce: with g ranks per node and N = p/g nodes (rank r is local rank r mod g on node r // g),

1. intra-node ring reduce-scatter of g shards (g-1 steps): local rank l ends with shard l
   reduced over its node;
2. g concurrent inter-node ring allreduces, one per local rank l, over the N ranks that hold
   shard l, each cutting its M/g shard into N chunks (2(N-1) steps): every NIC carries
   2(N-1)/N · M/g;
3. intra-node ring allgather of the g shards (g-1 steps).

Total 2(g-1) + 2(N-1) steps; each rank sends 2(g-1)/g · M inside its node and 2(N-1)/N · M/g
across nodes. The buffer is cut into p = g·N chunks: shard l is chunks l·N … l·N+N-1.
"""

from __future__ import annotations

from ..i18n import N_
from .machine import Machine
from .registry import algorithm


def _shard(local: int, nodes: int) -> range:
    """Return the chunks that make up shard `local` (one chunk per node)."""
    return range(local * nodes, (local + 1) * nodes)


def rings_in_groups(m: Machine, g: int, nodes: int, phase: str, op: str, offset: int) -> None:
    """Run a ring over each group (node, torus row) of g consecutive ranks, sending shard
    (l - s - offset) mod g in step s."""
    for s in range(g - 1):
        with m.step(phase):
            for node in range(nodes):
                for local in range(g):
                    src = node * g + local
                    dst = node * g + (local + 1) % g
                    m.send_chunks(src, dst, _shard((local - s - offset) % g, nodes), op)


def rings_across_groups(m: Machine, g: int, nodes: int, phase: str) -> None:
    """Run g concurrent ring allreduces across the groups, local rank l's ring on shard l."""
    plan = [(f"{phase} (reduce-scatter)", "reduce", 0), (f"{phase} (allgather)", "copy", -1)]
    for phase_name, op, offset in plan:
        for s in range(nodes - 1):
            with m.step(phase_name):
                for local in range(g):
                    chunks = _shard(local, nodes)
                    for node in range(nodes):
                        src, dst = node * g + local, (node + 1) % nodes * g + local
                        m.send(src, dst, chunks[(node - s - offset) % nodes], op)


@algorithm(
    "allreduce",
    "hierarchical",
    N_(
        "Ring reduce-scatter inside each node, g concurrent ring allreduces across nodes on M/g "
        "each (one per local rank, so every NIC is used), then ring allgather inside each node."
    ),
    parts=lambda ranks, elements: ranks,
    needs_ranks_per_node=True,
)
def hierarchical(m: Machine) -> None:
    g = m.ranks_per_node or 1
    nodes = m.ranks // g
    m.topology = {"kind": "hierarchical", "ranks_per_node": g, "nodes": nodes}
    # Offset 1 in the reduce-scatter leaves local rank l holding shard l, reduced over its node.
    rings_in_groups(m, g, nodes, "intra-node reduce-scatter", "reduce", 1)
    rings_across_groups(m, g, nodes, "inter-node allreduce")
    rings_in_groups(m, g, nodes, "intra-node allgather", "copy", 0)
