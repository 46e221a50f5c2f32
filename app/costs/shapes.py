"""Integer facts about rank layouts the formulas need: powers of two, trees, fold-in partners.

Everything here is exact integer arithmetic on rank numbers (root 0), so the cost model can
count the bytes each rank sends without running the engine. The shapes both share (powers of
two, ceil(log2 p), the heap-ordered tree) are the engine's own, from `app.collectives`; these
are the counts the cost model needs at up to 65,536 ranks, where listing each subtree would not do.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

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


@lru_cache(maxsize=4)  # the cost model caches the terms built from these; 4.7 MB at 65,536
def nccl_dtree_parents(p: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Return the two parent lists of NCCL's double binary tree (`ncclGetDtree`, trees.cc).

    Tree 0 is `ncclGetBtree`; tree 1 mirrors it (rank r -> p-1-r) when p is even and shifts it
    by one rank when p is odd, so that most ranks are a leaf in one tree and interior in the
    other. Computed for all ranks at once: rank by rank took a second at 65,536 ranks.
    """
    first = _nccl_btree_parents(p)
    ranks = np.arange(p)
    if p % 2:
        up = first[(ranks - 1) % p]
        second = np.where(up == -1, -1, (up + 1) % p)
    else:
        up = first[p - 1 - ranks]
        second = np.where(up == -1, -1, p - 1 - up)
    return tuple(first.tolist()), tuple(second.tolist())


def _nccl_btree_parents(p: int) -> np.ndarray:
    """Return every rank's parent in NCCL's in-order binary tree (`ncclGetBtree`, trees.cc).

    Rank r's parent: clear its lowest set bit and set the next one up, or only clear it when
    that is past the last rank; rank 0 is the root (-1).
    """
    ranks = np.arange(p, dtype=np.int64)
    bit = ranks & -ranks  # the lowest set bit: below p for every rank but 0
    up = (ranks ^ bit) | (bit << 1)
    up = np.where(up >= p, ranks ^ bit, up)
    up[0] = -1
    return up


def fold_weights(p: int) -> list[int]:
    """Return how many ranks' blocks each of the pof2 core ranks carries after an MPICH fold-in.

    MPICH's non-power-of-two scheme (`allreduce_intra_recursive_doubling.c`): of the first
    2·rem ranks (rem = p - pof2), each even rank hands its data to the odd rank above it and
    sits out. Core rank v < rem is real rank 2v+1 and carries two ranks' blocks; core rank
    v >= rem is real rank v + rem and carries one.
    """
    rem = p - largest_power_of_two(p)
    return [2 if v < rem else 1 for v in range(largest_power_of_two(p))]
