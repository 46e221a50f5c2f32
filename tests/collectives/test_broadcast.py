"""Broadcast: step counts and bytes per rank of binomial_tree, pipelined_ring,
scatter_allgather (van de Geijn) and direct.

Binomial shapes are counted here by brute force from MPICH's rule (the parent of relative rank
q is q with its lowest set bit cleared), not taken from the engine's tree helpers.
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


def mpich_parent(q: int) -> int:
    return q & (q - 1)


def binomial_children_count(rel: int, ranks: int) -> int:
    return sum(1 for q in range(1, ranks) if mpich_parent(q) == rel)


def binomial_subtree_size(rel: int, ranks: int) -> int:
    """Count relative ranks whose chain of parents passes through `rel` (itself included)."""
    size = 0
    for q in range(ranks):
        while q > rel:
            q = mpich_parent(q)
        size += q == rel
    return size


@pytest.mark.parametrize("ranks", [*RANKS, 256])
def test_binomial_broadcast_takes_ceil_lg_p_steps(ranks):
    for root in roots(ranks):
        trace = simulate("broadcast", "binomial_tree", ranks=ranks, elements=3, root=root)
        assert trace.verified
        assert trace.total_steps == lg_ceil(ranks)


@pytest.mark.parametrize("ranks", RANKS)
def test_binomial_broadcast_bytes_are_m_per_child(ranks):
    elements = 5
    m = elements * ITEMSIZE
    for root in roots(ranks):
        trace = simulate("broadcast", "binomial_tree", ranks=ranks, elements=elements, root=root)
        want = [m * binomial_children_count((r - root) % ranks, ranks) for r in range(ranks)]
        assert trace.bytes_sent.tolist() == want
        assert trace.bytes_sent[root] == lg_ceil(ranks) * m  # the root feeds ceil(lg p) subtrees


def test_binomial_broadcast_doubles_the_ranks_holding_data_each_step():
    trace = simulate("broadcast", "binomial_tree", ranks=16, elements=4, root=5)
    holding = [
        sum(1 for (r, _), mask in trace.holdings_at(i).items() if mask) for i in range(-1, 4)
    ]
    assert holding == [1, 2, 4, 8, 16]


@pytest.mark.parametrize("ranks", [*RANKS, 256])
def test_pipelined_ring_broadcast_takes_p_minus_1_plus_k_minus_1_steps(ranks):
    for root in roots(ranks):
        trace = simulate("broadcast", "pipelined_ring", ranks=ranks, elements=ranks, root=root)
        assert trace.verified
        segments = ranks
        assert trace.chunk_count == segments
        assert trace.total_steps == (ranks - 1) + (segments - 1)


@pytest.mark.parametrize("ranks", RANKS)
def test_pipelined_ring_broadcast_every_rank_but_the_last_sends_m(ranks):
    elements = 2 * ranks + 3
    m = elements * ITEMSIZE
    for root in roots(ranks):
        trace = simulate("broadcast", "pipelined_ring", ranks=ranks, elements=elements, root=root)
        last = (root - 1) % ranks
        order = trace.topology["order"]
        assert trace.topology["kind"] == "chain"
        assert order[0] == root and order[-1] == last
        want = [0 if r == last else m for r in range(ranks)]
        if ranks == 1:
            want = [0]
        assert trace.bytes_sent.tolist() == want


@pytest.mark.parametrize("ranks", [*RANKS, 256])
def test_scatter_allgather_takes_lg_p_plus_p_minus_1_steps(ranks):
    for root in roots(ranks):
        trace = simulate("broadcast", "scatter_allgather", ranks=ranks, elements=ranks, root=root)
        assert trace.verified
        assert trace.total_steps == lg_ceil(ranks) + ranks - 1
        phases = [s.phase for s in trace.steps]
        assert all("scatter" in ph for ph in phases[: lg_ceil(ranks)])
        assert all("allgather" in ph for ph in phases[lg_ceil(ranks) :])


@pytest.mark.parametrize("ranks", RANKS)
def test_scatter_allgather_bytes_per_rank(ranks):
    elements = 3 * ranks
    m = elements * ITEMSIZE
    piece = m // ranks
    for root in roots(ranks):
        trace = simulate(
            "broadcast", "scatter_allgather", ranks=ranks, elements=elements, root=root
        )
        want = []
        for r in range(ranks):
            rel = (r - root) % ranks
            scatter = binomial_subtree_size(rel, ranks) - 1  # pieces it passes on to its subtree
            ring = ranks - 1
            want.append(piece * (scatter + ring))
        assert trace.bytes_sent.tolist() == want
        # The root sends 2(p-1)/p · M: (p-1)/p · M in the scatter and as much around the ring.
        assert trace.bytes_sent[root] == 2 * (ranks - 1) * piece


def test_scatter_allgather_relative_rank_q_gets_piece_q_from_the_scatter():
    ranks, root = 6, 4
    trace = simulate("broadcast", "scatter_allgather", ranks=ranks, elements=12, root=root)
    scatter_steps = lg_ceil(ranks)
    after = trace.holdings_at(scatter_steps - 1)
    for r in range(ranks):
        assert after.get((r, (r - root) % ranks), 0) == 1 << root


@pytest.mark.parametrize("ranks", [*RANKS, 256])
def test_direct_broadcast_is_one_step_from_the_root(ranks):
    elements = 4
    m = elements * ITEMSIZE
    for root in roots(ranks):
        trace = simulate("broadcast", "direct", ranks=ranks, elements=elements, root=root)
        assert trace.verified
        assert trace.total_steps == (1 if ranks > 1 else 0)
        assert trace.bytes_sent.tolist() == [
            (ranks - 1) * m if r == root else 0 for r in range(ranks)
        ]


def test_direct_broadcast_says_why_it_is_not_single_port():
    e = next(e for e in catalog() if (e["collective"], e["algorithm"]) == ("broadcast", "direct"))
    assert e["single_port"] is False
    assert "All-port" in e["ports_note"]
