"""Reduce-scatter: rank i ends with block i fully reduced; step counts and bytes per rank
against REFERENCE § 1; the pattern of each algorithm.

M = elements · itemsize (the whole input); a block is b = M / p. Expected numbers come from
the formulas and MPICH's fold pairing, never from the engine.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.collectives import catalog, simulate

RANK_COUNTS = [*range(1, 18), 32, 64]
LARGE_RANK_COUNTS = [100, 127, 128, 129, 200, 255, 256]
ALGORITHMS = ["ring", "recursive_halving", "direct"]
ITEMSIZE = 4


def pof2_of(p: int) -> int:
    return max(2**k for k in range(10) if 2**k <= p)


def newrank(p: int, r: int) -> int | None:
    """MPICH's renumbering: odd ranks below 2·rem become r // 2, even ones sit out."""
    rem = p - pof2_of(p)
    if r < 2 * rem:
        return r // 2 if r % 2 else None
    return r - rem


def carrier(p: int, r: int) -> int:
    """The survivor responsible for block r during the halving phase."""
    n = newrank(p, r)
    return n if n is not None else newrank(p, r + 1)


def recursive_halving_blocks_sent(p: int, r: int) -> int:
    """Blocks rank r sends: an extra hands over all p; a survivor, at distance d, sends the
    blocks carried by the partner's sub-cube of size d; a partner adds the extra's one block."""
    q = pof2_of(p)
    n = newrank(p, r)
    if n is None:
        return p
    total, d = 0, q // 2
    while d >= 1:
        other = n ^ d
        cube = range(other - other % d, other - other % d + d)
        total += sum(1 for s in range(p) if carrier(p, s) in cube)
        d //= 2
    return total + (1 if r < 2 * (p - q) else 0)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("p", [1, 2, 3, 4, 6, 7, 8, 11])
def test_rank_i_holds_block_i_fully_reduced(algorithm, p):
    per_block = 3
    elements = p * per_block
    # Values encode (rank, position) so a block landing at the wrong rank cannot pass.
    data = np.arange(elements, dtype=np.int64)[None, :] * 1000 + np.arange(p)[:, None]
    trace = simulate("reduce_scatter", algorithm, ranks=p, elements=elements, inputs=data)
    total = data.sum(axis=0)
    full = (1 << p) - 1
    for i in range(p):
        assert trace.outputs[i].tolist() == total[i * per_block : (i + 1) * per_block].tolist()
        assert trace.final_holdings[(i, i)] == full


# -- ring --------------------------------------------------------------------------------


@pytest.mark.parametrize("p", RANK_COUNTS)
def test_ring_steps_and_bytes(p):
    elements = 3 * p
    trace = simulate("reduce_scatter", "ring", ranks=p, elements=elements)
    assert trace.total_steps == p - 1
    assert trace.bytes_sent.tolist() == [(p - 1) * 3 * ITEMSIZE] * p  # (p-1)/p · M


def test_ring_last_step_delivers_each_rank_its_own_block():
    p = 6
    trace = simulate("reduce_scatter", "ring", ranks=p, elements=p)
    assert trace.topology == {"kind": "ring", "order": list(range(p))}
    last = trace.steps[-1]
    assert sorted((t.dst, t.chunk) for t in last.transfers) == [(r, r) for r in range(p)]
    for step in trace.steps:
        assert all(t.dst == (t.src + 1) % p and t.op == "reduce" for t in step.transfers)


# -- recursive halving -------------------------------------------------------------------


@pytest.mark.parametrize("p", RANK_COUNTS + LARGE_RANK_COUNTS)
def test_recursive_halving_steps(p):
    trace = simulate("reduce_scatter", "recursive_halving", ranks=p, elements=p)
    lg = int(math.log2(pof2_of(p)))
    assert trace.total_steps == (lg if p == pof2_of(p) else lg + 2)
    assert trace.verified


@pytest.mark.parametrize("p", RANK_COUNTS)
def test_recursive_halving_bytes_per_rank(p):
    elements = 2 * p
    b = 2 * ITEMSIZE
    trace = simulate("reduce_scatter", "recursive_halving", ranks=p, elements=elements)
    assert trace.bytes_sent.tolist() == [recursive_halving_blocks_sent(p, r) * b for r in range(p)]
    q, rem = pof2_of(p), p - pof2_of(p)
    # Fold-in moves p blocks per extra; halving at distance d moves every block d times
    # (p · d in all); fold-out moves one block per extra.
    assert trace.bytes_sent.sum() == (rem * p + p * (q - 1) + rem) * b
    if p == q:
        assert trace.bytes_sent.tolist() == [(p - 1) * b] * p  # (p-1)/p · M


def test_recursive_halving_starts_at_the_largest_distance_and_halves():
    p = 8
    trace = simulate("reduce_scatter", "recursive_halving", ranks=p, elements=p)
    assert trace.topology == {"kind": "hypercube", "pof2": 8, "folded": {}}
    for step, d in zip(trace.steps, [4, 2, 1], strict=True):
        assert all(t.src ^ t.dst == d for t in step.transfers)
        assert len([t for t in step.transfers if t.src == 0]) == d
        # The lower rank of each pair keeps the lower half, so it sends the upper one.
        assert all(t.chunk >= d for t in step.transfers if t.src == 0)


def test_recursive_halving_folds_like_mpich():
    p = 6
    trace = simulate("reduce_scatter", "recursive_halving", ranks=p, elements=p)
    assert trace.topology == {"kind": "hypercube", "pof2": 4, "folded": {0: 1, 2: 3}}
    fold_in, fold_out = trace.steps[0], trace.steps[-1]
    assert fold_in.phase == "fold-in" and fold_out.phase == "fold-out"
    assert sorted({(t.src, t.dst) for t in fold_in.transfers}) == [(0, 1), (2, 3)]
    assert len(fold_in.transfers) == 2 * p  # everything
    assert sorted((t.src, t.dst, t.chunk, t.op) for t in fold_out.transfers) == [
        (1, 0, 0, "copy"),
        (3, 2, 2, "copy"),
    ]


# -- direct ------------------------------------------------------------------------------


@pytest.mark.parametrize("p", RANK_COUNTS)
def test_direct_sends_block_j_to_rank_j_in_one_step(p):
    trace = simulate("reduce_scatter", "direct", ranks=p, elements=2 * p)
    assert trace.total_steps == (1 if p > 1 else 0)
    assert trace.bytes_sent.tolist() == [(p - 1) * 2 * ITEMSIZE] * p
    for step in trace.steps:
        assert all(t.chunk == t.dst and t.op == "reduce" for t in step.transfers)
        assert len(step.transfers) == p * (p - 1)
    entry = next(
        e for e in catalog() if (e["collective"], e["algorithm"]) == ("reduce_scatter", "direct")
    )
    assert entry["single_port"] is False and entry["ports_note"]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_256_ranks(algorithm):
    rng = np.random.default_rng(3)
    data = rng.integers(-5, 5, size=(256, 256), dtype=np.int64)
    trace = simulate("reduce_scatter", algorithm, ranks=256, elements=256, inputs=data)
    assert trace.verified
    assert [int(out[0]) for out in trace.outputs] == data.sum(axis=0).tolist()
