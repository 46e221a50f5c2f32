"""Cost terms of the in-network algorithms: a switch adds, so the GPUs reduce nothing.

Steps and bytes follow the engine's schedules (app/collectives/innetwork.py) under the usual time
rule: a step lasts α plus its largest message. For NVLS the main link (`bandwidth_gbs`) is one
GPU's NVLink bandwidth per direction into the NVSwitch; for CollNet it is the NIC into the SHARP
switch and `intra_*` describe the NVLink chain inside a node. The switch's own arithmetic is
not charged (γ = 0 on it): NVSwitch and SHARP switches reduce at line rate.

Why busbw can beat the point-to-point bound: nccl-tests reports busbw = algbw·2(p−1)/p for
allreduce, which for point-to-point algorithms is at most the link bandwidth B, because each
rank must send 2(p−1)/p·M (REFERENCE § 3). With the switch adding, a GPU sends M and receives M
once; pipelined, both directions are busy at once, so algbw → B and busbw → 2(p−1)/p·B.

NCCL's own tuning model agrees in shape (src/graph/tuning.cc, NCCL 2.30.7): for NVLS it takes
the NVLS graph's intra bandwidth × nvlsEfficiency (0.85 on Hopper, 0.74 on Blackwell), doubles it
for allreduce ("AllReduce pipelines two operations"), multiplies by (p−1)/p for reduce-scatter and
allgather, and charges one NVLink latency (25 µs for Simple) whatever p is.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from app.collectives.innetwork import NVLS_SEGMENTS, collnet_segments

from .terms import INTER, INTRA, Phase, Terms, register, uniform

NCCL_TUNING = "NCCL src/graph/tuning.cc (NVLS busBw, 2.30.7)"


def _one_rank_sends_nothing(function: Callable[..., Terms]) -> Callable[..., Terms]:
    """One rank already holds the result: no step, no byte, as for every entry of the catalog
    (the engine sends nothing either)."""

    @functools.wraps(function)
    def terms(p: int, **kwargs: object) -> Terms:
        full = function(p, **kwargs)
        if p > 1:
            return full
        return Terms(
            (Phase("nothing to send", INTER, 0, 0.0, 0.0),), (0.0,), full.formula, full.source
        )

    return terms


@register("allreduce", "nvls")
@_one_rank_sends_nothing
def allreduce_nvls(p: int, **_: object) -> Terms:
    """The NVSwitch adds each segment and multicasts the sum, pipelined over k segments."""
    k = NVLS_SEGMENTS
    return Terms(
        (Phase("into the switch while it multicasts", INTER, k + 1, (k + 1) / k, 0.0),),
        uniform(p, 1.0),
        f"(k+1)·α + (k+1)/k·M·β, k = {k} segments; no γ on the GPUs (the NVSwitch adds). "
        "Each GPU sends M into the switch and receives M from it, in the same steps: "
        "algbw → B = 1/β and busbw = algbw·2(p−1)/p → 2(p−1)/p·B, above the point-to-point "
        "bound B, because no GPU forwards anyone's partial sums",
        f"NCCL src/device/all_reduce.h (NVLS: multimem.ld_reduce, multimem.st); {NCCL_TUNING}",
    )


@register("reduce_scatter", "nvls")
@_one_rank_sends_nothing
def reduce_scatter_nvls(p: int, **_: object) -> Terms:
    """Every GPU's whole input into the switch, then block i to rank i."""
    return Terms(
        (
            Phase("into the switch (multimem.ld_reduce)", INTER, 1, 1.0, 0.0),
            Phase("each block to its rank", INTER, 1, 1 / p, 0.0),
        ),
        uniform(p, 1.0),
        "2·α + (1 + 1/p)·M·β; no γ on the GPUs. Each GPU sends M (its own block too: the "
        "switch reads every GPU's copy), so busbw = algbw·(p−1)/p stays below B: NVLS wins "
        "here on latency (2 steps, not p−1), not on bandwidth",
        f"NCCL src/device/reduce_scatter.h (NVLS); {NCCL_TUNING}",
    )


@register("allgather", "nvls")
@_one_rank_sends_nothing
def allgather_nvls(p: int, **_: object) -> Terms:
    """Every GPU's block into the switch, which multicasts all p blocks to every GPU."""
    return Terms(
        (
            Phase("into the switch (multimem.st)", INTER, 1, 1 / p, 0.0),
            Phase("multicast to every GPU", INTER, 1, 1.0, 0.0),
        ),
        uniform(p, 1 / p),
        "2·α + (1/p + 1)·M·β. Each GPU sends M/p and receives M (its own block too: a "
        "multicast store reaches the whole group), so busbw = algbw·(p−1)/p stays below B: "
        "NVLS wins here on latency (2 steps, not p−1), not on bandwidth",
        f"NCCL src/device/all_gather.h (NVLS); {NCCL_TUNING}",
    )


def collnet_schedule(g: int) -> tuple[int, int, int, int]:
    """Return (k, chain steps at each end, switch steps, steps in which a GPU reduces) of the
    CollNet Chain pipeline: segment i makes hop h in step i + h, hops 0..g−2 up the chain,
    g−1 into the switch, g out of it, g+1..2g−1 down the chain."""
    k = collnet_segments(g)
    reducing = k + g - 2 if g > 1 else 0  # steps t in 0..k+g−3 carry an up-chain hop
    return k, g - 1, k + 1, reducing


@register("allreduce", "collnet", needs_ranks_per_node=True)
@_one_rank_sends_nothing
def allreduce_collnet(p: int, *, ranks_per_node: int, **_: object) -> Terms:
    """CollNet Chain: chain up to each node's head, SHARP switch across nodes, chain down."""
    g = ranks_per_node
    k, end, middle, reducing = collnet_schedule(g)
    # The fill's every step reduces on the chain; the switch steps reduce on it until the
    # last segment has left the chain.
    fill_reduce = end
    middle_reduce = reducing - fill_reduce
    phases = (
        Phase("chain reduce, filling", INTRA, end, end / k, fill_reduce / k),
        Phase("through the SHARP switch", INTER, middle, middle / k, middle_reduce / k),
        Phase("chain broadcast, draining", INTRA, end, end / k, 0.0),
    )
    per_rank = []
    for r in range(p):
        local = r % g
        up = 1.0  # every rank sends its partial sum on: up the chain, or the head into the switch
        down = 1.0 if local < g - 1 else 0.0  # all but the chain's tail pass the result down
        per_rank.append(up + down)
    return Terms(
        tuple(phases),
        tuple(per_rank),
        "2(g−1)·(α_l + (M/k)·β_l) + (k+1)·(α_n + (M/k)·β_n) + (k+g−2)/k·M·γ, k = 4g segments "
        "(a step with a network hop is charged β_n, the slower link). The SHARP switch adds "
        "the N nodes' sums: each NIC sends M and receives M, so the network part tends to "
        "M·β_n whatever N is, where a ring across nodes needs 2(N−1)/N·M·β_n; "
        "its latency has no term in N",
        "NCCL src/device/all_reduce.h (CollNet Chain); src/graph/tuning.cc (CollNet latency "
        "2(g−1)·intraLat + interLat)",
    )
