"""Cost terms of the pipelined double binary tree allreduce (`allreduce/tree_pipelined`).

The schedule is the engine's (`app.collectives.tree_pipelined`): tree t of depth D_t carries
M/2 in k chunks of M/2k; chunk j leaves the children at depth d for their parents in step
j + (D_t − d) and leaves a parent for its children at depth d in step j + D_t + d − 1. So there
are 2D + k − 1 steps (D the deeper tree's depth), and a step lasts α plus its largest message:
one chunk, or two where the same pair of ranks talks in both trees in the same step. The γ term
charges, each step, the most chunks any rank reduces (its children in both trees).

Counted with numpy, step by step: the cost model prices up to 65,536 ranks.
"""

from __future__ import annotations

import numpy as np

from app.collectives.tree_pipelined import CHUNKS_PER_TREE, pipelined_steps
from app.collectives.trees import depths as tree_depths
from app.collectives.trees import double_binary_tree_parents

from .terms import INTER, Phase, Terms, register

SEGMENTS = f"chunks each tree's half is cut into (default {CHUNKS_PER_TREE}, as the engine)"


class _Tree:
    """One tree as arrays: each non-root rank, its parent and its depth."""

    def __init__(self, parents: tuple[int, ...]) -> None:
        parent = np.asarray(parents, dtype=np.int64)
        depth = np.asarray(tree_depths(parents), dtype=np.int64)
        self.deepest = int(depth.max(initial=0))
        child = np.flatnonzero(parent >= 0)
        self.child, self.parent, self.depth = child, parent[child], depth[child]

    def up(self, step: int, chunks: int, index=slice(None)) -> np.ndarray:
        """Mask of the child → parent edges (those at `index`) carrying a chunk in `step`."""
        j = step - (self.deepest - self.depth[index])
        return (j >= 0) & (j < chunks)

    def down(self, step: int, chunks: int, index=slice(None)) -> np.ndarray:
        """Mask of the parent → child edges (those at `index`) carrying a chunk in `step`."""
        j = step - self.deepest - (self.depth[index] - 1)
        return (j >= 0) & (j < chunks)


def _shared_edges(trees: list[_Tree], p: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """For the edges both trees use, each tree's index of that edge (and its child there).

    Only these can carry two chunks between one pair of ranks in one step (within a tree every
    directed pair carries one chunk at most), so only these are checked step by step.
    """
    if len(trees) < 2:
        return []
    keys = [np.minimum(t.child, t.parent) * p + np.maximum(t.child, t.parent) for t in trees]
    _, first, second = np.intersect1d(keys[0], keys[1], assume_unique=True, return_indices=True)
    return [(first, trees[0].child[first]), (second, trees[1].child[second])]


def _senders(tree: _Tree, index: np.ndarray, step: int, chunks: int) -> list[np.ndarray]:
    """Who sends on the edges `index` of `tree` in `step`, up and down (an edge may carry a
    chunk each way in one step): the child going up, the parent going down, -1 when idle."""
    up, down = tree.up(step, chunks, index), tree.down(step, chunks, index)
    return [np.where(up, tree.child[index], -1), np.where(down, tree.parent[index], -1)]


def _largest_and_reduced(trees: list[_Tree], shared, step: int, chunks: int, p: int):
    """Return, in chunks, the step's largest message and the most any rank reduces."""
    ups = [t.up(step, chunks) for t in trees]
    largest = 1
    if shared:
        first, second = (
            _senders(t, index, step, chunks) for t, (index, _) in zip(trees, shared, strict=True)
        )
        # Two chunks share a pair when both trees send along a shared edge from the same end.
        if any(((a >= 0) & (a == b)).any() for a in first for b in second):
            largest = 2
    reduced = np.zeros(p, dtype=np.int64)
    for tree, up in zip(trees, ups, strict=True):
        reduced += np.bincount(tree.parent[up], minlength=p)
    return largest, int(reduced.max())


@register(
    "allreduce",
    "tree_pipelined",
    segments=SEGMENTS,
    default_segments=lambda ranks: CHUNKS_PER_TREE,
)
def tree_pipelined(p: int, *, segments: int | None = None, **_: object) -> Terms:
    """NCCL's double binary tree, each half cut into k chunks streamed up and down at once."""
    k = segments or CHUNKS_PER_TREE
    parents = double_binary_tree_parents(p)
    trees = [_Tree(t) for t in parents]
    steps = pipelined_steps(k, max(t.deepest for t in trees))
    largest = reduced = 0
    shared = _shared_edges(trees, p)  # steps run 0 .. steps-1: every one moves a chunk
    for step in range(steps):
        message, reduce = _largest_and_reduced(trees, shared, step, k, p)
        largest, reduced = largest + message, reduced + reduce
    chunk = 1 / (2 * k)
    # The unpipelined tree's sends: M/2 per tree to the parent and to each child.
    per_rank = sum(
        0.5 * (np.bincount(t.parent, minlength=p) + np.bincount(t.child, minlength=p))
        for t in trees
    )
    phase = Phase(
        "reduce up and broadcast down, pipelined", INTER, steps, largest * chunk, reduced * chunk
    )
    return Terms(
        (phase,),
        tuple(per_rank.tolist()),
        "(2D + k − 1)·(α + (M/2k)·β) + (chunks reduced on the busiest rank per step)·(M/2k)·γ, "
        "D = the deeper tree's depth, k chunks per tree (a step where two ranks talk in both "
        "trees carries 2 chunks)",
        "REFERENCE § 2 pipelined binary tree; trees from NCCL ncclGetDtree [TR]; pipelining as "
        "NCCL src/device/all_reduce.h",
    )
