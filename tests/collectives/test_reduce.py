"""Reduce: step counts and bytes per rank of binomial_tree, ring (chain) and direct.

Expected numbers come from the formulas (MPICH's binomial reduce, a pipelined chain of p
segments, one all-port step), computed here independently of the engine.
"""

from __future__ import annotations

import math

import pytest

from app.collectives import catalog, simulate

RANKS = [*range(1, 18), 32, 64]
ITEMSIZE = 4


def lg_ceil(p: int) -> int:
    return math.ceil(math.log2(p))


def roots(p: int) -> list[int]:
    return sorted({0, p // 3, p - 1})


def received_by(trace, rank: int) -> int:
    return sum(t.elements * ITEMSIZE for s in trace.steps for t in s.transfers if t.dst == rank)


def non_roots_send(m: int, ranks: int, root: int) -> list[int]:
    return [0 if r == root else m for r in range(ranks)]


@pytest.mark.parametrize("ranks", [*RANKS, 256])
def test_binomial_reduce_takes_ceil_lg_p_steps(ranks):
    for root in roots(ranks):
        trace = simulate("reduce", "binomial_tree", ranks=ranks, elements=3, root=root)
        assert trace.verified
        assert trace.total_steps == lg_ceil(ranks)


@pytest.mark.parametrize("ranks", RANKS)
def test_binomial_reduce_each_non_root_sends_once_and_the_root_hears_lg_p_times(ranks):
    elements = 6
    m = elements * ITEMSIZE
    for root in roots(ranks):
        trace = simulate("reduce", "binomial_tree", ranks=ranks, elements=elements, root=root)
        assert trace.bytes_sent.tolist() == non_roots_send(m, ranks, root)
        assert received_by(trace, root) == lg_ceil(ranks) * m
        assert trace.topology["kind"] == "tree"
        assert trace.topology["parent"][root] == -1


@pytest.mark.parametrize("ranks", [*RANKS, 256])
def test_ring_reduce_takes_p_minus_1_plus_k_minus_1_steps(ranks):
    for root in roots(ranks):
        trace = simulate("reduce", "ring", ranks=ranks, elements=2 * ranks, root=root)
        assert trace.verified
        segments = ranks
        assert trace.chunk_count == segments
        assert trace.total_steps == (ranks - 1) + (segments - 1)


@pytest.mark.parametrize("ranks", RANKS)
@pytest.mark.parametrize("elements_per_rank", [1, 3])
def test_ring_reduce_every_rank_but_the_root_sends_the_vector_once(ranks, elements_per_rank):
    elements = elements_per_rank * ranks + 1  # uneven segments: the total is still M
    m = elements * ITEMSIZE
    for root in roots(ranks):
        trace = simulate("reduce", "ring", ranks=ranks, elements=elements, root=root)
        assert trace.bytes_sent.tolist() == non_roots_send(m, ranks, root)


@pytest.mark.parametrize("ranks", [1, 2, 5, 9])
def test_ring_reduce_chain_ends_at_the_root(ranks):
    root = ranks // 2
    trace = simulate("reduce", "ring", ranks=ranks, elements=ranks, root=root)
    order = trace.topology["order"]
    assert trace.topology["kind"] == "chain"
    assert order[-1] == root
    assert order == [(root + 1 + i) % ranks for i in range(ranks)]
    for step in trace.steps:
        assert all(t.op == "reduce" for t in step.transfers)
        assert "reduce along the chain" in step.phase
        for t in step.transfers:
            assert order.index(t.dst) == order.index(t.src) + 1


def test_ring_reduce_phases_show_the_pipeline_filling_and_draining():
    trace = simulate("reduce", "ring", ranks=5, elements=10)
    stages = [s.phase.split("pipeline ")[1].rstrip(")") for s in trace.steps]
    # 4 hops, 5 segments: steps 0-2 filling, 3-4 every hop busy, 5-7 draining.
    assert stages == ["filling"] * 3 + ["full"] * 2 + ["draining"] * 3
    assert [len(s.transfers) for s in trace.steps] == [1, 2, 3, 4, 4, 3, 2, 1]


@pytest.mark.parametrize("ranks", [*RANKS, 256])
def test_direct_reduce_is_one_all_port_step(ranks):
    elements = 4
    m = elements * ITEMSIZE
    for root in roots(ranks):
        trace = simulate("reduce", "direct", ranks=ranks, elements=elements, root=root)
        assert trace.verified
        assert trace.total_steps == (1 if ranks > 1 else 0)
        assert trace.bytes_sent.tolist() == non_roots_send(m, ranks, root)
        assert received_by(trace, root) == (ranks - 1) * m


def test_direct_reduce_says_why_it_is_not_single_port():
    e = next(e for e in catalog() if (e["collective"], e["algorithm"]) == ("reduce", "direct"))
    assert e["single_port"] is False
    assert "All-port" in e["ports_note"]
