"""The algorithms NCCL runs at scale (issue 19): bidirectional ring, 2D torus, pipelined double
binary tree, PAT allgather and reduce-scatter.

Expected numbers come from the algorithms' descriptions (the module docstrings and REFERENCE),
worked out here by hand or by brute force, never read back from the engine. Numpy agreement for
p = 1..17, 32, 64 is in test_engine.py (over the whole catalog); steps and bytes against the
cost model in tests/costs/test_engine_agreement.py.
"""

from __future__ import annotations

import math

import pytest

from app.collectives import catalog, simulate
from app.collectives.pat_schedule import pat_steps, step_count
from app.collectives.torus import torus_grid
from app.collectives.trees import double_binary_tree_parents, tree_depth

RANKS = list(range(1, 18))  # 32 and 64 are verified over the whole catalog in test_engine.py
ITEMSIZE = 4


def entry(collective: str, algorithm: str) -> dict:
    return next(
        e for e in catalog() if (e["collective"], e["algorithm"]) == (collective, algorithm)
    )


def messages(step) -> dict[tuple[int, int], int]:
    """Bytes per (src, dst) pair in one step."""
    out: dict[tuple[int, int], int] = {}
    for t in step.transfers:
        out[(t.src, t.dst)] = out.get((t.src, t.dst), 0) + t.elements * ITEMSIZE
    return out


# -- bidirectional ring ----------------------------------------------------------------------


@pytest.mark.parametrize("p", RANKS)
def test_bidirectional_ring_sends_one_chunk_each_way_every_step(p):
    elements = 2 * p * 3
    m = elements * ITEMSIZE
    trace = simulate("allreduce", "ring_bidirectional", ranks=p, elements=elements)
    assert trace.verified
    assert trace.total_steps == 2 * (p - 1)
    assert trace.bytes_sent.tolist() == [2 * (p - 1) * m // p] * p  # the ring's total
    for step in trace.steps:
        for t in step.transfers:
            clockwise = t.chunk < p  # the first half goes r -> r+1, the second r -> r-1
            assert t.dst == (t.src + (1 if clockwise else -1)) % p
        if p >= 3:
            # Both neighbours at once, M/2p to each: two ports, half the ring's message.
            assert messages(step) == {
                (r, (r + d) % p): m // (2 * p) for r in range(p) for d in (1, -1)
            }


def test_bidirectional_ring_declares_two_ports():
    e = entry("allreduce", "ring_bidirectional")
    assert e["single_port"] is False
    assert "both neighbours" in e["ports_note"]


# -- 2D torus --------------------------------------------------------------------------------


def test_torus_grid_is_the_squarest_factorisation():
    for p in range(1, 300):
        rows, columns = torus_grid(p)
        assert rows * columns == p and rows <= columns
        divisors = [d for d in range(1, p + 1) if p % d == 0]
        assert columns == min(d for d in divisors if d * d >= p)
        prime = p > 1 and divisors == [1, p]
        assert (rows == 1) == (prime or p == 1)


@pytest.mark.parametrize("p", RANKS)
def test_torus_rows_then_columns_then_rows(p):
    rows, columns = torus_grid(p)
    trace = simulate("allreduce", "2d_torus", ranks=p, elements=3 * p)
    assert trace.verified
    assert trace.topology == {"kind": "torus", "rows": rows, "columns": columns}
    assert trace.total_steps == 2 * (columns - 1) + 2 * (rows - 1)
    m = 3 * p * ITEMSIZE
    assert trace.bytes_sent.tolist() == pytest.approx([2 * (p - 1) / p * m] * p)
    for i, step in enumerate(trace.steps):
        in_column = columns - 1 <= i < columns - 1 + 2 * (rows - 1)
        for t in step.transfers:
            if in_column:  # the next row, same column, wrapping round
                assert t.dst == (t.src + columns) % p
            else:  # the next column, same row, wrapping round
                assert t.dst // columns == t.src // columns
                assert t.dst % columns == (t.src + 1) % columns


def test_torus_beats_the_ring_on_steps_and_the_catalog_states_its_grid():
    assert simulate("allreduce", "2d_torus", ranks=64, elements=64).total_steps == 28  # 8 x 8
    assert simulate("allreduce", "2d_torus", ranks=13, elements=13).total_steps == 24  # 1 x 13
    constraints = entry("allreduce", "2d_torus")["constraints"]
    assert "prime" in constraints["grid"] and "sqrt" in constraints["grid"]
    assert "ranks_per_node" not in constraints


# -- pipelined double binary tree -------------------------------------------------------------


@pytest.mark.parametrize("p", RANKS)
def test_pipelined_tree_overlaps_up_and_down_and_sends_what_the_tree_sends(p):
    elements = 16 * 5  # 2 trees x 8 chunks of 5 values
    trace = simulate("allreduce", "tree_pipelined", ranks=p, elements=elements)
    plain = simulate("allreduce", "double_binary_tree", ranks=p, elements=elements)
    assert trace.verified
    # Pipelining moves the same data in more, smaller steps: the same bytes per rank.
    assert trace.bytes_sent.tolist() == plain.bytes_sent.tolist()
    depth = max(tree_depth(t) for t in double_binary_tree_parents(p))
    assert trace.total_steps == (2 * depth + 8 - 1 if p > 1 else 0)
    assert all(t.elements == 5 for s in trace.steps for t in s.transfers)
    overlapped = [s for s in trace.steps if {t.op for t in s.transfers} == {"copy", "reduce"}]
    if depth >= 1:
        # Chunk 0 turns round at the root after `depth` steps; the last chunk leaves the
        # leaves at step 7: up and down run together for 8 - 1 steps at least.
        assert len(overlapped) >= 7


def test_pipelined_tree_on_two_ranks_shares_the_one_link_in_both_trees():
    # Trees 0 -> 1 and 1 -> 0: steps 1..7 carry an up chunk of one tree and a down chunk of
    # the other on the same pair, M/8 in all; steps 0 and 8 carry M/16.
    trace = simulate("allreduce", "tree_pipelined", ranks=2, elements=16)
    largest = [max(messages(s).values()) for s in trace.steps]
    assert largest == [ITEMSIZE] + [2 * ITEMSIZE] * 7 + [ITEMSIZE]


# -- PAT -------------------------------------------------------------------------------------


@pytest.mark.parametrize("k", range(1, 7))
def test_pat_allgather_on_a_power_of_two_doubles_the_blocks_as_the_distance_halves(k):
    p = 1 << k
    trace = simulate("allgather", "pat", ranks=p, elements=2)
    assert trace.verified
    assert trace.total_steps == k
    for i, step in enumerate(trace.steps):
        distance = p >> (i + 1)  # p/2 first: the longest hop carries one block
        assert messages(step) == {(r, (r - distance) % p): 2 * ITEMSIZE << i for r in range(p)}


@pytest.mark.parametrize("k", range(1, 7))
def test_pat_reduce_scatter_is_the_mirror_image(k):
    p = 1 << k
    trace = simulate("reduce_scatter", "pat", ranks=p, elements=2 * p)
    assert trace.verified
    assert trace.total_steps == k
    for i, step in enumerate(trace.steps):
        distance = 1 << i  # the shortest hop first, with p/2 blocks
        blocks = p >> (i + 1)
        assert messages(step) == {(r, (r + distance) % p): 2 * ITEMSIZE * blocks for r in range(p)}


@pytest.mark.parametrize("collective", ["allgather", "reduce_scatter"])
@pytest.mark.parametrize("p", RANKS)
def test_pat_is_single_port_and_sends_every_other_block_once(collective, p):
    block = 3
    elements = block * p if collective == "reduce_scatter" else block
    trace = simulate(collective, "pat", ranks=p, elements=elements)
    assert trace.verified
    assert trace.bytes_sent.tolist() == [(p - 1) * block * ITEMSIZE] * p
    power_of_two_plus_one = p > 3 and (p - 1) & (p - 2) == 0
    assert trace.total_steps == (math.ceil(math.log2(p)) + power_of_two_plus_one if p > 1 else 0)
    for step in trace.steps:
        pairs = messages(step)
        assert len({s for s, _ in pairs}) == len({d for _, d in pairs}) == len(pairs) == p
        assert entry(collective, "pat")["single_port"] is True


def test_pat_step_count_matches_the_schedule_it_summarises():
    sizes = [*range(1, 70), 129, 257, 513]
    assert [step_count(p) for p in sizes] == [len(pat_steps("allgather", p)) for p in sizes]
    assert [step_count(p) for p in sizes] == [len(pat_steps("reduce_scatter", p)) for p in sizes]
