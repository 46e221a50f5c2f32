"""Cost terms of the pipelined double binary tree allreduce (`allreduce/tree_pipelined`).

The schedule is the engine's (`app.collectives.tree_pipelined`): tree t of depth D_t carries
M/2 in k chunks of M/2k; chunk j leaves the children at depth d for their parents in step
j + (D_t − d) and leaves a parent for its children at depth d in step j + D_t + d − 1. So there
are 2D + k − 1 steps (D the deeper tree's depth). A rank talks to its parent and children in
both trees at once through one port, so a step lasts α plus its busiest port: the most chunks
any rank sends or receives in it (four in the steady state: up and to two children in the tree
where it is interior, up in the other). Summed, that is ≈ 2M·β once k is large, REFERENCE § 2's
double binary tree, never below the point-to-point bound. The γ term charges, each step, the
most chunks any rank reduces (its children in both trees).

Counted with numpy, step by step: the cost model prices up to 65,536 ranks.
"""

from __future__ import annotations

import numpy as np

from app.collectives.tree_pipelined import CHUNKS_PER_TREE, pipelined_steps
from app.collectives.trees import depths as tree_depths
from app.collectives.trees import double_binary_tree_parents

from .terms import INTER, Phase, Terms, register

SEGMENTS = (
    f"chunks the message is cut into, half to each tree (default {2 * CHUNKS_PER_TREE}, "
    "as the engine)"
)


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


def _busiest_port_and_reduced(trees: list[_Tree], step: int, chunks: list[int], p: int):
    """Return, in chunks, the most any rank sends or receives in `step`, and reduces."""
    sent = np.zeros(p, dtype=np.int64)
    heard = np.zeros(p, dtype=np.int64)
    reduced = np.zeros(p, dtype=np.int64)
    for tree, k in zip(trees, chunks, strict=True):
        up, down = tree.up(step, k), tree.down(step, k)
        went_up = np.bincount(tree.parent[up], minlength=p)
        sent += np.bincount(tree.child[up], minlength=p)
        sent += np.bincount(tree.parent[down], minlength=p)
        heard += went_up + np.bincount(tree.child[down], minlength=p)
        reduced += went_up
    return int(max(sent.max(), heard.max())), int(reduced.max())


@register(
    "allreduce",
    "tree_pipelined",
    segments=SEGMENTS,
    default_segments=lambda ranks: 2 * CHUNKS_PER_TREE,
    busiest_port=True,
)
def tree_pipelined(p: int, *, segments: int | None = None, **_: object) -> Terms:
    """NCCL's double binary tree, the message cut into chunks streamed up and down at once."""
    s = segments or 2 * CHUNKS_PER_TREE
    chunks = [(s + 1) // 2, s // 2]  # tree 0 takes the odd one out
    parents = double_binary_tree_parents(p)
    trees = [_Tree(t) for t in parents]
    steps = max(pipelined_steps(k, t.deepest) for t, k in zip(trees, chunks, strict=True))
    ported = reduced = 0
    for step in range(steps):
        port, reduce = _busiest_port_and_reduced(trees, step, chunks, p)
        ported, reduced = ported + port, reduced + reduce
    # The unpipelined tree's sends: each tree's share to the parent and to each child.
    per_rank = sum(
        k / s * (np.bincount(t.parent, minlength=p) + np.bincount(t.child, minlength=p))
        for t, k in zip(trees, chunks, strict=True)
    )
    phase = Phase("reduce up and broadcast down, pipelined", INTER, steps, ported / s, reduced / s)
    return Terms(
        (phase,),
        tuple(np.asarray(per_rank, dtype=float).tolist()),
        "(2D + k − 1)·α + (Σ over steps of the busiest port's chunks)·(M/s)·β + (Σ of the "
        "most chunks a rank reduces)·(M/s)·γ, s = 2k chunks, k per tree, D = the deeper "
        "tree's depth; ≈ 2M·β for large k",
        "REFERENCE § 2 pipelined binary tree; trees from NCCL ncclGetDtree [TR]; pipelining as "
        "NCCL src/device/all_reduce.h",
    )
