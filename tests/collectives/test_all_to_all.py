"""All-to-all: step counts and per-rank bytes from REFERENCE's formulas, and MPI semantics.

M is what each rank sends in total, elements · itemsize, so M/p goes to each peer.
"""

from __future__ import annotations

import numpy as np
import pytest

from app.collectives import catalog, simulate

RANK_COUNTS = [*range(1, 18), 32, 64]
ITEMSIZE = 4  # default inputs are float32


def ceil_lg(p: int) -> int:
    """Count doublings from 1 until reaching p."""
    steps, reach = 0, 1
    while reach < p:
        reach *= 2
        steps += 1
    return steps


def ones_in_binary(j: int) -> int:
    return bin(j).count("1")


def run(algorithm: str, ranks: int, block: int = 2, **kwargs):
    return simulate("all_to_all", algorithm, ranks=ranks, elements=block * ranks, **kwargs)


def message_size(ranks: int, block: int = 2) -> int:
    return block * ranks * ITEMSIZE


@pytest.mark.parametrize("ranks", RANK_COUNTS)
def test_pairwise_takes_p_minus_1_steps_and_sends_p_minus_1_over_p_of_m(ranks):
    trace = run("pairwise", ranks)
    assert trace.total_steps == ranks - 1
    assert trace.bytes_sent.tolist() == [(ranks - 1) * message_size(ranks) // ranks] * ranks


@pytest.mark.parametrize("ranks", RANK_COUNTS)
def test_bruck_takes_ceil_lg_p_steps_and_sends_popcount_blocks(ranks):
    trace = run("bruck", ranks)
    blocks = sum(ones_in_binary(j) for j in range(1, ranks))
    assert trace.total_steps == ceil_lg(ranks)
    assert trace.bytes_sent.tolist() == [blocks * message_size(ranks) // ranks] * ranks


@pytest.mark.parametrize("ranks", [2, 4, 8, 16, 32, 64])
def test_bruck_sends_half_of_m_per_step_for_powers_of_two(ranks):
    trace = run("bruck", ranks)
    # REFERENCE: (M/2) · lg p; with p a power of two that is exact.
    assert trace.bytes_sent.tolist() == [message_size(ranks) // 2 * ceil_lg(ranks)] * ranks


@pytest.mark.parametrize("ranks", RANK_COUNTS)
def test_direct_is_one_step_of_p_minus_1_over_p_of_m(ranks):
    trace = run("direct", ranks)
    assert trace.total_steps == (1 if ranks > 1 else 0)
    assert trace.bytes_sent.tolist() == [(ranks - 1) * message_size(ranks) // ranks] * ranks


def test_pairwise_step_k_sends_to_rank_plus_k():
    p = 6
    trace = run("pairwise", p)
    for k, step in enumerate(trace.steps, start=1):
        pairs = {(t.src, t.dst) for t in step.transfers}
        assert pairs == {(r, (r + k) % p) for r in range(p)}
        for t in step.transfers:
            assert trace.chunk_source[t.chunk] == t.src
            assert trace.chunk_dest[t.chunk] == t.dst  # straight to its destination


def test_bruck_step_k_sends_to_rank_plus_two_to_the_k():
    p = 11
    trace = run("bruck", p)
    for k, step in enumerate(trace.steps):
        pairs = {(t.src, t.dst) for t in step.transfers}
        assert pairs == {(r, (r + 2**k) % p) for r in range(p)}
    assert trace.topology == {"kind": "circulant", "distances": [1, 2, 4, 8]}


def test_bruck_leaves_stale_copies_on_the_way():
    # On 4 ranks the block from rank 0 to rank 3 (offset 3 = 1 + 2) hops 0 -> 1 -> 3.
    trace = run("bruck", 4)
    block_0_to_3 = 0 * 4 + 3
    hops = [(t.src, t.dst) for s in trace.steps for t in s.transfers if t.chunk == block_0_to_3]
    assert hops == [(0, 1), (1, 3)]
    assert trace.final_holdings[(1, block_0_to_3)] == 1 << 0
    assert trace.verified


@pytest.mark.parametrize("algorithm", ["pairwise", "bruck", "direct"])
@pytest.mark.parametrize("ranks", [1, 2, 3, 5, 8, 13])
def test_rank_j_receives_block_j_of_every_rank_in_source_order(algorithm, ranks):
    block = 3
    # Value 1000·s + 10·d + i: element i of the block rank s sends to rank d.
    data = np.array(
        [[1000 * s + 10 * d + i for d in range(ranks) for i in range(block)] for s in range(ranks)],
        dtype=np.int64,
    )
    trace = simulate("all_to_all", algorithm, ranks=ranks, elements=block * ranks, inputs=data)
    for j in range(ranks):
        want = [1000 * s + 10 * j + i for s in range(ranks) for i in range(block)]
        assert trace.outputs[j].tolist() == want
    assert trace.verified


def test_topologies_and_ports_in_catalog():
    entries = {e["algorithm"]: e for e in catalog() if e["collective"] == "all_to_all"}
    assert set(entries) == {"pairwise", "bruck", "direct"}
    assert entries["pairwise"]["single_port"] and entries["bruck"]["single_port"]
    assert not entries["direct"]["single_port"] and entries["direct"]["ports_note"]
    assert run("pairwise", 5).topology == {"kind": "complete"}
    assert run("direct", 5).topology == {"kind": "complete"}


def test_256_ranks():
    p = 256
    m_bytes = message_size(p, block=1)
    expected_steps = {"pairwise": p - 1, "bruck": 8, "direct": 1}
    per_rank = {
        "pairwise": (p - 1) * m_bytes // p,
        "bruck": m_bytes // 2 * 8,
        "direct": (p - 1) * m_bytes // p,
    }
    for algorithm, steps in expected_steps.items():
        trace = run(algorithm, p, block=1)
        assert trace.total_steps == steps, algorithm
        assert trace.bytes_sent.tolist() == [per_rank[algorithm]] * p, algorithm
        assert trace.verified, algorithm
