"""NCCL's double binary tree allreduce, pipelined in chunks: reduce up and broadcast down overlap.

The trees are NCCL's (`trees.double_binary_tree_parents`, from ncclGetDtree in
src/graph/trees.cc): tree t carries half the vector, cut into k chunks: chunks t, t+2, t+4, ...
of the 2k, so that an uneven cut of the vector still splits it evenly between the trees.

NCCL's tree kernel (src/device/all_reduce.h, runTreeUpDown / runTreeSplit, NCCL 2.30.7)
streams chunk after chunk: a rank reduces a chunk from its children into its own and passes it
to its parent, the root turns it round, and each rank forwards the result to its children,
while the next chunks are still on their way up. So in one step a rank may take chunk j+1 from
its children, send chunk j to its parent, take an older chunk from its parent and send it on to
its children.

Schedule, one level a step: in tree t of depth D_t, chunk j leaves the children at depth d for
their parents in step j + (D_t - d), and leaves a parent for its children at depth d in step
j + D_t + (d - 1). The last chunk arrives after 2D + k - 1 steps (D the deeper tree's depth),
against 2D·k if the chunks went one after the other; every rank sends (children + 1)·M/2 per
tree, as the unpipelined tree does.

Chunk count: NCCL cuts each channel's share into chunks of buffSize / NCCL_STEPS bytes
(enqueue.cc; 512 KiB for Simple's 4 MiB buffer), so the count grows with the message, and a
connection's FIFO holds NCCL_STEPS = 8 of them in flight (src/include/device.h). The engine has
no bytes to size chunks with, so it takes that FIFO depth: k = 8 chunks per tree. The cost model
prices any other count (its `segments`: chunks in all, half to each tree).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..i18n import N_
from .machine import Machine
from .registry import algorithm
from .trees import NO_PARENT, depths, double_binary_tree_parents

CHUNKS_PER_TREE = 8  # NCCL_STEPS, the chunks a connection holds in flight (see above)

Move = tuple[int, int, int, str]  # (src, dst, chunk of this tree, "up" or "down")


def pipelined_steps(chunks: int, deepest: int) -> int:
    """Return the steps of `chunks` chunks up and down trees at most `deepest` levels deep."""
    return 2 * deepest + chunks - 1 if deepest else 0


def tree_moves(parents: Sequence[int], chunks: int, step: int) -> Iterator[Move]:
    """Yield the moves of one tree in `step` (see the module docstring for the timing)."""
    depth = depths(parents)
    deepest = max(depth, default=0)
    for child, parent in enumerate(parents):
        if parent == NO_PARENT:
            continue
        d = depth[child]
        up = step - (deepest - d)
        if 0 <= up < chunks:
            yield child, parent, up, "up"
        down = step - deepest - (d - 1)
        if 0 <= down < chunks:
            yield parent, child, down, "down"


def _phase(directions: set[str]) -> str:
    if directions == {"up"}:
        return "reduce up (pipeline filling)"
    if directions == {"down"}:
        return "broadcast down (pipeline draining)"
    return "reduce up and broadcast down (pipelined)"


@algorithm(
    "allreduce",
    "tree_pipelined",
    N_(
        "NCCL's double binary tree, each half cut into 8 chunks that stream up and back down: "
        "2D + 7 steps of M/16 instead of 2D steps of M/2, the same bytes per rank."
    ),
    parts=lambda ranks, elements: 2 * CHUNKS_PER_TREE,
    cell_updates_factor=4.0,  # 16 chunks up and down every edge: 32(p-1), 4x the usual 2p² at p=2
    single_port=False,
    ports_note="Up and down overlap: in one step a rank can hear its children and its parent "
    "and send to both, in each of the two trees.",
)
def tree_pipelined(m: Machine) -> None:
    trees = double_binary_tree_parents(m.ranks)
    m.topology = {
        "kind": "trees",
        "parents": [list(tree) for tree in trees],
        "chunks_per_tree": CHUNKS_PER_TREE,
    }
    deepest = max(max(depths(tree), default=0) for tree in trees)
    for step in range(pipelined_steps(CHUNKS_PER_TREE, deepest)):
        moves = [
            (t, move)
            for t, tree in enumerate(trees)
            for move in tree_moves(tree, CHUNKS_PER_TREE, step)
        ]
        directions = {move[3] for _, move in moves}
        with m.step(_phase(directions)):
            for t, (src, dst, chunk, direction) in moves:
                op = "reduce" if direction == "up" else "copy"
                m.send(src, dst, 2 * chunk + t, op)  # tree t's chunks are t, t+2, t+4, ...
