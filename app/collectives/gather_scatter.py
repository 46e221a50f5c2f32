"""Gather and scatter: the root collects every rank's block, or hands each rank its own block.

Chunk c is rank c's block (M/p bytes; M = p · elements · itemsize for gather, elements ·
itemsize for scatter, REFERENCE § 1). Binomial trees are numbered relative to the root with
rel = (rank - root) mod p, as MPICH does; the subtree under rel spans relative ranks
rel .. min(rel + lowbit(rel), p) - 1.

- `gather/binomial_tree`: MPICH gather_intra_binomial.c. In round j (j = 0..ceil(lg p)-1)
  each rank whose rel has lowest set bit 2^j sends every block it holds, its whole subtree, to
  its parent rel - 2^j, whose own subtree is complete by then. A non-root rank sends
  min(lowbit(rel), p - rel) · M/p bytes, once; the root receives (p-1)/p · M.
- `scatter/binomial_tree`: MPICH scatter_intra_binomial.c, the same tree walked top-down:
  each parent sends a child the blocks of the child's subtree. The root sends (p-1)/p · M; a
  non-root rank sends (min(lowbit(rel), p - rel) - 1) · M/p, its subtree minus its own block.
- `direct`: one step in which the root hears from, or talks to, all p-1 peers at once.
"""

from __future__ import annotations

from ..i18n import N_
from .machine import Machine
from .registry import algorithm
from .trees import binomial_parents, binomial_rounds, binomial_subtree


def _held(m: Machine, rank: int) -> list[int]:
    """List the chunks `rank` holds, in chunk order."""
    return [c for c in range(m.ranks) if m.holders(rank, c)]


@algorithm(
    "gather",
    "binomial_tree",
    N_("Subtrees send up a binomial tree: ceil(lg p) steps; the root receives (p-1)/p · M."),
)
def gather_binomial(m: Machine) -> None:
    p, root = m.ranks, m.root
    m.topology = {"kind": "tree", "parent": binomial_parents(p, root)}
    for j, edges in enumerate(binomial_rounds(p, root)):
        # Collect the payloads before the step: each child forwards what it holds now.
        messages = [(child, parent, _held(m, child)) for parent, child in edges]
        with m.step(f"subtrees of {1 << j} send up"):
            for child, parent, chunks in messages:
                m.send_chunks(child, parent, chunks)


@algorithm(
    "gather",
    "direct",
    N_("Every rank sends its block straight to the root in one step."),
    single_port=False,
    ports_note="the root hears all p-1 peers in the one step (distinct blocks, no conflict)",
)
def gather_direct(m: Machine) -> None:
    m.topology = {"kind": "complete"}
    m.root_step("all to the root", lambda r: r, to_root=True)


@algorithm(
    "scatter",
    "binomial_tree",
    N_("Subtrees' blocks go down a binomial tree: ceil(lg p) steps; the root sends (p-1)/p · M."),
)
def scatter_binomial(m: Machine) -> None:
    p, root = m.ranks, m.root
    m.topology = {"kind": "tree", "parent": binomial_parents(p, root)}
    rounds = binomial_rounds(p, root)
    for j in reversed(range(len(rounds))):
        with m.step(f"subtrees of {1 << j} sent down"):
            for parent, child in rounds[j]:
                m.send_chunks(parent, child, binomial_subtree(child, root, p))


@algorithm(
    "scatter",
    "direct",
    N_("The root sends every rank its block in one all-port step."),
    single_port=False,
    ports_note="all-port: the root sends to all p-1 peers in the one step",
)
def scatter_direct(m: Machine) -> None:
    m.topology = {"kind": "complete"}
    m.root_step("root to all", lambda r: r, to_root=False)
