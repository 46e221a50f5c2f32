"""Cost terms of the rooted collectives (reduce, broadcast, gather, scatter) and sendrecv.

Root is rank 0. Binomial trees are MPICH's (rank r is the parent of r + m for each power of
two m below r's lowest set bit) and pay alpha + (message)·beta per step (REFERENCE § 2).
Pipelined chains cut M into k segments: (p−1)+(k−1) steps of M/k (REFERENCE § 1).
M is the full vector for reduce, broadcast and sendrecv, the total output for gather and
the total input for scatter (REFERENCE § 1).
"""

from __future__ import annotations

from app.collectives.trees import binomial_children, binomial_subtree_size, ceil_log2

from .terms import INTER, Phase, Terms, all_port_step, one_phase, register

TRG = "REFERENCE § 2 [TRG]"
SEGMENTS = "segments the message is cut into (default p)"


def _non_root(p: int, units: float) -> tuple[float, ...]:
    """Return `units` for every rank but root 0."""
    return tuple(0.0 if r == 0 else units for r in range(p))


def _all_but_last(p: int) -> tuple[float, ...]:
    """Return M for every rank of a chain 0 → 1 → … → p−1 except the last."""
    return tuple(1.0 if r < p - 1 else 0.0 for r in range(p))


def _chain_steps(p: int, segments: int | None) -> tuple[int, int]:
    """Return (k, steps) of a k-segment pipeline along p ranks; k defaults to p."""
    k = segments or p
    return k, (p - 1) + (k - 1) if p > 1 else 0


@register("reduce", "binomial_tree")
def reduce_binomial(p: int, **_: object) -> Terms:
    """Reduce up a binomial tree to root 0: each non-root sends M once."""
    k = ceil_log2(p)
    return one_phase(
        "reduce up the tree", k, k, k, _non_root(p, 1.0), "⌈lg p⌉·(α + M·β + M·γ)", TRG
    )


@register("reduce", "ring", segments=SEGMENTS)
def reduce_ring(p: int, *, segments: int | None = None, **_: object) -> Terms:
    """Pipeline k segments along a chain that ends at root 0."""
    k, steps = _chain_steps(p, segments)
    units = steps / k
    return one_phase(
        "pipelined chain",
        steps,
        units,
        units,
        _non_root(p, 1.0),
        "((p−1)+(k−1))·(α + (M/k)·β + (M/k)·γ)",
        "REFERENCE § 1 (pipelined chain, k segments)",
    )


@register("reduce", "direct")
def reduce_direct(p: int, **_: object) -> Terms:
    """Every non-root sends M to root 0 at once; the root's port receives (p−1)·M."""
    return all_port_step(
        "everyone to the root", p, p - 1, p - 1, _non_root(p, 1.0), "α + (p−1)·M·β + (p−1)·M·γ"
    )


@register("broadcast", "binomial_tree")
def broadcast_binomial(p: int, **_: object) -> Terms:
    """Broadcast down a binomial tree from root 0: the root sends ⌈lg p⌉ times."""
    k = ceil_log2(p)
    per_rank = tuple(float(len(binomial_children(r, 0, p))) for r in range(p))
    return one_phase("broadcast down the tree", k, k, 0.0, per_rank, "⌈lg p⌉·(α + M·β)", TRG)


@register("broadcast", "pipelined_ring", segments=SEGMENTS)
def broadcast_pipelined_ring(p: int, *, segments: int | None = None, **_: object) -> Terms:
    """Pipeline k segments along the chain 0 → 1 → … → p−1."""
    k, steps = _chain_steps(p, segments)
    return one_phase(
        "pipelined chain",
        steps,
        steps / k,
        0.0,
        _all_but_last(p),
        "((p−1)+(k−1))·(α + (M/k)·β)",
        "REFERENCE § 1 and § 2 (pipelined, k segments)",
    )


@register("broadcast", "scatter_allgather")
def broadcast_scatter_allgather(p: int, **_: object) -> Terms:
    """Van de Geijn: binomial scatter of p blocks of M/p, then a ring allgather."""
    f = (p - 1) / p
    per_rank = tuple((binomial_subtree_size(r, 0, p) - 1) / p + f for r in range(p))
    phases = (
        Phase("binomial scatter", INTER, ceil_log2(p), f, 0.0),
        Phase("ring allgather", INTER, p - 1, f, 0.0),
    )
    return Terms(
        phases,
        per_rank,
        "(⌈lg p⌉ + p−1)·α + 2·(p−1)/p·M·β",
        "REFERENCE § 2 scatter + allgather broadcast (MPICH bcast_intra_scatter_ring_allgather)",
    )


@register("broadcast", "direct")
def broadcast_direct(p: int, **_: object) -> Terms:
    """Root 0 sends M to every rank at once; its port carries (p−1)·M."""
    per_rank = tuple(float(p - 1) if r == 0 else 0.0 for r in range(p))
    return all_port_step("root to everyone", p, p - 1, 0.0, per_rank, "α + (p−1)·M·β")


@register("gather", "binomial_tree")
def gather_binomial(p: int, **_: object) -> Terms:
    """Gather up a binomial tree: each rank forwards its subtree's blocks of M/p."""
    per_rank = tuple(0.0 if r == 0 else binomial_subtree_size(r, 0, p) / p for r in range(p))
    return one_phase(
        "gather up the tree",
        ceil_log2(p),
        (p - 1) / p,
        0.0,
        per_rank,
        "⌈lg p⌉·α + (p−1)/p·M·β",
        "REFERENCE § 1 (root receives (p−1)/p·M) [TRG]",
    )


@register("gather", "direct")
def gather_direct(p: int, **_: object) -> Terms:
    """Every rank sends its block of M/p to root 0 at once."""
    return all_port_step(
        "everyone to the root", p, (p - 1) / p, 0.0, _non_root(p, 1 / p), "α + (p−1)/p·M·β"
    )


@register("scatter", "binomial_tree")
def scatter_binomial(p: int, **_: object) -> Terms:
    """Scatter down a binomial tree: each rank passes on its subtree's blocks but its own."""
    per_rank = tuple((binomial_subtree_size(r, 0, p) - 1) / p for r in range(p))
    return one_phase(
        "scatter down the tree",
        ceil_log2(p),
        (p - 1) / p,
        0.0,
        per_rank,
        "⌈lg p⌉·α + (p−1)/p·M·β",
        "REFERENCE § 1 (root sends (p−1)/p·M) [TRG]",
    )


@register("scatter", "direct")
def scatter_direct(p: int, **_: object) -> Terms:
    """Root 0 sends each rank its block at once; its port carries (p−1)/p·M."""
    per_rank = tuple((p - 1) / p if r == 0 else 0.0 for r in range(p))
    return all_port_step("root to everyone", p, (p - 1) / p, 0.0, per_rank, "α + (p−1)/p·M·β")


@register("sendrecv", "pipeline", segments="micro-batches (default p)")
def sendrecv_pipeline(p: int, *, segments: int | None = None, **_: object) -> Terms:
    """Pipeline parallelism: m micro-batches flow stage 0 → 1 → … → p−1."""
    m, steps = _chain_steps(p, segments)
    return one_phase(
        "pipeline",
        steps,
        steps / m,
        0.0,
        _all_but_last(p),
        "((p−1)+(m−1))·(α + (M/m)·β)",
        "REFERENCE § 1 (pipelined chain, m micro-batches)",
    )
