"""A ring across 2 nodes × 8 GPUs on a rail-optimized fat-tree, timed by hand.

DGX H100 preset: NVSwitch 450 GB/s and α 0.6 µs inside a node; one NDR NIC per GPU, 50 GB/s
and α_net 2.7 µs; GPU↔NIC PCIe 5, 63 GB/s. Two nodes, 4 spines. M = 16 MB, so every ring
message is M/16 = 1 MB. With fill mapping the ring 0 → 1 → … → 15 → 0 leaves node 0 at GPU7
(rank 7 → 8) and node 1 at GPU7 (rank 15 → 0): both messages go from rail 7 to rail 0, so
both climb from leaf 7 to the spines and come down to leaf 0, each spread over the 4 spines
by ECMP: 2 × 1 MB / 4 = 0.5 MB on each leaf 7 → spine link. Every one of the 2(p−1) = 30
steps has these two crossings, so each step's α is α_net = 2.7 µs (an NVSwitch path: 0.6).

- 1:1: a leaf's uplinks carry what its downlinks do, N·B = 2 × 50 = 100 GB/s, 25 GB/s per
  spine link: 0.5 MB / 25 GB/s = 20 µs, the same as a NIC's 1 MB / 50 GB/s = 20 µs.
  Step 2.7 + 20 = 22.7 µs; run 30 × 22.7 = 681 µs: the α-β model's
  2(p−1)·α + 2(p−1)/p·M/B = 81 µs + 600 µs exactly.
- 2:1: 12.5 GB/s per spine link: 0.5 MB / 12.5 GB/s = 40 µs, now the bottleneck.
  Step 2.7 + 40 = 42.7 µs; run 30 × 42.7 = 1281 µs, 1.88× slower than 1:1.
- 2:1 with round-robin mapping (rank r on node r mod 2, GPU r div 2): every ring hop crosses
  the nodes, but rank 2k → 2k+1 stays on rail k (leaf only) and rank 2k+1 → 2k+2 goes from
  rail k to rail k+1: each leaf sends one message up, 0.25 MB per spine link = 20 µs, no
  worse than a NIC. Run 30 × 22.7 = 681 µs: the mapping that looks bad is faster here.
"""

from __future__ import annotations

import pytest

from app.collectives.names import algorithm_name
from app.fabric import race

M = 16e6
US = 1e-6


def ring(oversubscription: float, mapping: str = "fill"):
    return race(
        "allreduce",
        ["ring"],
        ranks=16,
        message_bytes=M,
        topology="fat_tree",
        preset="dgx_h100",
        mapping=mapping,
        nodes=2,
        gpus_per_node=8,
        spines=4,
        oversubscription=oversubscription,
    ).runs[0]


def test_one_to_one_equals_the_model_and_two_to_one_doubles_the_bandwidth_term():
    full, half = ring(1), ring(2)
    assert len(full.steps) == len(half.steps) == 30
    assert full.time_s == pytest.approx(681 * US, rel=1e-12)
    assert full.model_time_s == pytest.approx(681 * US, rel=1e-12)
    assert half.time_s == pytest.approx(1281 * US, rel=1e-12)
    for step in half.steps:
        assert step["latency_s"] == pytest.approx(2.7 * US, rel=1e-12)
        assert step["bandwidth_s"] == pytest.approx(40 * US, rel=1e-12)
        assert step["bottleneck"]["spine"]
        assert step["bottleneck"]["bytes"] == pytest.approx(0.5e6, rel=1e-12)
        assert step["bottleneck"]["bandwidth_gbs"] == pytest.approx(12.5, rel=1e-12)
    assert half.contention and not full.contention


def test_the_verdict_names_the_oversubscription():
    result = race(
        "allreduce",
        ["ring", "rabenseifner"],
        ranks=16,
        message_bytes=M,
        topology="fat_tree",
        oversubscription=2,
        nodes=2,
    )
    assert "2:1 oversubscribed" in result.verdict
    assert algorithm_name(result.order[0]) in result.verdict.split(" wins")[0]


def test_round_robin_spreads_the_crossings_over_the_leaves():
    spread = ring(2, "round_robin")
    assert spread.time_s == pytest.approx(681 * US, rel=1e-12)
    assert not spread.contention


def test_round_robin_breaks_the_hierarchical_allreduce():
    """Hierarchical allreduce, 2 × 8 H100 at 1:1, M = 64 MB; its "nodes" are ranks 0-7, 8-15.

    fill (the nodes it assumes): intra-node ring reduce-scatter, 7 steps of M/8 = 8 MB over
    NVSwitch: 7 × (0.6 + 8e6/450e9 s) = 7 × 18.378 µs; then 8 two-node allreduces of M/8, 2
    steps of 4 MB on each GPU's own rail: 2 × (2.7 + 80) µs; then the allgather, as the first
    phase: 128.64 + 165.4 + 128.64 = 422.7 µs.
    round_robin (rank r on node r mod 2): every "intra-node" hop crosses the network, 8 MB
    over a 50 GB/s NIC: 14 × (2.7 + 160) µs; the "inter-node" pairs r, r + 8 now share a node:
    2 × (0.6 + 4e6/450e9 s). 2277.8 + 18.98 = 2296.8 µs, 5.4× slower.
    """
    kw = {"ranks": 16, "message_bytes": 64e6, "topology": "fat_tree", "nodes": 2}
    nvlink_step = 0.6e-6 + 8e6 / 450e9
    fill = race("allreduce", ["hierarchical"], **kw).runs[0]
    assert fill.time_s == pytest.approx(14 * nvlink_step + 2 * (2.7e-6 + 4e6 / 50e9))
    dealt = race("allreduce", ["hierarchical"], mapping="round_robin", **kw).runs[0]
    assert dealt.time_s == pytest.approx(14 * (2.7e-6 + 8e6 / 50e9) + 2 * (0.6e-6 + 4e6 / 450e9))
