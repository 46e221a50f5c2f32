"""Allgather: step counts and bytes per rank against REFERENCE § 1, rank order of the result,
and the communication pattern of each algorithm.

M = p · elements · itemsize; each rank contributes one block b = M / p. Expected numbers come
from the formulas and MPICH's fold pairing, never from the engine.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.collectives import catalog, ranks_in, simulate

RANK_COUNTS = [*range(1, 18), 32, 64]
LARGE_RANK_COUNTS = [100, 127, 128, 129, 200, 255, 256]
ALGORITHMS = ["ring", "recursive_doubling", "bruck", "direct"]
ITEMSIZE = 4


def pof2_of(p: int) -> int:
    return max(2**k for k in range(10) if 2**k <= p)


def ceil_lg(p: int) -> int:
    return math.ceil(math.log2(p)) if p > 1 else 0


def newrank(p: int, r: int) -> int | None:
    """MPICH's renumbering: odd ranks below 2·rem become r // 2, even ones sit out."""
    rem = p - pof2_of(p)
    if r < 2 * rem:
        return r // 2 if r % 2 else None
    return r - rem


def carrier(p: int, r: int) -> int:
    """The survivor that carries rank r's block through the hypercube phase."""
    n = newrank(p, r)
    return n if n is not None else newrank(p, r + 1)


def recursive_doubling_blocks_sent(p: int, r: int) -> int:
    """Blocks rank r sends: an extra sends its own block; a survivor sends, per exchange, the
    blocks of every real rank its sub-cube carries; a partner adds the p-1 blocks of fold-out."""
    n = newrank(p, r)
    if n is None:
        return 1
    total, size = 0, 1
    while size < pof2_of(p):
        cube = range(n - n % size, n - n % size + size)
        total += sum(1 for s in range(p) if carrier(p, s) in cube)
        size *= 2
    folded_partner = r < 2 * (p - pof2_of(p))
    return total + (p - 1 if folded_partner else 0)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("p", [1, 2, 3, 5, 8, 13])
def test_result_is_in_rank_order(algorithm, p):
    elements = 3
    data = np.arange(p * elements, dtype=np.int64).reshape(p, elements) * 7 + 1
    trace = simulate("allgather", algorithm, ranks=p, elements=elements, inputs=data)
    want = np.concatenate([data[r] for r in range(p)])
    for out in trace.outputs:
        assert out.tolist() == want.tolist()


# -- recursive doubling ------------------------------------------------------------------


@pytest.mark.parametrize("p", RANK_COUNTS + LARGE_RANK_COUNTS)
def test_recursive_doubling_steps(p):
    trace = simulate("allgather", "recursive_doubling", ranks=p, elements=2)
    lg = int(math.log2(pof2_of(p)))
    assert trace.total_steps == (lg if p == pof2_of(p) else lg + 2)
    assert trace.verified


@pytest.mark.parametrize("p", RANK_COUNTS)
def test_recursive_doubling_bytes_per_rank(p):
    elements = 5
    b = elements * ITEMSIZE
    trace = simulate("allgather", "recursive_doubling", ranks=p, elements=elements)
    assert trace.bytes_sent.tolist() == [recursive_doubling_blocks_sent(p, r) * b for r in range(p)]
    q, rem = pof2_of(p), p - pof2_of(p)
    # Fold-in moves rem blocks; exchange k moves every block 2^k times (p · 2^k); fold-out
    # moves p-1 blocks to each of the rem extras.
    assert trace.bytes_sent.sum() == (rem + p * (q - 1) + rem * (p - 1)) * b
    if p == q:
        assert trace.bytes_sent.tolist() == [(p - 1) * b] * p  # (p-1)/p · M


def test_recursive_doubling_doubles_what_each_rank_holds():
    p = 8
    trace = simulate("allgather", "recursive_doubling", ranks=p, elements=1)
    for k in range(3):
        held = trace.holdings_at(k)
        for r in range(p):
            blocks = [c for c in range(p) if held.get((r, c))]
            assert blocks == [c for c in range(p) if c >> (k + 1) == r >> (k + 1)]


def test_recursive_doubling_fold_out_sends_every_block_but_the_extras_own():
    trace = simulate("allgather", "recursive_doubling", ranks=5, elements=2)
    assert trace.topology == {"kind": "hypercube", "pof2": 4, "folded": {0: 1}}
    fold_in, fold_out = trace.steps[0], trace.steps[-1]
    assert [(t.src, t.dst, t.chunk) for t in fold_in.transfers] == [(0, 1, 0)]
    assert sorted((t.src, t.dst, t.chunk) for t in fold_out.transfers) == [
        (1, 0, c) for c in range(1, 5)
    ]


# -- Bruck -------------------------------------------------------------------------------


@pytest.mark.parametrize("p", RANK_COUNTS + LARGE_RANK_COUNTS)
def test_bruck_steps_and_bytes_for_any_p(p):
    elements = 2
    b = elements * ITEMSIZE
    trace = simulate("allgather", "bruck", ranks=p, elements=elements)
    assert trace.total_steps == ceil_lg(p)
    assert trace.bytes_sent.tolist() == [(p - 1) * b] * p  # exactly (p-1)/p · M
    assert trace.verified


@pytest.mark.parametrize("p", [5, 6, 7, 12])
def test_bruck_concatenates_blocks_from_each_rank_onwards(p):
    trace = simulate("allgather", "bruck", ranks=p, elements=1)
    assert trace.topology == {"kind": "circulant", "distances": [2**k for k in range(ceil_lg(p))]}
    for k, step in enumerate(trace.steps):
        d = 2**k
        assert {(t.src, t.dst) for t in step.transfers} == {(r, (r - d) % p) for r in range(p)}
        held = trace.holdings_at(k)
        for r in range(p):
            want = {(r + i) % p for i in range(min(2 * d, p))}
            assert {c for c in range(p) if held.get((r, c))} == want


# -- ring and direct ---------------------------------------------------------------------


@pytest.mark.parametrize("p", RANK_COUNTS)
def test_ring_steps_and_bytes(p):
    trace = simulate("allgather", "ring", ranks=p, elements=3)
    assert trace.total_steps == p - 1
    assert trace.bytes_sent.tolist() == [(p - 1) * 3 * ITEMSIZE] * p


@pytest.mark.parametrize("p", RANK_COUNTS)
def test_direct_is_one_step_of_every_block_to_every_rank(p):
    trace = simulate("allgather", "direct", ranks=p, elements=3)
    assert trace.total_steps == (1 if p > 1 else 0)
    assert trace.bytes_sent.tolist() == [(p - 1) * 3 * ITEMSIZE] * p
    for step in trace.steps:
        assert all(t.chunk == t.src and t.op == "copy" for t in step.transfers)
    entry = next(
        e for e in catalog() if (e["collective"], e["algorithm"]) == ("allgather", "direct")
    )
    assert entry["single_port"] is False and entry["ports_note"]


def test_final_holdings_are_each_source_once():
    trace = simulate("allgather", "recursive_doubling", ranks=7, elements=2)
    for (r, c), mask in trace.final_holdings.items():
        assert ranks_in(mask) == [c], (r, c)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_256_ranks(algorithm):
    trace = simulate("allgather", algorithm, ranks=256, elements=2)
    assert trace.verified
    assert trace.outputs[255].tolist() == trace.inputs.reshape(-1).tolist()
