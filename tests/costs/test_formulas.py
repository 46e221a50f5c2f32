"""Every algorithm's time against values worked out by hand from REFERENCE.md § 2.

Common case: p = 8, M = 1e9 B, α = 5 µs, 25 GB/s, so M·β = 1e9 / 25e9 s = 0.04 s.
"""

from __future__ import annotations

import pytest

from app.costs import ALGORITHMS, cost

A = 5e-6  # α in seconds
MB = 0.04  # M·β in seconds for M = 1e9 B at 25 GB/s
LINK = dict(message_bytes=1e9, latency_us=5, bandwidth_gbs=25)

# (collective, algorithm, steps, latency_s, bandwidth_s) at p = 8.
POWER_OF_TWO = [
    ("allreduce", "ring", 14, 14 * A, 2 * 7 / 8 * MB),
    ("allreduce", "recursive_doubling", 3, 3 * A, 3 * MB),
    ("allreduce", "rabenseifner", 6, 6 * A, 2 * 7 / 8 * MB),
    ("allreduce", "binary_tree", 6, 6 * A, 6 * MB),  # depth 3, α + Mβ per step
    ("allreduce", "double_binary_tree", 6, 6 * A, 6 * MB / 2),  # depth 3, M/2 per step
    ("allreduce", "reduce_broadcast", 14, 14 * A, 14 * MB),
    ("allreduce", "direct", 1, A, 7 * MB),
    # Both directions at once, M/16 to each neighbour through the rank's one port: the ring's
    # time (bandwidth_gbs is what a rank sends in all, REFERENCE § 3).
    ("allreduce", "ring_bidirectional", 14, 14 * A, 2 * 7 / 8 * MB),
    # 8 = 2 x 4: rows of 4 (3 + 3 steps of M/4), columns of 2 (2 steps of M/8).
    ("allreduce", "2d_torus", 8, 8 * A, (6 / 4 + 2 / 8) * MB),
    # ncclGetDtree on 8: tree 0 is 0←4, 4←2,6, 2←1,3, 6←5,7 (depth 3), tree 1 its mirror;
    # 2·3 + 8 − 1 = 13 steps. The busiest port, in chunks of M/16, step by step: rank 2 (interior
    # at depth 2 in tree 0, a leaf in tree 1) and rank 4 (depth 1) send or hear 2, 2, 2, 3, 4,
    # 4, 4, 4, 4, 3, 2, 2, 2: 38 chunks.
    ("allreduce", "tree_pipelined", 13, 13 * A, 38 / 16 * MB),
    ("reduce", "binomial_tree", 3, 3 * A, 3 * MB),
    ("reduce", "ring", 14, 14 * A, 14 * MB / 8),  # k = 8 segments
    ("reduce", "direct", 1, A, 7 * MB),
    ("broadcast", "binomial_tree", 3, 3 * A, 3 * MB),
    ("broadcast", "pipelined_ring", 14, 14 * A, 14 * MB / 8),
    ("broadcast", "scatter_allgather", 10, (3 + 7) * A, 2 * 7 / 8 * MB),
    ("broadcast", "direct", 1, A, 7 * MB),
    ("allgather", "ring", 7, 7 * A, 7 / 8 * MB),
    ("allgather", "recursive_doubling", 3, 3 * A, 7 / 8 * MB),
    ("allgather", "bruck", 3, 3 * A, 7 / 8 * MB),
    ("allgather", "direct", 1, A, 7 / 8 * MB),
    ("allgather", "pat", 3, 3 * A, (1 + 2 + 4) / 8 * MB),  # 1, 2, 4 blocks over 4, 2, 1
    ("reduce_scatter", "ring", 7, 7 * A, 7 / 8 * MB),
    ("reduce_scatter", "recursive_halving", 3, 3 * A, 7 / 8 * MB),
    ("reduce_scatter", "direct", 1, A, 7 / 8 * MB),
    ("reduce_scatter", "pat", 3, 3 * A, (4 + 2 + 1) / 8 * MB),
    ("all_to_all", "pairwise", 7, 7 * A, 7 / 8 * MB),
    # Bruck: popcounts of 1..7 are 1+1+2+1+2+2+3 = 12 blocks of M/8 = (M/2)·lg 8.
    ("all_to_all", "bruck", 3, 3 * A, 12 / 8 * MB),
    ("all_to_all", "direct", 1, A, 7 / 8 * MB),
    ("gather", "binomial_tree", 3, 3 * A, 7 / 8 * MB),
    ("gather", "direct", 1, A, 7 / 8 * MB),
    ("scatter", "binomial_tree", 3, 3 * A, 7 / 8 * MB),
    ("scatter", "direct", 1, A, 7 / 8 * MB),
    ("sendrecv", "pipeline", 14, 14 * A, 14 * MB / 8),  # m = 8 micro-batches
    # In-network: k = 4 segments in, the sum out while the next goes in: 5 steps of M/4.
    ("allreduce", "nvls", 5, 5 * A, 5 / 4 * MB),
    ("reduce_scatter", "nvls", 2, 2 * A, (1 + 1 / 8) * MB),  # M in, block M/8 out
    ("allgather", "nvls", 2, 2 * A, (1 / 8 + 1) * MB),  # block M/8 in, all M out
    # CollNet at g = 1 (8 nodes of one GPU): k = 4, the k + 1 = 5 steps all cross the NIC.
    ("allreduce", "collnet", 5, 5 * A, 5 / 4 * MB),
]


def test_the_issue_example_ring_allreduce():
    c = cost("allreduce", "ring", ranks=8, **LINK)
    assert c.time_s == pytest.approx(2 * 7 * 5e-6 + 2 * (7 / 8) * 0.04)
    assert c.formula == "2(p−1)·α + 2·(p−1)/p·M·β + (p−1)/p·M·γ"
    assert "14·5 µs" in c.formula_substituted and "70.07 ms" in c.formula_substituted


@pytest.mark.parametrize(
    ("collective", "algorithm", "steps", "latency_s", "bandwidth_s"), POWER_OF_TWO
)
def test_power_of_two_times(collective, algorithm, steps, latency_s, bandwidth_s):
    extra = {"ranks_per_node": 1} if algorithm == "collnet" else {}
    c = cost(collective, algorithm, ranks=8, **LINK, **extra)
    assert c.steps == steps
    assert c.latency_s == pytest.approx(latency_s)
    assert c.bandwidth_s == pytest.approx(bandwidth_s)
    assert c.time_s == pytest.approx(latency_s + bandwidth_s)
    assert c.compute_s == 0


def test_every_algorithm_but_hierarchical_has_a_hand_computed_case():
    covered = {(c, a) for c, a, *_ in POWER_OF_TWO} | {("allreduce", "hierarchical")}
    assert covered == set(ALGORITHMS)


def test_hierarchical_uses_both_links():
    # g = 4 per node, N = 2 nodes; intra 1 µs and 200 GB/s (M·β_l = 0.005 s).
    c = cost(
        "allreduce",
        "hierarchical",
        ranks=8,
        ranks_per_node=4,
        intra_latency_us=1,
        intra_bandwidth_gbs=200,
        **LINK,
    )
    assert c.steps == 2 * 3 + 2 * 1
    assert c.latency_s == pytest.approx(2 * 3 * 1e-6 + 2 * 1 * 5e-6)
    assert c.bandwidth_s == pytest.approx(2 * 3 / 4 * 0.005 + 2 * (1 / 2) * (1 / 4) * MB)
    assert c.bytes_per_rank == pytest.approx([(2 * 3 / 4 + 2 * (1 / 2) / 4) * 1e9] * 8)
    assert "(intra-node)" in c.formula_substituted


@pytest.mark.parametrize(
    ("collective", "algorithm", "gamma_units"),
    [
        ("allreduce", "ring", 7 / 8),
        ("allreduce", "recursive_doubling", 3),
        ("allreduce", "rabenseifner", 7 / 8),
        ("allreduce", "reduce_broadcast", 7),
        ("allreduce", "direct", 7),
        # Heap tree of 8: rank 3 takes one child (7); ranks 1, 2 two each; the root two: 1+2+2.
        ("allreduce", "binary_tree", 5),
        ("allreduce", "ring_bidirectional", 7 / 8),  # two chunks of M/16 in, 7 steps
        ("allreduce", "2d_torus", 3 / 4 + 1 / 8),
        ("reduce_scatter", "pat", 7 / 8),
        ("reduce", "binomial_tree", 3),
        ("reduce_scatter", "ring", 7 / 8),
        ("reduce_scatter", "recursive_halving", 7 / 8),
        ("allgather", "ring", 0),
    ],
)
def test_reduction_term(collective, algorithm, gamma_units):
    c = cost(collective, algorithm, ranks=8, gamma_s_per_byte=1e-10, **LINK)
    assert c.compute_s == pytest.approx(gamma_units * 1e9 * 1e-10)


# Non-powers of two, p = 6: pof2 = 4, rem = 2; ranks 0 and 2 fold into 1 and 3.
def test_recursive_doubling_allreduce_six_ranks():
    c = cost("allreduce", "recursive_doubling", ranks=6, gamma_s_per_byte=1e-10, **LINK)
    assert c.steps == 2 + 2
    assert c.bandwidth_s == pytest.approx(4 * MB)  # fold-in, 2 rounds, fold-out
    assert c.compute_s == pytest.approx(3 * 1e9 * 1e-10)
    assert c.bytes_per_rank == pytest.approx([1e9, 3e9, 1e9, 3e9, 2e9, 2e9])


def test_rabenseifner_six_ranks():
    c = cost("allreduce", "rabenseifner", ranks=6, **LINK)
    assert c.steps == 2 * 2 + 2
    assert c.bandwidth_s == pytest.approx((2 + 2 * 3 / 4) * MB)
    assert c.bytes_per_rank == pytest.approx([1e9, 2.5e9, 1e9, 2.5e9, 1.5e9, 1.5e9])


def test_binary_tree_six_ranks():
    c = cost("allreduce", "binary_tree", ranks=6, **LINK)
    assert c.steps == 4
    assert c.bytes_per_rank == pytest.approx([2e9, 3e9, 2e9, 1e9, 1e9, 1e9])


def test_double_binary_tree_eight_ranks_follows_ncclGetDtree():
    # Tree 0: 0→4, 4→{2,6}, 2→{1,3}, 6→{5,7}. Tree 1 mirrors it: 7→3, 3→{5,1}, 5→{6,4}, 1→{2,0}.
    c = cost("allreduce", "double_binary_tree", ranks=8, **LINK)
    assert c.bytes_per_rank == pytest.approx([1e9, 2e9, 2e9, 2e9, 2e9, 2e9, 2e9, 1e9])


def test_recursive_doubling_allgather_six_ranks():
    # Core ranks carry 2, 2, 1, 1 blocks: they send [2,2,1,1] then [4,4,2,2] blocks of M/6.
    c = cost("allgather", "recursive_doubling", ranks=6, **LINK)
    assert c.steps == 4
    assert c.bandwidth_s == pytest.approx((1 / 6 + 6 / 6 + 5 / 6) * MB)
    sixth = 1e9 / 6
    assert c.bytes_per_rank == pytest.approx(
        [sixth, 11 * sixth, sixth, 11 * sixth, 3 * sixth, 3 * sixth]
    )


def test_recursive_halving_reduce_scatter_six_ranks():
    # Core ranks send the partner half's blocks: v0, v1 send 2 then 2; v2, v3 send 4 then 1.
    c = cost("reduce_scatter", "recursive_halving", ranks=6, **LINK)
    assert c.steps == 4
    assert c.bandwidth_s == pytest.approx((1 + 6 / 6 + 1 / 6) * MB)
    sixth = 1e9 / 6
    assert c.bytes_per_rank == pytest.approx([1e9, 5 * sixth, 1e9, 5 * sixth, 5 * sixth, 5 * sixth])


def test_binomial_trees_six_ranks():
    # MPICH's tree: 0 → 4, 2, 1; 4 → 5; 2 → 3.
    assert cost("broadcast", "binomial_tree", ranks=6, **LINK).bytes_per_rank == pytest.approx(
        [3e9, 0, 1e9, 0, 1e9, 0]
    )
    sixth = 1e9 / 6
    assert cost("scatter", "binomial_tree", ranks=6, **LINK).bytes_per_rank == pytest.approx(
        [5 * sixth, 0, sixth, 0, sixth, 0]
    )
    assert cost("gather", "binomial_tree", ranks=6, **LINK).bytes_per_rank == pytest.approx(
        [0, sixth, 2 * sixth, sixth, 2 * sixth, sixth]
    )


def test_segments_change_the_pipeline():
    c = cost("broadcast", "pipelined_ring", ranks=8, segments=2, **LINK)
    assert c.steps == 7 + 1
    assert c.bandwidth_s == pytest.approx(8 * MB / 2)


def test_pipelined_tree_takes_its_chunk_count_as_segments():
    c = cost("allreduce", "tree_pipelined", ranks=8, **LINK)
    assert c.inputs["segments"] == 16  # the engine's 8 per tree, echoed
    two = cost("allreduce", "tree_pipelined", ranks=8, segments=2, **LINK)
    assert two.steps == 2 * 3  # one chunk per tree: the unpipelined double binary tree's steps
    three = cost("allreduce", "tree_pipelined", ranks=8, segments=3, **LINK)
    assert three.steps == 2 * 3 + 1  # tree 0 takes two chunks, tree 1 one
    assert sum(three.bytes_per_rank) == pytest.approx(sum(two.bytes_per_rank))


def test_pipelined_tree_never_beats_the_point_to_point_bound():
    # Many chunks: the busiest port carries about 2M, as REFERENCE § 2 says, and never less
    # than the 2(p−1)/p·M every allreduce over point-to-point links must send (REFERENCE § 3).
    for p in (2, 3, 8, 64):
        c = cost("allreduce", "tree_pipelined", ranks=p, segments=8192, **LINK)
        assert 2 * (p - 1) / p * MB <= c.bandwidth_s <= 2.1 * MB


@pytest.mark.parametrize(("p", "steps"), [(4096, 12), (4097, 14), (5000, 13), (65536, 16)])
def test_pat_steps_at_scale(p, steps):
    # ceil(lg p), one more at 2^k + 1, where NCCL aggregates a quarter of 2^(k+1) per step.
    assert cost("allgather", "pat", ranks=p, **LINK).steps == steps
    assert cost("reduce_scatter", "pat", ranks=p, **LINK).steps == steps


def test_one_rank_costs_nothing():
    for collective, algorithm in ALGORITHMS:
        extra = {"ranks_per_node": 1} if algorithm in ("hierarchical", "collnet") else {}
        c = cost(collective, algorithm, ranks=1, **LINK, **extra)
        assert (c.steps, c.time_s, c.algbw_gbs) == (0, 0, None), (collective, algorithm)
