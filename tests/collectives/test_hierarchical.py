"""Hierarchical allreduce (REFERENCE § 2 variant (b)): steps, bytes per rank, phases, errors.

Expected: 2(g-1) + 2(N-1) steps; each rank sends 2(g-1)/g · M inside its node and
2(N-1)/N · M/g across nodes (g ranks per node, N nodes).
"""

from __future__ import annotations

import pytest

from app.collectives import CollectiveError, simulate

RANKS = [*range(1, 18), 32, 64]
ITEMSIZE = 4


def divisors(p: int) -> list[int]:
    return [g for g in range(1, p + 1) if p % g == 0]


def run(ranks: int, g: int, elements: int | None = None):
    elements = 2 * ranks if elements is None else elements
    return simulate("allreduce", "hierarchical", ranks=ranks, elements=elements, ranks_per_node=g)


def is_intra(step) -> bool:
    return step.phase.startswith("intra-node")


@pytest.mark.parametrize("ranks", RANKS)
def test_steps_are_2_g_minus_1_plus_2_n_minus_1(ranks):
    for g in divisors(ranks):
        nodes = ranks // g
        trace = run(ranks, g)
        assert trace.verified, (ranks, g)
        assert trace.total_steps == 2 * (g - 1) + 2 * (nodes - 1), (ranks, g)


@pytest.mark.parametrize("ranks", RANKS)
def test_bytes_per_rank_split_into_intra_and_inter_node(ranks):
    elements = 3 * ranks  # divisible by g·N, so every share is whole
    m = elements * ITEMSIZE
    for g in divisors(ranks):
        nodes = ranks // g
        trace = run(ranks, g, elements)
        intra = 2 * (g - 1) * m // g
        inter = 2 * (nodes - 1) * m // (g * nodes)
        assert trace.bytes_sent.tolist() == [intra + inter] * ranks, (ranks, g)
        by_step = trace.bytes_sent_by_step()
        inter_rows = [i for i, s in enumerate(trace.steps) if not is_intra(s)]
        assert by_step[inter_rows].sum(axis=0).tolist() == [inter] * ranks  # what each NIC carries


def test_256_ranks_on_32_nodes_of_8():
    trace = run(256, 8)
    assert trace.verified
    assert trace.total_steps == 2 * 7 + 2 * 31
    m = 2 * 256 * ITEMSIZE
    assert trace.bytes_sent.tolist() == [2 * 7 * m // 8 + 2 * 31 * m // 256] * 256


@pytest.mark.parametrize(("ranks", "g"), [(8, 2), (12, 3), (12, 4), (16, 4), (64, 8)])
def test_intra_steps_stay_in_a_node_and_inter_steps_join_same_local_ranks(ranks, g):
    trace = run(ranks, g)
    nodes = ranks // g
    expected_phases = (
        ["intra-node reduce-scatter"] * (g - 1)
        + ["inter-node allreduce (reduce-scatter)"] * (nodes - 1)
        + ["inter-node allreduce (allgather)"] * (nodes - 1)
        + ["intra-node allgather"] * (g - 1)
    )
    assert [s.phase for s in trace.steps] == expected_phases
    for step in trace.steps:
        for t in step.transfers:
            if is_intra(step):
                assert t.src // g == t.dst // g
            else:
                assert t.src % g == t.dst % g and t.src // g != t.dst // g
    assert trace.topology == {"kind": "hierarchical", "ranks_per_node": g, "nodes": nodes}


def test_after_intra_reduce_scatter_each_local_rank_holds_its_nodes_shard():
    ranks, g = 8, 4  # 2 nodes; shard l = chunks 2l, 2l+1
    trace = run(ranks, g)
    after = trace.holdings_at(g - 2)
    for r in range(ranks):
        node, local = divmod(r, g)
        node_mask = sum(1 << (node * g + i) for i in range(g))
        assert after[(r, 2 * local)] == node_mask
        assert after[(r, 2 * local + 1)] == node_mask


@pytest.mark.parametrize("ranks", [1, 2, 5, 8, 13])
def test_one_rank_per_node_or_one_node_is_a_flat_ring(ranks):
    elements = 4 * ranks
    m = elements * ITEMSIZE
    for g in {1, ranks}:
        trace = run(ranks, g, elements)
        assert trace.verified
        assert trace.total_steps == 2 * (ranks - 1)
        assert trace.bytes_sent.tolist() == [2 * (ranks - 1) * m // ranks] * ranks
    assert all(s.phase.startswith("inter-node") for s in run(ranks, 1).steps)
    assert all(s.phase.startswith("intra-node") for s in run(ranks, ranks).steps)


@pytest.mark.parametrize(("ranks", "g"), [(8, 3), (6, 4), (17, 2)])
def test_ranks_per_node_must_divide_ranks(ranks, g):
    with pytest.raises(CollectiveError, match="ranks_per_node must divide ranks"):
        run(ranks, g)


def test_ranks_per_node_is_required_and_positive():
    with pytest.raises(CollectiveError, match="ranks_per_node is required"):
        simulate("allreduce", "hierarchical", ranks=4, elements=8)
    with pytest.raises(CollectiveError, match="ranks_per_node"):
        run(4, 0)
