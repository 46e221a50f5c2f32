"""Tree shapes for the tree algorithms: binomial, heap-ordered binary, NCCL's double binary tree.

The shape functions are plain functions over rank numbers (no machine), so any collective can
build on them. A tree is described by a parent list: `parents[r]` is rank r's parent, `NO_PARENT`
(-1) at the root.

Sources:
- Binomial trees numbered relative to the root, as MPICH does (src/mpi/coll/bcast/
  bcast_intra_binomial.c, src/mpi/coll/reduce/reduce_intra_binomial.c): with rel = (rank - root)
  mod p, the parent of rel is rel with its lowest set bit cleared, and the children are rel + m
  for every power of two m below that bit.
- Heap-ordered binary tree: the children of rank i are 2i+1 and 2i+2 (a textbook binary heap).
- NCCL's double binary tree, translated from ncclGetBtree / ncclGetDtree in NCCL's
  src/graph/trees.cc: tree 0 is an in-order binary tree rooted at rank 0 (odd ranks are leaves);
  tree 1 mirrors it (rank r -> p-1-r) when p is even, or shifts it by one rank when p is odd.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ..i18n import N_
from .machine import Machine
from .registry import algorithm

NO_PARENT = -1


def ceil_log2(n: int) -> int:
    """Return ceil(log2 n) for n >= 1 (0 for n = 1)."""
    return (n - 1).bit_length()


def _lowest_bit(value: int) -> int:
    return value & -value


# -- binomial tree (MPICH), relative to a root -----------------------------------------------


def relative_rank(rank: int, root: int, ranks: int) -> int:
    """Return `rank`'s position counted from `root`: (rank - root) mod ranks."""
    return (rank - root) % ranks


def absolute_rank(rel: int, root: int, ranks: int) -> int:
    """Return the rank at relative position `rel` from `root`."""
    return (rel + root) % ranks


def binomial_parent(rank: int, root: int, ranks: int) -> int:
    """Return `rank`'s parent in the binomial tree rooted at `root` (NO_PARENT at the root)."""
    rel = relative_rank(rank, root, ranks)
    if rel == 0:
        return NO_PARENT
    return absolute_rank(rel - _lowest_bit(rel), root, ranks)


def _subtree_span(rel: int, ranks: int) -> int:
    """Return how many relative ranks the subtree under `rel` may span (a power of two)."""
    return _lowest_bit(rel) if rel else 1 << ceil_log2(ranks)


def binomial_children(rank: int, root: int, ranks: int) -> list[int]:
    """List `rank`'s children, largest subtree first (the order MPICH's broadcast sends in)."""
    rel = relative_rank(rank, root, ranks)
    mask = _subtree_span(rel, ranks) >> 1
    children = []
    while mask:
        if rel + mask < ranks:
            children.append(absolute_rank(rel + mask, root, ranks))
        mask >>= 1
    return children


def binomial_subtree_size(rank: int, root: int, ranks: int) -> int:
    """Return how many ranks `rank`'s subtree holds: what gather forwards, scatter passes on.

    Relative ranks rel .. rel + lowbit(rel) - 1, cut at the last rank; the root's is everyone.
    Written out in one line: the cost model asks it for each of up to 65,536 ranks.
    """
    rel = (rank - root) % ranks
    return min(rel & -rel, ranks - rel) if rel else ranks


def binomial_subtree(rank: int, root: int, ranks: int) -> list[int]:
    """List the ranks in `rank`'s subtree, itself first, in relative order (what gather holds)."""
    rel = relative_rank(rank, root, ranks)
    return [
        absolute_rank(rel + q, root, ranks) for q in range(binomial_subtree_size(rank, root, ranks))
    ]


def binomial_parents(ranks: int, root: int = 0) -> list[int]:
    """Return the parent list of the binomial tree on `ranks` ranks rooted at `root`."""
    return [binomial_parent(r, root, ranks) for r in range(ranks)]


def binomial_rounds(ranks: int, root: int = 0) -> list[list[tuple[int, int]]]:
    """Group the binomial tree's (parent, child) edges by round, leaves' round first.

    Round j holds the children whose relative rank has lowest set bit 2**j: the order of a
    reduce or gather (MPICH's mask = 1, 2, 4, ...). Reverse the list for broadcast and scatter.
    There are ceil(log2 ranks) rounds, and in each a rank is in at most one edge as a child and
    at most one as a parent, so every round fits the single-port model.
    """
    rounds: list[list[tuple[int, int]]] = [[] for _ in range(ceil_log2(ranks))]
    for rel in range(1, ranks):
        bit = _lowest_bit(rel)
        parent = absolute_rank(rel - bit, root, ranks)
        rounds[bit.bit_length() - 1].append((parent, absolute_rank(rel, root, ranks)))
    return rounds


# -- heap-ordered binary tree ----------------------------------------------------------------


def heap_parents(ranks: int) -> list[int]:
    """Return the parent list of the heap-ordered binary tree: rank i's children are 2i+1, 2i+2."""
    return [NO_PARENT] + [(i - 1) // 2 for i in range(1, ranks)]


# -- NCCL's double binary tree ---------------------------------------------------------------


def _nccl_btree_parents(ranks: int) -> np.ndarray:
    """Return every rank's parent in NCCL's in-order binary tree rooted at 0 (ncclGetBtree).

    Rank r's parent: clear its lowest set bit and set the next one up, or only clear it when
    that is past the last rank; rank 0 is the root.
    """
    rank = np.arange(ranks, dtype=np.int64)
    bit = rank & -rank  # the lowest set bit: below `ranks` for every rank but 0
    up = (rank ^ bit) | (bit << 1)
    up = np.where(up >= ranks, rank ^ bit, up)
    up[0] = NO_PARENT
    return up


@lru_cache(maxsize=4)  # the cost model caches the terms built from these; 4.7 MB at 65,536
def double_binary_tree_parents(ranks: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Return the parent lists of NCCL's two trees (ncclGetDtree).

    Tree 1 is tree 0 mirrored (rank r plays p-1-r) when p is even, so its root is p-1; when p is
    odd it is tree 0 shifted by one rank (rank r plays r-1), so its root is 1. Either way the
    ranks that are interior (non-root with children) in one tree are leaves in the other.
    Computed for all ranks at once: the cost model asks at up to 65,536 ranks, where rank by
    rank took a second.
    """
    tree0 = _nccl_btree_parents(ranks)
    rank = np.arange(ranks)
    if ranks % 2:
        up = tree0[(rank - 1) % ranks]
        tree1 = np.where(up == NO_PARENT, NO_PARENT, (up + 1) % ranks)
    else:
        up = tree0[ranks - 1 - rank]
        tree1 = np.where(up == NO_PARENT, NO_PARENT, ranks - 1 - up)
    return tuple(tree0.tolist()), tuple(tree1.tolist())


# -- reading a parent list -------------------------------------------------------------------


def children_lists(parents: Sequence[int]) -> list[list[int]]:
    """Return each rank's children, in rank order, from a parent list."""
    children: list[list[int]] = [[] for _ in parents]
    for rank, parent in enumerate(parents):
        if parent != NO_PARENT:
            children[parent].append(rank)
    return children


def depths(parents: Sequence[int]) -> list[int]:
    """Return each rank's distance from the root (0 at the root).

    Each pass moves every rank one step towards the root, as many passes as the tree is deep:
    the cost model reads trees of 65,536 ranks, where walking up rank by rank took seconds.
    """
    parent = np.asarray(parents, dtype=np.int64)
    depth = np.zeros(len(parent), dtype=np.int64)
    node = parent.copy()
    while (live := node != NO_PARENT).any():
        depth += live
        node = np.where(live, parent[np.maximum(node, 0)], NO_PARENT)
    return depth.tolist()


def tree_depth(parents: Sequence[int]) -> int:
    """Return the depth of the tree: the longest root-to-leaf path, in edges."""
    return max(depths(parents), default=0)


def levels_up(parents: Sequence[int]) -> list[list[tuple[int, int]]]:
    """Group the (child, parent) edges by the child's depth, deepest first: one step each.

    A rank's children all sit one level below it, so by the time a rank's level moves, everything
    below it has arrived: this is the order of a level-by-level reduce up the tree. Reverse the
    list (and each edge) for a broadcast down it.
    """
    depth = depths(parents)
    height = max(depth, default=0)
    levels: list[list[tuple[int, int]]] = [[] for _ in range(height)]
    for rank, parent in enumerate(parents):
        if parent != NO_PARENT:
            levels[height - depth[rank]].append((rank, parent))
    return levels


# -- allreduce over binary trees -------------------------------------------------------------

Schedule = list[tuple[str, list[tuple[int, int, int, str]]]]  # (action, [(src, dst, chunk, op)])


def tree_allreduce_schedule(parents: Sequence[int], chunk: int) -> Schedule:
    """Plan a reduce of `chunk` up the tree, then a broadcast of the result back down it."""
    up = levels_up(parents)
    reduce_steps = [("reduce up", [(c, p, chunk, "reduce") for c, p in level]) for level in up]
    down = [("broadcast down", [(p, c, chunk, "copy") for c, p in level]) for level in up[::-1]]
    return reduce_steps + down


def _phase(actions: list[str | None]) -> str:
    """Name a step of several concurrent trees for the lab ("reduce up trees 0 and 1")."""
    active = [(t, a) for t, a in enumerate(actions) if a is not None]
    if len({a for _, a in active}) == 1:
        trees = " and ".join(str(t) for t, _ in active)
        return f"{active[0][1]} tree{'s' if len(active) > 1 else ''} {trees}"
    return ", ".join(f"{a} tree {t}" for t, a in active)


def run_concurrently(m: Machine, schedules: list[Schedule]) -> None:
    """Run several trees' schedules side by side, step i of each in the same round."""
    for i in range(max((len(s) for s in schedules), default=0)):
        actions = [s[i][0] if i < len(s) else None for s in schedules]
        with m.step(_phase(actions)):
            for schedule in schedules:
                for src, dst, chunk, op in schedule[i][1] if i < len(schedule) else []:
                    m.send(src, dst, chunk, op)


@algorithm(
    "allreduce",
    "binary_tree",
    N_(
        "Reduce up a heap-ordered binary tree rooted at rank 0, then broadcast back down: "
        "2·floor(log2 p) steps, not pipelined."
    ),
    single_port=False,
    ports_note="A parent takes both children's partial reductions in the same step and sends "
    "the result to both children in the same step, so it hears and talks to two peers at once.",
)
def binary_tree(m: Machine) -> None:
    parents = heap_parents(m.ranks)
    m.topology = {"kind": "tree", "parent": parents}
    for action, transfers in tree_allreduce_schedule(parents, 0):
        with m.step(f"{action} the tree"):
            for src, dst, chunk, op in transfers:
                m.send(src, dst, chunk, op)


@algorithm(
    "allreduce",
    "double_binary_tree",
    N_(
        "NCCL's double binary tree: two complementary binary trees each reduce then broadcast half "
        "the data at the same time; a rank interior in one tree is a leaf in the other."
    ),
    parts=lambda ranks, elements: 2,
    single_port=False,
    ports_note="The two trees run concurrently, so in one step a rank can send in both trees, "
    "and a parent takes (or sends to) both children at once.",
)
def double_binary_tree(m: Machine) -> None:
    trees = double_binary_tree_parents(m.ranks)
    m.topology = {"kind": "trees", "parents": [list(tree) for tree in trees]}
    run_concurrently(m, [tree_allreduce_schedule(t, chunk) for chunk, t in enumerate(trees)])
