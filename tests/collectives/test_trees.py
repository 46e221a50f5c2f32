"""Tree shapes (MPICH binomial, heap binary, NCCL double binary) and the two tree allreduces.

Expected shapes come from the published definitions and drawings (MPICH's relative-rank
binomial tree, the binary heap, the diagrams in NCCL's src/graph/trees.cc); expected step and
byte counts come from the formulas in the task, not from the engine.
"""

from __future__ import annotations

import math

import pytest

from app.collectives import catalog, simulate
from app.collectives.trees import (
    NO_PARENT,
    binomial_children,
    binomial_parent,
    binomial_parents,
    binomial_rounds,
    binomial_subtree,
    children_lists,
    double_binary_tree_parents,
    heap_parents,
    levels_up,
)

RANKS = [*range(1, 18), 32, 64]
ITEMSIZE = 4  # default inputs are float32


def lg_ceil(p: int) -> int:
    return math.ceil(math.log2(p))


def lg_floor(p: int) -> int:
    return math.floor(math.log2(p))


def roots(p: int) -> list[int]:
    return sorted({0, p // 3, p - 1})


def parents_from(children: dict[int, list[int]], ranks: int) -> list[int]:
    parents = [NO_PARENT] * ranks
    for parent, kids in children.items():
        for kid in kids:
            parents[kid] = parent
    return parents


def hops_to_root(parents: list[int], rank: int) -> int:
    """Follow parents up to the root; fail on a cycle."""
    hops = 0
    while parents[rank] != NO_PARENT:
        rank = parents[rank]
        hops += 1
        assert hops <= len(parents), "cycle in the parent list"
    return hops


def assert_is_tree(parents: list[int], root: int) -> None:
    """Exactly one root, every other rank has one parent, and every rank reaches the root."""
    assert [r for r, p in enumerate(parents) if p == NO_PARENT] == [root]
    for rank, parent in enumerate(parents):
        if rank != root:
            assert 0 <= parent < len(parents) and parent != rank
        hops_to_root(parents, rank)


def entry(collective: str, algorithm: str) -> dict:
    return next(
        e for e in catalog() if (e["collective"], e["algorithm"]) == (collective, algorithm)
    )


# -- binomial tree -------------------------------------------------------------------------


def test_binomial_tree_matches_mpich_numbering_on_eight_ranks():
    # MPICH bcast: relative rank 0 sends to 4, then 2, then 1; 4 to 6 then 5; 2 to 3; 6 to 7.
    assert [binomial_children(r, 0, 8) for r in range(8)] == [
        [4, 2, 1], [], [3], [], [6, 5], [], [7], []
    ]  # fmt: skip
    # Root 3: relative rank q is rank (q + 3) mod 8.
    assert binomial_children(3, 3, 8) == [7, 5, 4]
    assert binomial_parent(0, 3, 8) == 7  # relative 5 -> relative 4
    assert binomial_parent(3, 3, 8) == NO_PARENT


@pytest.mark.parametrize("ranks", [*RANKS, 256])
def test_binomial_tree_is_a_tree_for_any_root(ranks):
    for root in roots(ranks):
        parents = binomial_parents(ranks, root)
        assert_is_tree(parents, root)
        for rank in range(ranks):
            assert sorted(binomial_children(rank, root, ranks)) == children_lists(parents)[rank]
            if rank != root:  # a parent is nearer the root in relative numbering
                assert (parents[rank] - root) % ranks < (rank - root) % ranks


@pytest.mark.parametrize("ranks", RANKS)
def test_binomial_rounds_cover_each_edge_once_in_single_port_rounds(ranks):
    for root in roots(ranks):
        parents = binomial_parents(ranks, root)
        rounds = binomial_rounds(ranks, root)
        assert len(rounds) == (lg_ceil(ranks) if ranks > 1 else 0)
        edges = sorted(e for rnd in rounds for e in rnd)
        assert edges == sorted((parents[c], c) for c in range(ranks) if c != root)
        done: set[int] = set()
        for rnd in rounds:
            senders = [c for _, c in rnd]
            receivers = [p for p, _ in rnd]
            assert len(set(senders)) == len(senders) and len(set(receivers)) == len(receivers)
            assert not set(senders) & set(receivers)
            # Reduce order: a rank sends up only after all its children have sent to it.
            for child in senders:
                assert set(children_lists(parents)[child]) <= done
            done |= set(senders)


@pytest.mark.parametrize("ranks", RANKS)
def test_binomial_subtree_is_the_rank_and_its_descendants(ranks):
    for root in roots(ranks):
        parents = binomial_parents(ranks, root)
        for rank in range(ranks):
            below = {q for q in range(ranks) if _is_ancestor(parents, rank, q)}
            subtree = binomial_subtree(rank, root, ranks)
            assert subtree[0] == rank
            assert set(subtree) == below


def _is_ancestor(parents: list[int], a: int, q: int) -> bool:
    while q != NO_PARENT:
        if q == a:
            return True
        q = parents[q]
    return False


# -- heap-ordered binary tree --------------------------------------------------------------


@pytest.mark.parametrize("ranks", [*RANKS, 256])
def test_heap_tree_children_are_2i_plus_1_and_2i_plus_2(ranks):
    parents = heap_parents(ranks)
    assert_is_tree(parents, 0)
    kids = children_lists(parents)
    for i in range(ranks):
        assert kids[i] == [c for c in (2 * i + 1, 2 * i + 2) if c < ranks]
    assert max(hops_to_root(parents, r) for r in range(ranks)) == lg_floor(ranks)


# -- NCCL's double binary tree -------------------------------------------------------------

# Drawn in NCCL's src/graph/trees.cc: tree 0 on 14 ranks; the mirrored tree 1 on 12 ranks; the
# two trees on 13 ranks (odd: tree 1 is tree 0 shifted by one rank).
NCCL_14_TREE0 = {0: [8], 8: [4, 12], 4: [2, 6], 12: [10, 13], 2: [1, 3], 6: [5, 7], 10: [9, 11]}
NCCL_12_TREE1 = {11: [3], 3: [1, 7], 1: [0, 2], 7: [5, 9], 5: [4, 6], 9: [8, 10]}
NCCL_13_TREE0 = {0: [8], 8: [4, 12], 4: [2, 6], 12: [10], 2: [1, 3], 6: [5, 7], 10: [9, 11]}
NCCL_13_TREE1 = {1: [9], 9: [5, 0], 5: [3, 7], 0: [11], 3: [2, 4], 7: [6, 8], 11: [10, 12]}


def test_double_binary_tree_matches_nccls_drawings():
    assert list(double_binary_tree_parents(14)[0]) == parents_from(NCCL_14_TREE0, 14)
    assert list(double_binary_tree_parents(12)[1]) == parents_from(NCCL_12_TREE1, 12)
    assert [list(t) for t in double_binary_tree_parents(13)] == [
        parents_from(NCCL_13_TREE0, 13),
        parents_from(NCCL_13_TREE1, 13),
    ]
    assert children_lists(double_binary_tree_parents(14)[0])[12] == [10, 13]


def nccl_get_btree(nranks: int, rank: int) -> tuple[int, set[int]]:
    """(parent, children) of `rank`, rank by rank as ncclGetBtree in NCCL's trees.cc says."""
    bit = 1
    while bit < nranks and not bit & rank:  # the lowest set bit; for rank 0, >= nranks
        bit <<= 1
    if rank == 0:
        return NO_PARENT, {bit >> 1} if nranks > 1 else set()
    up = (rank ^ bit) | (bit << 1)
    if up >= nranks:
        up = rank ^ bit
    low = bit >> 1
    if low == 0:
        return up, set()
    down1 = rank + low  # halve the step until the second child is a rank
    while down1 >= nranks:
        low >>= 1
        down1 = rank + low if low else NO_PARENT
    return up, {rank - (bit >> 1)} | ({down1} - {NO_PARENT})


def nccl_get_dtree(nranks: int, rank: int) -> list[tuple[int, set[int]]]:
    """Both trees' (parent, children) of `rank` as ncclGetDtree says: tree 1 is tree 0 shifted
    by one rank when nranks is odd, mirrored when it is even."""

    def back(r: int) -> int:  # the rank that plays tree 0's rank r in tree 1
        return (r + 1) % nranks if nranks % 2 else nranks - 1 - r

    up, down = nccl_get_btree(nranks, (rank - 1) % nranks if nranks % 2 else nranks - 1 - rank)
    second = (NO_PARENT if up == NO_PARENT else back(up), {back(d) for d in down})
    return [nccl_get_btree(nranks, rank), second]


@pytest.mark.parametrize("ranks", range(1, 70))
def test_double_binary_tree_follows_nccls_rule_rank_by_rank(ranks):
    trees = double_binary_tree_parents(ranks)
    kids = [children_lists(tree) for tree in trees]
    for rank in range(ranks):
        got = [(trees[t][rank], set(kids[t][rank])) for t in (0, 1)]
        assert got == nccl_get_dtree(ranks, rank)


@pytest.mark.parametrize("ranks", [*RANKS, 256])
def test_double_binary_trees_are_trees_with_nccls_roots_and_depth(ranks):
    tree0, tree1 = double_binary_tree_parents(ranks)
    root1 = ranks - 1 if ranks % 2 == 0 else min(1, ranks - 1)  # ncclGetDtreeRoots
    assert_is_tree(tree0, 0)
    assert_is_tree(tree1, root1)
    for tree in (tree0, tree1):
        depth = max(hops_to_root(tree, r) for r in range(ranks))
        assert depth == (lg_ceil(ranks) if ranks > 1 else 0)
        assert all(len(k) <= 2 for k in children_lists(tree))


@pytest.mark.parametrize("ranks", range(1, 257))
def test_no_rank_is_interior_in_both_trees(ranks):
    tree0, tree1 = double_binary_tree_parents(ranks)

    def interior(tree):
        return {r for r, k in enumerate(children_lists(tree)) if k and tree[r] != NO_PARENT}

    def with_children(tree):
        return {r for r, k in enumerate(children_lists(tree)) if k}

    assert not interior(tree0) & interior(tree1)
    # Counting the roots too: disjoint when p is even; when p is odd, NCCL's shifted tree makes
    # rank 0 (tree 0's root, which has a single child) interior in tree 1.
    both = with_children(tree0) & with_children(tree1)
    if ranks % 2 == 0 or ranks == 1:
        assert both == set()
    else:
        assert both == {0}
        assert len(children_lists(tree0)[0]) == 1


# -- allreduce / binary_tree ---------------------------------------------------------------


@pytest.mark.parametrize("ranks", [*RANKS, 256])
def test_binary_tree_allreduce_takes_two_steps_per_level(ranks):
    trace = simulate("allreduce", "binary_tree", ranks=ranks, elements=3)
    assert trace.verified
    assert trace.total_steps == 2 * lg_floor(ranks)
    assert trace.chunk_count == 1


@pytest.mark.parametrize("ranks", RANKS)
def test_binary_tree_allreduce_bytes_per_rank(ranks):
    elements = 5
    trace = simulate("allreduce", "binary_tree", ranks=ranks, elements=elements)
    m = elements * ITEMSIZE
    # M up to the parent (all but rank 0) plus M down to each child 2i+1, 2i+2 that exists.
    want = [m * ((i != 0) + sum(c < ranks for c in (2 * i + 1, 2 * i + 2))) for i in range(ranks)]
    assert trace.bytes_sent.tolist() == want
    if ranks >= 5:
        assert trace.bytes_sent[1] == 3 * m  # an interior node: M up, M to each of two children


@pytest.mark.parametrize("ranks", [2, 7, 10, 16])
def test_binary_tree_allreduce_root_is_complete_after_the_reduce_phase(ranks):
    trace = simulate("allreduce", "binary_tree", ranks=ranks, elements=4)
    depth = lg_floor(ranks)
    phases = [s.phase for s in trace.steps]
    assert all("reduce up" in ph for ph in phases[:depth])
    assert all("broadcast down" in ph for ph in phases[depth:])
    assert trace.holdings_at(depth - 1)[(0, 0)] == (1 << ranks) - 1
    leaf = ranks - 1
    assert trace.holdings_at(depth - 1)[(leaf, 0)] == 1 << leaf  # not reached yet
    assert trace.topology == {"kind": "tree", "parent": heap_parents(ranks)}


def test_binary_tree_allreduce_says_why_it_is_not_single_port():
    e = entry("allreduce", "binary_tree")
    assert e["single_port"] is False
    assert "both children" in e["ports_note"]


# -- allreduce / double_binary_tree --------------------------------------------------------


@pytest.mark.parametrize("ranks", [*RANKS, 256])
def test_double_binary_tree_allreduce_takes_two_steps_per_level(ranks):
    trace = simulate("allreduce", "double_binary_tree", ranks=ranks, elements=6)
    assert trace.verified
    # NCCL's tree 0 hangs the whole tree under rank 0's single child: depth ceil(lg p).
    assert trace.total_steps == 2 * lg_ceil(ranks)
    assert trace.chunk_count == 2


@pytest.mark.parametrize("ranks", RANKS)
def test_double_binary_tree_allreduce_bytes_per_rank(ranks):
    elements = 2 * 7
    trace = simulate("allreduce", "double_binary_tree", ranks=ranks, elements=elements)
    m = elements * ITEMSIZE
    trees = double_binary_tree_parents(ranks)  # checked against NCCL's drawings above
    want = [0] * ranks
    for tree in trees:
        kids = children_lists(tree)
        for r in range(ranks):
            # Half the vector up to the parent, and half down to each child.
            want[r] += m // 2 * ((tree[r] != NO_PARENT) + len(kids[r]))
    assert trace.bytes_sent.tolist() == want
    # Each tree moves M/2 over each of its p-1 edges twice; nobody sends more than 2M.
    assert sum(want) == 2 * (ranks - 1) * m
    assert max(want) <= 2 * m


def test_double_binary_tree_allreduce_on_fourteen_ranks_by_hand():
    m = 14 * ITEMSIZE
    trace = simulate("allreduce", "double_binary_tree", ranks=14, elements=14)
    # Rank 8: interior in tree 0 (up to 0, down to 4 and 12) = 3 · M/2; in the mirrored tree it
    # plays rank 5, a leaf: M/2 up. Rank 0: root of tree 0 (one child 8), leaf 13 in tree 1.
    assert trace.bytes_sent[8] == 2 * m
    assert trace.bytes_sent[0] == m


@pytest.mark.parametrize("ranks", [3, 8, 13])
def test_double_binary_tree_roots_finish_their_half_after_the_reduce_phase(ranks):
    trace = simulate("allreduce", "double_binary_tree", ranks=ranks, elements=8)
    depth = lg_ceil(ranks)
    after_reduce = trace.holdings_at(depth - 1)
    full = (1 << ranks) - 1
    tree0, tree1 = trace.topology["parents"]
    assert trace.topology["kind"] == "trees"
    assert after_reduce[(tree0.index(NO_PARENT), 0)] == full
    assert after_reduce[(tree1.index(NO_PARENT), 1)] == full
    assert all("reduce up" in s.phase for s in trace.steps[:depth])
    assert all("broadcast down" in s.phase for s in trace.steps[depth:])


def test_double_binary_tree_runs_both_trees_in_each_step():
    trace = simulate("allreduce", "double_binary_tree", ranks=8, elements=8)
    for step in trace.steps:
        assert {t.chunk for t in step.transfers} == {0, 1}
    assert entry("allreduce", "double_binary_tree")["single_port"] is False


def test_levels_up_sends_every_child_before_its_parent():
    parents = heap_parents(10)
    sent: set[int] = set()
    for level in levels_up(parents):
        for child, parent in level:
            assert parents[child] == parent
            assert set(children_lists(parents)[child]) <= sent
        sent |= {c for c, _ in level}
    assert sent == set(range(1, 10))
