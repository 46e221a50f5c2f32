"""Cost terms of allgather, reduce_scatter and all_to_all: the collectives of p blocks.

M is the total output of allgather, the total input of reduce_scatter, and what each rank
sends in all_to_all (REFERENCE § 1); a block is M/p. Non-powers of two in recursive
doubling/halving use MPICH's fold-in/fold-out (`app.collectives.hypercube.Fold`).
"""

from __future__ import annotations

from app.collectives.hypercube import floor_log2, largest_power_of_two
from app.collectives.pat_schedule import step_count as pat_step_count
from app.collectives.trees import ceil_log2

from .terms import INTER, Phase, Terms, all_port_step, one_phase, register, uniform

TRG = "REFERENCE § 2 [TRG]"


def _fold_pattern(p: int, core_blocks: list[float], fold_in: float, fold_out: float):
    """Return per-rank bytes (per byte of M) when core rank v sends `core_blocks[v]` blocks.

    Even ranks below 2·rem send `fold_in` (per byte of M) and sit out; the odd rank above
    each runs the core and sends `fold_out` back; the rest only run the core.
    """
    rem = p - largest_power_of_two(p)
    out = []
    for r in range(p):
        if r < 2 * rem and r % 2 == 0:
            out.append(fold_in)
        elif r < 2 * rem:
            out.append(core_blocks[r // 2] / p + fold_out)
        else:
            out.append(core_blocks[r - rem] / p)
    return tuple(out)


def _carried(p: int, first: int, size: int) -> int:
    """Return the blocks core ranks first..first+size−1 carry after the fold-in.

    Core rank v < rem carries two ranks' blocks, the rest one (`Fold.stands_for`).
    """
    rem = p - largest_power_of_two(p)
    return size + max(0, min(first + size, rem) - first)


@register("allgather", "ring")
def allgather_ring(p: int, **_: object) -> Terms:
    """Pass blocks around a ring."""
    f = (p - 1) / p
    return one_phase("ring", p - 1, f, 0.0, uniform(p, f), "(p−1)·α + (p−1)/p·M·β", TRG)


@register("allgather", "recursive_doubling")
def allgather_recursive_doubling(p: int, **_: object) -> Terms:
    """Exchange everything held with a partner 1, 2, 4, … away (fold-in/out if p is not pof2)."""
    q, f = largest_power_of_two(p), (p - 1) / p
    if p == q:
        return one_phase(
            "recursive doubling", floor_log2(p), f, 0.0, uniform(p, f), "lg p·α + (p−1)/p·M·β", TRG
        )
    sent = [0.0] * q
    beta = 0.0
    for j in range(floor_log2(q)):
        held = [_carried(p, (v >> j) << j, 1 << j) for v in range(q)]
        sent = [s + h for s, h in zip(sent, held, strict=True)]
        beta += max(held) / p
    phases = (
        Phase("fold-in", INTER, 1, 1 / p, 0.0),
        Phase("recursive doubling", INTER, floor_log2(q), beta, 0.0),
        Phase("fold-out", INTER, 1, f, 0.0),
    )
    return Terms(
        phases,
        _fold_pattern(p, sent, 1 / p, f),
        "(lg p′+2)·α + (1/p + (core blocks) + (p−1)/p)·M·β, p′ = 2^⌊lg p⌋",
        TRG + ", fold-in/out as MPICH allreduce",
    )


@register("allgather", "bruck")
def allgather_bruck(p: int, **_: object) -> Terms:
    """Bruck: in round k send 2^k blocks (the last round the rest) to rank r − 2^k."""
    f = (p - 1) / p
    return one_phase("Bruck", ceil_log2(p), f, 0.0, uniform(p, f), "⌈lg p⌉·α + (p−1)/p·M·β", TRG)


PAT = "NCCL 2.30.7 src/include/collectives.h (PatAGAlgorithm, PatRSAlgorithm), small messages"
PAT_STEPS = "s = ⌈lg p⌉, + 1 when p = 2^k + 1 (k ≥ 2)"


def _pat(p: int, gamma: float, formula: str) -> Terms:
    """One aggregated message a step on p shifted trees: (p−1)/p·M per rank in all."""
    f = (p - 1) / p
    return one_phase(
        "aggregated trees", pat_step_count(p), f, gamma * f, uniform(p, f), formula, PAT
    )


@register("allgather", "pat")
def allgather_pat(p: int, **_: object) -> Terms:
    """NCCL's PAT: p shifted binomial trees, longest hop first."""
    return _pat(p, 0.0, f"s·α + (p−1)/p·M·β, {PAT_STEPS}")


@register("allgather", "direct")
def direct_exchange(p: int, **_: object) -> Terms:
    """Every rank sends each of its p−1 outgoing blocks at once (allgather, all-to-all)."""
    f = (p - 1) / p
    return all_port_step("all-to-all exchange", p, f, 0.0, uniform(p, f), "α + (p−1)/p·M·β")


@register("reduce_scatter", "ring")
def reduce_scatter_ring(p: int, **_: object) -> Terms:
    """Reduce blocks around a ring; rank i ends with block i."""
    f = (p - 1) / p
    return one_phase("ring", p - 1, f, f, uniform(p, f), "(p−1)·α + (p−1)/p·M·(β+γ)", TRG)


@register("reduce_scatter", "recursive_halving")
def reduce_scatter_recursive_halving(p: int, **_: object) -> Terms:
    """Send the partner's half of the blocks, halving the distance (fold-in/out if not pof2)."""
    q, f = largest_power_of_two(p), (p - 1) / p
    if p == q:
        return one_phase(
            "recursive halving", floor_log2(p), f, f, uniform(p, f), "lg p·α + (p−1)/p·M·(β+γ)", TRG
        )
    sent = [0.0] * q
    beta = 0.0
    mask = q >> 1
    while mask:
        # Core rank v sends the blocks of the half-group its partner v ^ mask belongs to.
        half = [_carried(p, ((v ^ mask) // mask) * mask, mask) for v in range(q)]
        sent = [s + h for s, h in zip(sent, half, strict=True)]
        beta += max(half) / p
        mask >>= 1
    phases = (
        Phase("fold-in", INTER, 1, 1.0, 1.0),
        Phase("recursive halving", INTER, floor_log2(q), beta, beta),
        Phase("fold-out", INTER, 1, 1 / p, 0.0),
    )
    return Terms(
        phases,
        _fold_pattern(p, sent, 1.0, 1 / p),
        "(lg p′+2)·α + (1 + (core blocks) + 1/p)·M·β + (1 + core blocks)·M·γ, p′ = 2^⌊lg p⌋",
        TRG + ", fold-in/out as MPICH reduce_scatter_intra_recursive_halving.c",
    )


@register("reduce_scatter", "pat")
def reduce_scatter_pat(p: int, **_: object) -> Terms:
    """NCCL's PAT: partial sums flow down the mirrored trees, shortest hop first."""
    return _pat(p, 1.0, f"s·α + (p−1)/p·M·(β+γ), {PAT_STEPS}")


@register("reduce_scatter", "direct")
def reduce_scatter_direct(p: int, **_: object) -> Terms:
    """Every rank sends block j to rank j at once; each reduces p−1 incoming blocks."""
    f = (p - 1) / p
    return all_port_step("all-to-all exchange", p, f, f, uniform(p, f), "α + (p−1)/p·M·(β+γ)")


@register("all_to_all", "pairwise")
def all_to_all_pairwise(p: int, **_: object) -> Terms:
    """In step s, rank r sends its block for rank r + s (or its XOR partner)."""
    f = (p - 1) / p
    return one_phase(
        "pairwise exchange",
        p - 1,
        f,
        0.0,
        uniform(p, f),
        "(p−1)·α + (p−1)/p·M·β",
        "REFERENCE § 2 pairwise all-to-all",
    )


def bruck_blocks(p: int) -> int:
    """Return the blocks Bruck's all-to-all sends per rank: Σ_k #{j in 1..p−1 with bit k set}."""
    return sum(bin(j).count("1") for j in range(1, p))


@register("all_to_all", "bruck")
def all_to_all_bruck(p: int, **_: object) -> Terms:
    """Bruck: in round k forward every block whose destination offset has bit k set."""
    units = bruck_blocks(p) / p
    return one_phase(
        "Bruck",
        ceil_log2(p),
        units,
        0.0,
        uniform(p, units),
        "⌈lg p⌉·α + (M/p)·Σ_k #{j<p: bit k of j}·β ≈ ⌈lg p⌉·α + (M/2)·⌈lg p⌉·β",
        "REFERENCE § 2 Bruck all-to-all (MPICH alltoall_intra_brucks.c)",
    )


register("all_to_all", "direct")(direct_exchange)  # the same one-step exchange
