"""The geometry the lab and the embed draw ranks with: every rank placed once per tree, the
edges drawn are the topology's links, and nodes never sit on top of each other."""

from __future__ import annotations

import itertools

import pytest

from app.collectives import catalog, simulate
from app.drawing.geometry import geometry, ring_spots

RANKS = [1, 2, 3, 5, 8, 12, 13, 16, 17, 32, 64]


def runs():
    for e in catalog():
        for p in RANKS:
            if p < e["min_ranks"] or p > e["max_ranks"] or (e["power_of_two"] and p & (p - 1)):
                continue
            most = min(p - 1, e["max_ranks_per_node"] or p)
            g = (
                max((d for d in range(1, most + 1) if p % d == 0), default=1)
                if e["needs_ranks_per_node"]
                else None
            )
            yield pytest.param(
                e["collective"], e["algorithm"], p, g, id=f"{e['collective']}-{e['algorithm']}-{p}"
            )


def links(topology: dict, p: int) -> set[frozenset]:
    """The rank pairs a topology joins, as docs/engine.md § Topology describes them."""
    kind = topology["kind"]
    if kind == "ring" or kind == "circulant":
        order = topology.get("order") or list(range(p))
        return {frozenset((order[i], order[(i + 1) % p])) for i in range(p)} if p > 1 else set()
    if kind == "chain":
        order = topology["order"]
        return {frozenset(pair) for pair in itertools.pairwise(order)}
    if kind in ("tree", "trees"):
        parents = [topology["parent"]] if kind == "tree" else topology["parents"]
        return {
            frozenset((r, q)) for parent in parents for r, q in enumerate(parent) if 0 <= q != r
        }
    if kind == "hypercube":
        folded = {int(k) for k in topology.get("folded", {})}
        members = [r for r in range(p) if r not in folded]
        return {
            frozenset((members[i], members[i ^ (1 << d)]))
            for i in range(len(members))
            for d in range(len(members).bit_length())
            if (i ^ (1 << d)) < len(members)
        }
    if kind == "complete":
        return (
            {frozenset(pair) for pair in itertools.combinations(range(p), 2)} if p <= 8 else set()
        )
    if kind == "switch":  # every rank (NVLS) or every node's head (CollNet) to the switch
        g = topology.get("ranks_per_node") or 1
        chains = {frozenset((r, r + 1)) for r in range(p - 1) if (r + 1) % g}
        return chains | {frozenset((r, p)) for r in range(0, p, g)}
    if kind == "torus":  # rank r at row r // columns: a ring along each row and each column
        rows, columns = topology["rows"], topology["columns"]
        grid = [[row * columns + col for col in range(columns)] for row in range(rows)]
        rings = grid + [list(column) for column in zip(*grid, strict=True)]
        return {
            frozenset((ring[i], ring[(i + 1) % len(ring)]))
            for ring in rings
            for i in range(len(ring))
            if len(ring) > 1
        }
    return set()  # hierarchical: node boxes, no drawn links


@pytest.mark.parametrize(("collective", "algorithm", "p", "g"), list(runs()))
def test_every_rank_is_placed_once_per_tree_and_edges_are_the_topologys_links(
    collective, algorithm, p, g
):
    topology = simulate(collective, algorithm, ranks=p, elements=p, ranks_per_node=g).topology
    geo = geometry(topology, p)
    trees = len(topology["parents"]) if topology["kind"] == "trees" else 1
    ranks = sorted(n["rank"] for n in geo["nodes"] if not n.get("switch"))
    assert ranks == sorted(list(range(p)) * trees)
    switches = [n["rank"] for n in geo["nodes"] if n.get("switch")]
    assert switches == [s["id"] for s in topology.get("switches", [])]
    spots = {(round(n["x"], 6), round(n["y"], 6)) for n in geo["nodes"]}
    assert len(spots) == len(geo["nodes"]), "two ranks drawn on one spot"
    drawn = {frozenset((geo["nodes"][a]["rank"], geo["nodes"][b]["rank"])) for a, b in geo["edges"]}
    assert drawn == links(topology, p)
    folded = {
        frozenset((geo["nodes"][a]["rank"], geo["nodes"][b]["rank"])) for a, b in geo["fold_edges"]
    }
    assert folded == {frozenset((int(k), v)) for k, v in topology.get("folded", {}).items()}
    if topology["kind"] == "hierarchical":
        assert len(geo["boxes"]) == p // g
        for n in geo["nodes"]:
            box = geo["boxes"][n["rank"] // g]
            assert box["x0"] < n["x"] < box["x1"] and box["y0"] < n["y"] < box["y1"]
    if topology["kind"] == "trees":
        assert [label["text"] for label in geo["labels"]] == ["tree 1", "tree 2"]


@pytest.mark.parametrize("count", range(1, 40))
def test_ring_spots_put_ring_neighbours_side_by_side(count):
    """The comb (along the top row, back and forth below it) joins touching spots; the way back
    up the first column leaves the spare spots out."""
    grid = ring_spots(count, 5)
    spots, cols, rows = grid["spots"], grid["cols"], grid["rows"]
    assert len({(s["col"], s["row"]) for s in spots}) == count
    assert all(0 <= s["col"] < cols and 0 <= s["row"] < rows for s in spots)
    comb = spots[: cols + (rows - 1) * (cols - 1)]
    for a, b in itertools.pairwise(comb):
        assert abs(a["col"] - b["col"]) + abs(a["row"] - b["row"]) == 1
    assert all(s["col"] == 0 for s in spots[len(comb) :])


def test_wide_trees_are_spread_for_the_stated_aspect():
    parent = [-1] + [0] * 15  # one root, 16 leaves: wide and shallow
    flat = geometry({"kind": "tree", "parent": parent}, 16, aspect=1.0)
    wide = geometry({"kind": "tree", "parent": parent}, 16, aspect=10.0)
    assert flat["nodes"][1]["y"] == pytest.approx(-15 / 2)  # 15 leaves across, 2 levels, aspect 1
    assert wide["nodes"][1]["y"] == pytest.approx(-1.2)  # never closer than 1.2 between levels
