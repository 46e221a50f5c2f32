"""Integer facts about rank layouts the formulas need: powers of two, trees, fold-in partners.

Everything here is exact integer arithmetic on rank numbers (root 0), so the cost model can
count the bytes each rank sends without running the engine. The shapes both share (powers of
two, ceil(log2 p), the heap-ordered tree, NCCL's double binary tree) are the engine's own, from
`app.collectives`; these are the counts the cost model needs at up to 65,536 ranks, where
listing each subtree would not do.
"""

from __future__ import annotations

from app.collectives.hypercube import largest_power_of_two
from app.collectives.trees import ceil_log2


def lg(p: int) -> int:
    """Return floor(log2 p) for p >= 1."""
    return p.bit_length() - 1


def lowbit(r: int) -> int:
    """Return the lowest set bit of r > 0."""
    return r & -r


def binomial_subtree(p: int, r: int) -> int:
    """Return how many ranks rank r's subtree holds in MPICH's binomial tree rooted at 0.

    MPICH (`bcast_intra_binomial.c`, `scatter_intra_binomial.c`) makes rank r the parent of
    r + m for every power of two m below r's lowest set bit, so r's subtree is
    [r, r + lowbit(r)) cut at p; the root's subtree is everyone.
    """
    return p if r == 0 else min(lowbit(r), p - r)


def binomial_children(p: int, r: int) -> int:
    """Return how many children rank r has in MPICH's binomial tree rooted at 0."""
    top = 1 << ceil_log2(p) if r == 0 else lowbit(r)
    count, m = 0, top >> 1
    while m:
        count += r + m < p
        m >>= 1
    return count


def fold_weights(p: int) -> list[int]:
    """Return how many ranks' blocks each of the pof2 core ranks carries after an MPICH fold-in.

    MPICH's non-power-of-two scheme (`allreduce_intra_recursive_doubling.c`): of the first
    2·rem ranks (rem = p - pof2), each even rank hands its data to the odd rank above it and
    sits out. Core rank v < rem is real rank 2v+1 and carries two ranks' blocks; core rank
    v >= rem is real rank v + rem and carries one.
    """
    rem = p - largest_power_of_two(p)
    return [2 if v < rem else 1 for v in range(largest_power_of_two(p))]
