"""Integer facts about rank layouts the formulas need: powers of two, trees, fold-in partners.

Everything here is exact integer arithmetic on rank numbers (root 0), so the cost model can
count the bytes each rank sends without running the engine.
"""

from __future__ import annotations

from functools import lru_cache


def pof2(p: int) -> int:
    """Return the largest power of two <= p (p >= 1)."""
    return 1 << (p.bit_length() - 1)


def lg(p: int) -> int:
    """Return floor(log2 p) for p >= 1."""
    return p.bit_length() - 1


def ceil_lg(p: int) -> int:
    """Return ceil(log2 p) for p >= 1: the rounds of a binomial tree or of Bruck's algorithm."""
    return (p - 1).bit_length()


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
    top = 1 << ceil_lg(p) if r == 0 else lowbit(r)
    count, m = 0, top >> 1
    while m:
        count += r + m < p
        m >>= 1
    return count


def heap_parents(p: int) -> list[int]:
    """Return the parent of each rank in the heap-ordered binary tree: (r-1)//2, -1 at root 0."""
    return [-1] + [(r - 1) // 2 for r in range(1, p)]


def _nccl_btree_parent(p: int, rank: int) -> int:
    """Return rank's parent in NCCL's in-order binary tree (`ncclGetBtree`, src/graph/trees.cc)."""
    if rank == 0:
        return -1
    bit = 1
    while bit < p and not bit & rank:
        bit <<= 1
    up = (rank ^ bit) | (bit << 1)
    if up >= p:
        up = rank ^ bit
    return up


@lru_cache(maxsize=64)
def nccl_dtree_parents(p: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Return the two parent lists of NCCL's double binary tree (`ncclGetDtree`, trees.cc).

    Tree 0 is `ncclGetBtree`; tree 1 mirrors it (rank r -> p-1-r) when p is even and shifts it
    by one rank when p is odd, so that most ranks are a leaf in one tree and interior in the
    other.
    """
    first = tuple(_nccl_btree_parent(p, r) for r in range(p))
    if p % 2:
        second = []
        for r in range(p):
            up = _nccl_btree_parent(p, (r - 1) % p)
            second.append(-1 if up == -1 else (up + 1) % p)
    else:
        second = []
        for r in range(p):
            up = _nccl_btree_parent(p, p - 1 - r)
            second.append(-1 if up == -1 else p - 1 - up)
    return first, tuple(second)


def depths(parents: list[int] | tuple[int, ...]) -> list[int]:
    """Return every rank's depth (root 0) in the tree given by its parent list."""
    out: list[int | None] = [None] * len(parents)
    for r in range(len(parents)):
        chain, node = [], r
        while out[node] is None and parents[node] != -1:
            chain.append(node)
            node = parents[node]
        if out[node] is None:  # the root
            out[node] = 0
        depth = out[node]
        for member in reversed(chain):
            depth += 1
            out[member] = depth
    return [d for d in out if d is not None]


def child_counts(parents: list[int] | tuple[int, ...]) -> list[int]:
    """Return how many children each rank has in the tree given by its parent list."""
    counts = [0] * len(parents)
    for parent in parents:
        if parent >= 0:
            counts[parent] += 1
    return counts


def fold_weights(p: int) -> list[int]:
    """Return how many ranks' blocks each of the pof2 core ranks carries after an MPICH fold-in.

    MPICH's non-power-of-two scheme (`allreduce_intra_recursive_doubling.c`): of the first
    2·rem ranks (rem = p - pof2), each even rank hands its data to the odd rank above it and
    sits out. Core rank v < rem is real rank 2v+1 and carries two ranks' blocks; core rank
    v >= rem is real rank v + rem and carries one.
    """
    rem = p - pof2(p)
    return [2 if v < rem else 1 for v in range(pof2(p))]
