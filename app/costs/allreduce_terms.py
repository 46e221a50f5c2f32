"""Cost terms of every allreduce algorithm: M is the full vector every rank holds.

Formulas from REFERENCE § 2; step counts and per-rank bytes from REFERENCE § 1 and the
engine's conventions (docs/engine.md). Non-powers of two use MPICH's fold-in/fold-out: the
first 2·rem ranks pair up, each even rank sends its whole vector to the odd rank above it,
the pof2 remaining ranks run the power-of-two algorithm, and the odd ranks send the result
back (`allreduce_intra_recursive_doubling.c`, `allreduce_intra_reduce_scatter_allgather.c`).
"""

from __future__ import annotations

import numpy as np

from app.collectives.hypercube import floor_log2, largest_power_of_two
from app.collectives.torus import torus_grid
from app.collectives.trees import depths as tree_depths
from app.collectives.trees import double_binary_tree_parents, heap_parents

from .terms import INTER, INTRA, Phase, Terms, all_port_step, one_phase, register, uniform

TRG = "REFERENCE § 2 [TRG]"


def _folded_bytes(p: int, core_units: float, fold_out_units: float) -> tuple[float, ...]:
    """Return per-rank bytes for a fold-in (even ranks send all of M) around a core algorithm.

    Even ranks below 2·rem send M once; odd ranks below 2·rem run the core and send
    `fold_out_units` back; ranks from 2·rem up only run the core.
    """
    rem = p - largest_power_of_two(p)
    out = []
    for r in range(p):
        if r < 2 * rem:
            out.append(1.0 if r % 2 == 0 else core_units + fold_out_units)
        else:
            out.append(core_units)
    return tuple(out)


@register("allreduce", "ring")
def ring(p: int, **_: object) -> Terms:
    """Reduce-scatter then allgather around a ring (bandwidth-optimal)."""
    f = (p - 1) / p
    return one_phase(
        "reduce-scatter + allgather",
        2 * (p - 1),
        2 * f,
        f,
        uniform(p, 2 * f),
        "2(p−1)·α + 2·(p−1)/p·M·β + (p−1)/p·M·γ",
        "REFERENCE § 2 ring allreduce [PY]",
    )


@register("allreduce", "recursive_doubling")
def recursive_doubling(p: int, **_: object) -> Terms:
    """Butterfly: lg p exchanges of the whole vector."""
    k = floor_log2(p)
    if p == largest_power_of_two(p):
        return one_phase(
            "butterfly", k, k, k, uniform(p, float(k)), "lg p·α + lg p·M·β + lg p·M·γ", TRG
        )
    phases = (
        Phase("fold-in", INTER, 1, 1.0, 1.0),
        Phase("butterfly", INTER, k, k, k),
        Phase("fold-out", INTER, 1, 1.0, 0.0),
    )
    return Terms(
        phases,
        _folded_bytes(p, float(k), 1.0),
        "(lg p′+2)·α + (lg p′+2)·M·β + (lg p′+1)·M·γ, p′ = 2^⌊lg p⌋ (fold-in/out)",
        TRG + ", MPICH allreduce_intra_recursive_doubling.c",
    )


@register("allreduce", "rabenseifner")
def rabenseifner(p: int, **_: object) -> Terms:
    """Recursive-halving reduce-scatter, then recursive-doubling allgather."""
    q = largest_power_of_two(p)
    k, f = floor_log2(q), (q - 1) / q
    core = (
        Phase("reduce-scatter (recursive halving)", INTER, k, f, f),
        Phase("allgather (recursive doubling)", INTER, k, f, 0.0),
    )
    if p == q:
        return Terms(core, uniform(p, 2 * f), "2 lg p·α + 2·(p−1)/p·M·β + (p−1)/p·M·γ", TRG)
    # MPICH's cost comment writes (p−1)/p for the core; the core runs on p′ ranks, so the
    # exact coefficient (which the engine's byte counts follow) is (p′−1)/p′.
    phases = (Phase("fold-in", INTER, 1, 1.0, 1.0), *core, Phase("fold-out", INTER, 1, 1.0, 0.0))
    return Terms(
        phases,
        _folded_bytes(p, 2 * f, 1.0),
        "(2 lg p′+2)·α + (2·(p′−1)/p′+2)·M·β + (1+(p′−1)/p′)·M·γ, p′ = 2^⌊lg p⌋",
        TRG + ", MPICH allreduce_intra_reduce_scatter_allgather.c",
    )


def tree_terms(
    trees: tuple[tuple[int, ...], ...], share: float
) -> tuple[tuple[Phase, ...], tuple[float, ...]]:
    """Return the phases and per-rank bytes of reduce-up then broadcast-down over `trees`.

    Each tree carries `share` of M as one chunk; all trees run concurrently, one step per
    level; a parent takes all its children's messages in one step (all-port at tree parents).
    Reduce step t moves the chunks of every child at depth D - t, broadcast step t those of
    every child at depth t + 1, so each phase has D = max depth steps of `share`·M each.

    In numpy: a Python loop over levels × ranks took seconds at 65,536 ranks. Counts times
    `share` (1 or 1/2) are exact, so the sums are the ones a rank-by-rank loop makes.
    """
    p = len(trees[0])
    parents = [np.asarray(tree, dtype=np.int64) for tree in trees]
    depths = [np.asarray(tree_depths(tree)) for tree in trees]
    deepest = max(int(depth.max()) for depth in depths)
    gamma = 0.0
    for child_depth in range(deepest, 0, -1):
        incoming = np.zeros(p, dtype=np.int64)
        for parent, depth in zip(parents, depths, strict=True):
            incoming += np.bincount(parent[depth == child_depth], minlength=p)
        gamma += float(incoming.max()) * share
    sends = np.zeros(p)
    for parent in parents:
        children = np.bincount(parent[parent >= 0], minlength=p)
        sends += share * (children + (parent >= 0))
    phases = (
        Phase("reduce up the tree", INTER, deepest, deepest * share, gamma),
        Phase("broadcast down the tree", INTER, deepest, deepest * share, 0.0),
    )
    return phases, tuple(sends.tolist())


@register("allreduce", "binary_tree")
def binary_tree(p: int, **_: object) -> Terms:
    """Reduce up a heap-ordered binary tree (root 0), then broadcast down; not pipelined."""
    phases, per_rank = tree_terms((tuple(heap_parents(p)),), 1.0)
    return Terms(
        phases,
        per_rank,
        "2D·(α + M·β) + (Σ over levels of the children per parent)·M·γ, D = ⌊lg p⌋",
        "REFERENCE § 2 (binomial reduce + bcast, per-step α+Mβ), applied to a binary tree",
    )


@register("allreduce", "double_binary_tree")
def double_binary_tree(p: int, **_: object) -> Terms:
    """NCCL's double binary tree: two trees, M/2 each, run concurrently; not pipelined."""
    phases, per_rank = tree_terms(double_binary_tree_parents(p), 0.5)
    return Terms(
        phases,
        per_rank,
        "2D·(α + (M/2)·β) + (Σ over levels of the incoming halves)·M·γ, D = deeper tree's depth",
        "REFERENCE § 2 double binary tree [SST], trees from NCCL ncclGetDtree [TR]",
    )


def grid_terms(
    g: int, n: int, names: tuple[str, str, str], links: tuple[str, str], formula: str, source: str
) -> Terms:
    """Return the terms of ring reduce-scatter in groups of g, n-rank ring allreduces of M/g
    across the groups, ring allgather in groups (hierarchical, 2d_torus)."""
    fg, fn = (g - 1) / g, (n - 1) / n
    inside, across = links
    phases = (
        Phase(names[0], inside, g - 1, fg, fg),
        Phase(names[1], across, 2 * (n - 1), 2 * fn / g, fn / g),
        Phase(names[2], inside, g - 1, fg, 0.0),
    )
    return Terms(phases, uniform(g * n, 2 * fg + 2 * fn / g), formula, source)


@register("allreduce", "hierarchical", needs_ranks_per_node=True)
def hierarchical(p: int, *, ranks_per_node: int, **_: object) -> Terms:
    """Intra-node reduce-scatter, g inter-node ring allreduces on M/g, intra-node allgather."""
    g, n = ranks_per_node, p // ranks_per_node
    names = ("intra-node reduce-scatter", "inter-node allreduce of M/g", "intra-node allgather")
    return grid_terms(
        g,
        n,
        names,
        (INTRA, INTER),
        "2(g−1)·α_l + 2·(g−1)/g·M·β_l + (g−1)/g·M·γ"
        " + 2(N−1)·α_n + 2·(N−1)/N·(M/g)·β_n + (N−1)/N·(M/g)·γ",
        "REFERENCE § 2 hierarchical (b)",
    )


@register("allreduce", "2d_torus")
def torus_2d(p: int, **_: object) -> Terms:
    """Row reduce-scatter, column allreduces of M/C, row allgather on the engine's R x C grid."""
    rows, columns = torus_grid(p)
    names = ("row reduce-scatter", "column allreduce of M/C", "row allgather")
    return grid_terms(
        columns,
        rows,
        names,
        (INTER, INTER),
        "2(C−1)·α + 2·(C−1)/C·M·β + 2(R−1)·α + 2·(R−1)/R·(M/C)·β + ((C−1)/C + (R−1)/(RC))·M·γ"
        " = 2(R+C−2)·α + 2·(p−1)/p·M·β + (p−1)/p·M·γ, R×C the grid (prime p: 1×p, the ring)",
        "Mikami et al. 2018 (arXiv:1811.05233) § 3.2; REFERENCE § 2 ring terms per dimension",
    )


@register("allreduce", "ring_bidirectional", busiest_port=True)
def ring_bidirectional(p: int, **_: object) -> Terms:
    """Two ring allreduces on M/2 each, one per direction, in the same steps, through one port.

    `bandwidth_gbs` is what a rank can send (and receive) per direction in all (REFERENCE § 3:
    an NVLink GPU's rate is its total, shared among its peers), so a step that sends M/2p to
    each neighbour lasts as long as the ring's one M/p: the same time as the ring. It gains
    where each neighbour has a link of its own (a torus, point-to-point NVLink), which the
    physical topology's clock shows and this flat model cannot.
    """
    f = (p - 1) / p
    phases = (
        Phase("reduce-scatter (both directions)", INTER, p - 1, f, f),
        Phase("allgather (both directions)", INTER, p - 1, f, 0.0),
    )
    return Terms(
        phases,
        uniform(p, 2 * f),
        "2(p−1)·α + 2·(p−1)/p·M·β + (p−1)/p·M·γ: one port per rank carries both directions' "
        "M/2p, so the ring's time; with a link to each neighbour the β term would halve",
        "REFERENCE § 2 ring allreduce [PY], each direction carrying M/2; REFERENCE § 3 (a "
        "GPU's link rate is its total)",
    )


@register("allreduce", "reduce_broadcast")
def reduce_broadcast(p: int, **_: object) -> Terms:
    """Every rank sends to root 0 one at a time, which then sends the result to each in turn."""
    per_rank = tuple(float(p - 1) if r == 0 else 1.0 for r in range(p))
    phases = (
        Phase("reduce to the root", INTER, p - 1, p - 1, p - 1),
        Phase("broadcast from the root", INTER, p - 1, p - 1, 0.0),
    )
    return Terms(
        phases,
        per_rank,
        "2(p−1)·(α + M·β) + (p−1)·M·γ",
        "REFERENCE § 1 (single-port root: one message per step)",
    )


@register("allreduce", "direct")
def direct(p: int, **_: object) -> Terms:
    """Every rank sends its whole vector to every other rank at once (all-port)."""
    return all_port_step(
        "all-to-all exchange",
        p,
        p - 1,
        p - 1,
        uniform(p, float(p - 1)),
        "α + (p−1)·M·β + (p−1)·M·γ",
    )
