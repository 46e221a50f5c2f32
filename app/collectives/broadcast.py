"""Broadcast algorithms: every rank ends with the root's vector.

Sources: MPICH src/mpi/coll/bcast/ — bcast_intra_binomial.c (binomial tree, ceil(lg p) rounds,
relative to the root), bcast_intra_scatter_ring_allgather.c with MPII_Scatter_for_bcast in
bcast_utils.c (van de Geijn: binomial scatter of p pieces, piece i to relative rank i, then a
ring allgather), and the pipelined chain NCCL uses for Broadcast (REFERENCE § 3: NCCL
broadcasts with Ring, i.e. a chain from the root, cut into segments).
"""

from __future__ import annotations

from ..i18n import N_
from .allreduce_ring import around_the_ring
from .machine import Machine
from .registry import algorithm
from .trees import binomial_parents, binomial_rounds, binomial_subtree, relative_rank


def chain_from(root: int, ranks: int) -> list[int]:
    """List the ranks root, root+1, …, root-1 (mod ranks): a chain that starts at the root."""
    return [(root + i) % ranks for i in range(ranks)]


def _pipeline_stage(step: int, hops: int, segments: int) -> str:
    """Say whether a chain pipeline is filling, full (every hop busy) or draining at `step`."""
    if step < hops - 1:
        return "filling"
    if step > segments - 1:
        return "draining"
    return "full"


def pipeline_along(m: Machine, order: list[int], op: str, verb: str) -> None:
    """Stream every chunk along the chain `order`, one hop per step, chunk s leaving at step s.

    Hop h carries chunk s in step s + h, so with k chunks and p ranks the last chunk arrives
    after (p-1) + (k-1) steps; each rank forwards a chunk the step after it arrived, so every
    rank sends one chunk and receives one per step (single-port). The lab draws the chain.
    """
    m.topology = {"kind": "chain", "order": order}
    hops, segments = len(order) - 1, len(m.chunks)
    for step in range(hops + segments - 1 if hops else 0):
        with m.step(f"{verb} along the chain (pipeline {_pipeline_stage(step, hops, segments)})"):
            for hop in range(hops):
                segment = step - hop
                if 0 <= segment < segments:
                    m.send(order[hop], order[hop + 1], segment, op)


@algorithm(
    "broadcast",
    "binomial_tree",
    N_(
        "Binomial tree from the root (MPICH): the ranks holding the data double every step, "
        "ceil(log2 p) steps; the root sends the whole vector up to ceil(log2 p) times."
    ),
)
def binomial_tree(m: Machine) -> None:
    m.topology = {"kind": "tree", "parent": binomial_parents(m.ranks, m.root)}
    for edges in reversed(binomial_rounds(m.ranks, m.root)):
        with m.step("broadcast down the binomial tree"):
            for parent, child in edges:
                m.send(parent, child, 0)


@algorithm(
    "broadcast",
    "pipelined_ring",
    N_(
        "Chain from the root with the vector cut into p segments, streamed hop by hop: "
        "(p-1)+(p-1) steps, every rank but the last sends the vector once."
    ),
    parts=lambda ranks, elements: ranks,
)
def pipelined_ring(m: Machine) -> None:
    pipeline_along(m, chain_from(m.root, m.ranks), "copy", "broadcast")


@algorithm(
    "broadcast",
    "scatter_allgather",
    N_(
        "van de Geijn: scatter p pieces down a binomial tree (ceil(log2 p) steps), then a ring "
        "allgather (p-1 steps); about 2(p-1)/p · M per rank instead of the tree's log p · M."
    ),
    parts=lambda ranks, elements: ranks,
)
def scatter_allgather(m: Machine) -> None:
    p, root = m.ranks, m.root
    # Piece i belongs to relative rank i, as in MPICH's MPII_Scatter_for_bcast.
    m.topology = {
        "kind": "tree",
        "parent": binomial_parents(p, root),
        "ring_order": list(range(p)),
    }
    for edges in reversed(binomial_rounds(p, root)):
        with m.step("scatter down the binomial tree"):
            for parent, child in edges:
                pieces = [relative_rank(q, root, p) for q in binomial_subtree(child, root, p)]
                m.send_chunks(parent, child, pieces)
    around_the_ring(m, "allgather around the ring", -root)  # rank r holds piece r - root


@algorithm(
    "broadcast",
    "direct",
    N_(
        "The root sends the whole vector to every other rank in one all-port step: "
        "the root's link carries (p-1) · M."
    ),
    single_port=False,
    ports_note="All-port on purpose: the root sends to every rank in the same step, "
    "to show the contention on its link.",
)
def direct(m: Machine) -> None:
    m.topology = {"kind": "complete"}
    m.root_step("root sends to everyone", lambda r: 0, to_root=False)
