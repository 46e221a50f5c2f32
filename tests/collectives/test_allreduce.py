"""Allreduce beyond the ring: step counts and bytes per rank against REFERENCE § 1, and the
shape of each algorithm (who talks to whom, what each rank holds when).

Expected numbers come from the formulas (and MPICH's fold-in/fold-out pairing), never from
the engine.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.collectives import catalog, ranks_in, simulate

RANK_COUNTS = [*range(1, 18), 32, 64]
LARGE_RANK_COUNTS = [100, 127, 128, 129, 200, 255, 256]
ITEMSIZE = 4  # default inputs are float32


def pof2_of(p: int) -> int:
    return max(2**k for k in range(10) if 2**k <= p)


def hypercube_steps(p: int, per_dimension: int) -> int:
    """lg p rounds per phase for a power of two; MPICH's fold adds one step each way."""
    lg = int(math.log2(pof2_of(p)))
    return per_dimension * lg + (0 if p == pof2_of(p) else 2)


def role(p: int, r: int) -> str:
    """MPICH's fold: even ranks below 2·rem hand off to r+1 (partner) and sit out (extra)."""
    rem = p - pof2_of(p)
    if r < 2 * rem:
        return "extra" if r % 2 == 0 else "partner"
    return "survivor"


def entry(algorithm: str) -> dict:
    return next(
        e for e in catalog() if (e["collective"], e["algorithm"]) == ("allreduce", algorithm)
    )


# -- recursive doubling ------------------------------------------------------------------


@pytest.mark.parametrize("p", RANK_COUNTS + LARGE_RANK_COUNTS)
def test_recursive_doubling_steps(p):
    trace = simulate("allreduce", "recursive_doubling", ranks=p, elements=3)
    assert trace.total_steps == hypercube_steps(p, 1)
    assert trace.verified


@pytest.mark.parametrize("p", RANK_COUNTS)
def test_recursive_doubling_bytes_per_rank(p):
    elements = 10
    m = elements * ITEMSIZE
    lg = int(math.log2(pof2_of(p)))
    trace = simulate("allreduce", "recursive_doubling", ranks=p, elements=elements)
    # Everyone in the hypercube sends M per dimension; the fold costs one M each way.
    want = {"survivor": lg * m, "partner": (lg + 1) * m, "extra": m}
    assert trace.bytes_sent.tolist() == [want[role(p, r)] for r in range(p)]


def test_recursive_doubling_power_of_two_pairs_with_xor_and_doubles_holdings():
    p = 16
    trace = simulate("allreduce", "recursive_doubling", ranks=p, elements=4)
    for k, step in enumerate(trace.steps):
        assert {t.dst for t in step.transfers if t.src == 5} == {5 ^ (1 << k)}
        held = trace.holdings_at(k)
        for r in range(p):
            # After k+1 exchanges rank r has the sub-cube of ranks sharing its high bits.
            assert ranks_in(held[(r, 0)]) == [q for q in range(p) if q >> (k + 1) == r >> (k + 1)]


def test_recursive_doubling_folds_like_mpich():
    trace = simulate("allreduce", "recursive_doubling", ranks=6, elements=4)
    first, last = trace.steps[0], trace.steps[-1]
    assert first.phase == "fold-in" and last.phase == "fold-out"
    assert {(t.src, t.dst, t.op) for t in first.transfers} == {(0, 1, "reduce"), (2, 3, "reduce")}
    assert {(t.src, t.dst, t.op) for t in last.transfers} == {(1, 0, "copy"), (3, 2, "copy")}
    assert trace.holdings_at(0)[(3, 0)] == 0b1100
    assert trace.topology == {"kind": "hypercube", "pof2": 4, "folded": {0: 1, 2: 3}}
    # Extras sit out the hypercube phase entirely.
    middle = [t for s in trace.steps[1:-1] for t in s.transfers]
    assert not {0, 2} & ({t.src for t in middle} | {t.dst for t in middle})


# -- Rabenseifner ------------------------------------------------------------------------


@pytest.mark.parametrize("p", RANK_COUNTS + LARGE_RANK_COUNTS)
def test_rabenseifner_steps(p):
    trace = simulate("allreduce", "rabenseifner", ranks=p, elements=5)
    assert trace.total_steps == hypercube_steps(p, 2)
    assert trace.verified


@pytest.mark.parametrize("p", RANK_COUNTS)
def test_rabenseifner_bytes_per_rank(p):
    q = pof2_of(p)
    elements = 3 * q  # divisible by the pof2 chunks
    m = elements * ITEMSIZE
    trace = simulate("allreduce", "rabenseifner", ranks=p, elements=elements)
    core = 2 * (q - 1) * m // q  # 2(q-1)/q · M among the q survivors
    want = {"survivor": core, "partner": core + m, "extra": m}
    assert trace.bytes_sent.tolist() == [want[role(p, r)] for r in range(p)]
    if p == q:
        assert trace.bytes_sent.tolist() == [2 * (p - 1) * m // p] * p


def test_rabenseifner_chunks_by_largest_power_of_two():
    for p, chunks in [(1, 1), (2, 2), (7, 4), (8, 8), (12, 8), (17, 16)]:
        assert simulate("allreduce", "rabenseifner", ranks=p, elements=64).chunk_count == chunks


def test_rabenseifner_reduce_scatter_leaves_each_rank_one_distinct_finished_chunk():
    p = 8
    trace = simulate("allreduce", "rabenseifner", ranks=p, elements=16)
    assert [s.phase for s in trace.steps] == ["reduce-scatter"] * 3 + ["allgather"] * 3
    held = trace.holdings_at(2)
    full = (1 << p) - 1
    finished = [[c for c in range(p) if held[(r, c)] == full] for r in range(p)]
    assert all(len(f) == 1 for f in finished)
    assert sorted(f[0] for f in finished) == list(range(p))
    # Halving: the message size halves each step, then doubles back in the allgather.
    per_step = [len([t for t in s.transfers if t.src == 0]) for s in trace.steps]
    assert per_step == [4, 2, 1, 1, 2, 4]
    for step in trace.steps:
        for t in step.transfers:
            assert bin(t.src ^ t.dst).count("1") == 1  # hypercube neighbours only


def test_rabenseifner_handles_fewer_elements_than_chunks():
    trace = simulate("allreduce", "rabenseifner", ranks=16, elements=3, op="max")
    assert trace.verified


# -- reduce_broadcast --------------------------------------------------------------------


@pytest.mark.parametrize("p", RANK_COUNTS)
def test_reduce_broadcast_steps_and_bytes(p):
    elements = 6
    m = elements * ITEMSIZE
    trace = simulate("allreduce", "reduce_broadcast", ranks=p, elements=elements)
    assert trace.total_steps == 2 * (p - 1)
    assert trace.bytes_sent.tolist() == [(p - 1) * m] + [m] * (p - 1)


def test_reduce_broadcast_is_a_star_through_rank_zero_one_peer_per_step():
    p = 5
    trace = simulate("allreduce", "reduce_broadcast", ranks=p, elements=3)
    assert trace.topology == {"kind": "tree", "parent": [-1, 0, 0, 0, 0]}
    moves = [(s.phase, [(t.src, t.dst, t.op) for t in s.transfers]) for s in trace.steps]
    reduces = [("reduce", [(r, 0, "reduce")]) for r in range(1, p)]
    broadcasts = [("broadcast", [(0, r, "copy")]) for r in range(1, p)]
    assert moves == reduces + broadcasts
    assert trace.holdings_at(p - 2)[(0, 0)] == (1 << p) - 1


# -- direct ------------------------------------------------------------------------------


@pytest.mark.parametrize("p", RANK_COUNTS)
def test_direct_is_one_all_port_step(p):
    elements = 7
    m = elements * ITEMSIZE
    trace = simulate("allreduce", "direct", ranks=p, elements=elements)
    assert trace.total_steps == (1 if p > 1 else 0)
    assert trace.bytes_sent.tolist() == [(p - 1) * m] * p
    if p > 1:
        pairs = {(t.src, t.dst) for t in trace.steps[0].transfers}
        assert pairs == {(a, b) for a in range(p) for b in range(p) if a != b}


def test_direct_declares_all_port():
    e = entry("direct")
    assert e["single_port"] is False
    assert "all-port" in e["ports_note"].lower()


def test_single_port_entries_say_so():
    for name in ("recursive_doubling", "rabenseifner", "reduce_broadcast"):
        assert entry(name)["single_port"] is True


# -- every algorithm at the largest size -------------------------------------------------


@pytest.mark.parametrize(
    "algorithm", ["recursive_doubling", "rabenseifner", "reduce_broadcast", "direct"]
)
def test_256_ranks(algorithm):
    rng = np.random.default_rng(7)
    data = rng.integers(-9, 9, size=(256, 3), dtype=np.int64)
    trace = simulate("allreduce", algorithm, ranks=256, elements=3, inputs=data)
    assert trace.verified
    assert all(np.array_equal(out, data.sum(axis=0)) for out in trace.outputs)
