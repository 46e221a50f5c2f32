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

from .allreduce_terms import tree_terms
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

    def up(self, step: int, chunks: int) -> np.ndarray:
        """Mask of the child → parent edges carrying a chunk in `step`."""
        j = step - (self.deepest - self.depth)
        return (j >= 0) & (j < chunks)

    def down(self, step: int, chunks: int) -> np.ndarray:
        """Mask of the parent → child edges carrying a chunk in `step`."""
        j = step - self.deepest - (self.depth - 1)
        return (j >= 0) & (j < chunks)


def _pair_keys(tree: _Tree, step: int, chunks: int, p: int) -> np.ndarray:
    """Return src·p + dst of every message of `tree` in `step` (each pair at most once)."""
    up, down = tree.up(step, chunks), tree.down(step, chunks)
    return np.concatenate(
        [tree.child[up] * p + tree.parent[up], tree.parent[down] * p + tree.child[down]]
    )


def _largest_and_reduced(trees: list[_Tree], step: int, chunks: int, p: int) -> tuple[int, int]:
    """Return, in chunks, the step's largest message and the most any rank reduces."""
    keys = [_pair_keys(tree, step, chunks, p) for tree in trees]
    if not any(len(k) for k in keys):
        return 0, 0
    shared = len(np.intersect1d(keys[0], keys[1], assume_unique=True)) if len(trees) > 1 else 0
    reduced = np.zeros(p, dtype=np.int64)
    for tree in trees:
        reduced += np.bincount(tree.parent[tree.up(step, chunks)], minlength=p)
    return (2 if shared else 1), int(reduced.max())


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
    for step in range(steps):
        message, reduce = _largest_and_reduced(trees, step, k, p)
        largest, reduced = largest + message, reduced + reduce
    chunk = 1 / (2 * k)
    _, per_rank = tree_terms(parents, 0.5)  # the unpipelined tree's bytes: the same sends
    phase = Phase(
        "reduce up and broadcast down, pipelined", INTER, steps, largest * chunk, reduced * chunk
    )
    return Terms(
        (phase,),
        per_rank,
        "(2D + k − 1)·(α + (M/2k)·β) + (chunks reduced on the busiest rank per step)·(M/2k)·γ, "
        "D = the deeper tree's depth, k chunks per tree (a step where two ranks talk in both "
        "trees carries 2 chunks)",
        "REFERENCE § 2 pipelined binary tree; trees from NCCL ncclGetDtree [TR]; pipelining as "
        "NCCL src/device/all_reduce.h",
    )
