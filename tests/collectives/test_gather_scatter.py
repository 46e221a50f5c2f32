"""Gather and scatter: step counts and per-rank bytes from the binomial-tree formulas, semantics.

Gather: M = p · elements · itemsize, each rank's block is M/p. Scatter: M = elements · itemsize,
split into p blocks of M/p. Trees are numbered relative to the root, rel = (rank - root) mod p.
"""

from __future__ import annotations

import numpy as np
import pytest

from app.collectives import catalog, simulate

RANK_COUNTS = [*range(1, 18), 32, 64]
ITEMSIZE = 4


def ceil_lg(p: int) -> int:
    """Count doublings from 1 until reaching p."""
    steps, reach = 0, 1
    while reach < p:
        reach *= 2
        steps += 1
    return steps


def binomial_ancestors(rel: int) -> list[int]:
    """List rel, its parent, its grandparent, … (clearing the lowest set bit each time)."""
    chain = [rel]
    while rel:
        rel &= rel - 1
        chain.append(rel)
    return chain


def subtree_size(rel: int, p: int) -> int:
    """Count the relative ranks below `rel` in the binomial tree, itself included."""
    return sum(1 for q in range(p) if rel in binomial_ancestors(q))


def roots(p: int) -> list[int]:
    return sorted({0, p // 3, p - 1})


def cases():
    return [(p, root) for p in RANK_COUNTS for root in roots(p)]


@pytest.mark.parametrize(("ranks", "root"), cases())
def test_gather_binomial_steps_and_bytes(ranks, root):
    elements = 3
    block = elements * ITEMSIZE
    trace = simulate("gather", "binomial_tree", ranks=ranks, elements=elements, root=root)
    assert trace.total_steps == ceil_lg(ranks)
    for r in range(ranks):
        rel = (r - root) % ranks
        want = 0 if rel == 0 else subtree_size(rel, ranks) * block
        assert trace.bytes_sent[r] == want, r
    into_root = sum(t.elements for s in trace.steps for t in s.transfers if t.dst == root)
    assert into_root * ITEMSIZE == (ranks - 1) * block  # (p-1)/p · M


@pytest.mark.parametrize(("ranks", "root"), cases())
def test_scatter_binomial_steps_and_bytes(ranks, root):
    elements = 2 * ranks
    block = 2 * ITEMSIZE
    trace = simulate("scatter", "binomial_tree", ranks=ranks, elements=elements, root=root)
    assert trace.total_steps == ceil_lg(ranks)
    for r in range(ranks):
        rel = (r - root) % ranks
        want = (ranks - 1) * block if rel == 0 else (subtree_size(rel, ranks) - 1) * block
        assert trace.bytes_sent[r] == want, r


@pytest.mark.parametrize(("ranks", "root"), cases())
def test_direct_gather_and_scatter_take_one_step(ranks, root):
    gather = simulate("gather", "direct", ranks=ranks, elements=3, root=root)
    scatter = simulate("scatter", "direct", ranks=ranks, elements=2 * ranks, root=root)
    one = 1 if ranks > 1 else 0
    assert gather.total_steps == scatter.total_steps == one
    assert gather.bytes_sent.tolist() == [0 if r == root else 3 * ITEMSIZE for r in range(ranks)]
    assert scatter.bytes_sent.tolist() == [
        (ranks - 1) * 2 * ITEMSIZE if r == root else 0 for r in range(ranks)
    ]


def test_gather_child_sends_its_whole_subtree_once_it_is_complete():
    p, root = 13, 5
    trace = simulate("gather", "binomial_tree", ranks=p, elements=2, root=root)
    steps_of: dict[int, list[int]] = {}
    for step in trace.steps:
        before = trace.holdings_at(step.index - 1)
        for src in {t.src for t in step.transfers}:
            rel = (src - root) % p
            subtree = {(q + root) % p for q in range(p) if rel in binomial_ancestors(q)}
            assert all(before.get((src, c)) for c in subtree), (step.index, src)
            sent = {t.chunk for t in step.transfers if t.src == src}
            assert sent == subtree, (step.index, src)
            steps_of.setdefault(src, []).append(step.index)
    assert set(steps_of) == set(range(p)) - {root}
    assert all(len(steps) == 1 for steps in steps_of.values())


@pytest.mark.parametrize("algorithm", ["binomial_tree", "direct"])
@pytest.mark.parametrize(("ranks", "root"), [(1, 0), (2, 1), (5, 2), (8, 0), (11, 10)])
def test_only_the_root_gets_the_gather_in_rank_order(algorithm, ranks, root):
    data = np.arange(ranks * 4, dtype=np.int32).reshape(ranks, 4) + 100
    trace = simulate("gather", algorithm, ranks=ranks, elements=4, root=root, inputs=data)
    for r in range(ranks):
        if r == root:
            assert trace.outputs[r].tolist() == [v for row in data.tolist() for v in row]
        else:
            assert trace.outputs[r] is None
    assert trace.verified


@pytest.mark.parametrize("algorithm", ["binomial_tree", "direct"])
@pytest.mark.parametrize(("ranks", "root"), [(1, 0), (2, 1), (5, 2), (8, 0), (11, 10)])
def test_scatter_rank_i_gets_block_i_of_the_root(algorithm, ranks, root):
    block = 3
    data = np.arange(ranks * ranks * block, dtype=np.int64).reshape(ranks, ranks * block)
    trace = simulate(
        "scatter", algorithm, ranks=ranks, elements=ranks * block, root=root, inputs=data
    )
    for i in range(ranks):
        assert trace.outputs[i].tolist() == data[root, i * block : (i + 1) * block].tolist()
    assert trace.verified


def test_binomial_topology_is_the_tree_relative_to_the_root():
    p, root = 6, 4
    trace = simulate("gather", "binomial_tree", ranks=p, elements=1, root=root)
    # rel 0..5 = ranks 4, 5, 0, 1, 2, 3; parents of rel 1..5 are rel 0, 0, 2, 0, 4.
    assert trace.topology == {"kind": "tree", "parent": [4, 0, 4, 2, -1, 4]}
    scatter = simulate("scatter", "binomial_tree", ranks=p, elements=p, root=root)
    assert scatter.topology == trace.topology


def test_scatter_sends_the_largest_subtree_first():
    trace = simulate("scatter", "binomial_tree", ranks=8, elements=8, root=0)
    first = trace.steps[0].transfers
    assert {(t.src, t.dst) for t in first} == {(0, 4)}
    assert sorted(t.chunk for t in first) == [4, 5, 6, 7]


def test_ports_in_catalog():
    entries = {
        (e["collective"], e["algorithm"]): e
        for e in catalog()
        if e["collective"] in ("gather", "scatter")
    }
    assert set(entries) == {
        (c, a) for c in ("gather", "scatter") for a in ("binomial_tree", "direct")
    }
    for (_, algorithm), entry in entries.items():
        assert entry["single_port"] == (algorithm == "binomial_tree")
        assert entry["uses_root"]


def test_256_ranks():
    p, root = 256, 77
    gather = simulate("gather", "binomial_tree", ranks=p, elements=1, root=root)
    scatter = simulate("scatter", "binomial_tree", ranks=p, elements=p, root=root)
    assert gather.total_steps == scatter.total_steps == 8
    assert gather.verified and scatter.verified
    # p is a power of two, so the subtree of rel is exactly lowbit(rel) ranks.
    for r in range(p):
        rel = (r - root) % p
        lowbit = rel & -rel
        assert gather.bytes_sent[r] == (0 if rel == 0 else lowbit * ITEMSIZE)
        assert scatter.bytes_sent[r] == ((p - 1) if rel == 0 else lowbit - 1) * ITEMSIZE
