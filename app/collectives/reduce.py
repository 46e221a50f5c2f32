"""Reduce algorithms: the root ends with the reduction of every rank's vector.

Sources: MPICH src/mpi/coll/reduce/reduce_intra_binomial.c (binomial tree relative to the root:
in round j every rank whose relative rank has lowest set bit 2**j sends its partial result to
the rank 2**j below it), and the pipelined chain NCCL uses for Reduce (REFERENCE § 3: NCCL
reduces with Ring, i.e. a chain ending at the root, cut into segments).
"""

from __future__ import annotations

from ..i18n import N_
from .broadcast import pipeline_along
from .machine import Machine
from .registry import algorithm
from .trees import binomial_parents, binomial_rounds


def chain_to(root: int, ranks: int) -> list[int]:
    """List the ranks root+1, root+2, …, root (mod ranks): a chain that ends at the root."""
    return [(root + 1 + i) % ranks for i in range(ranks)]


@algorithm(
    "reduce",
    "binomial_tree",
    N_(
        "Binomial tree toward the root (MPICH): partial results merge pairwise, "
        "ceil(log2 p) steps; "
        "each rank but the root sends its vector once."
    ),
)
def binomial_tree(m: Machine) -> None:
    m.topology = {"kind": "tree", "parent": binomial_parents(m.ranks, m.root)}
    for edges in binomial_rounds(m.ranks, m.root):
        with m.step("reduce up the binomial tree"):
            for parent, child in edges:
                m.send(child, parent, 0, "reduce")


@algorithm(
    "reduce",
    "ring",
    N_(
        "Chain ending at the root with the vector cut into p segments, partial sums streamed hop "
        "by hop: (p-1)+(p-1) steps, every rank but the root sends the vector once."
    ),
    parts=lambda ranks, elements: ranks,
)
def ring(m: Machine) -> None:
    pipeline_along(m, chain_to(m.root, m.ranks), "reduce", "reduce")


@algorithm(
    "reduce",
    "direct",
    N_("Every rank sends its vector to the root in one all-port step; the root reduces them all."),
    single_port=False,
    ports_note="All-port on purpose: the root receives from every rank in the same step, "
    "to show the contention on its link.",
)
def direct(m: Machine) -> None:
    m.topology = {"kind": "complete"}
    m.root_step("everyone sends to the root", lambda r: 0, "reduce", to_root=True)
