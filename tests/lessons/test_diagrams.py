"""Diagrams: SVG drawn from the engine's data, accessible, and in the site's palette."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from app.collectives import trees
from app.lessons.diagrams import (
    KINDS,
    RANK_FILLED,
    DiagramError,
    chunk_color,
    chunk_label,
    render_diagram,
)

ROOT = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"


def draw(kind: str, **params) -> ET.Element:
    diagram = render_diagram(kind, {k: str(v) for k, v in params.items()}, "t")
    return ET.fromstring(diagram.svg)


def texts(svg: ET.Element, cls: str | None = None) -> list[str]:
    return [t.text for t in svg.iter(f"{SVG}text") if cls is None or cls in t.get("class", "")]


def desc(svg: ET.Element) -> str:
    return svg.find(f"{SVG}desc").text


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_is_well_formed_and_accessible(kind):
    svg = draw(kind)  # the defaults
    assert svg.get("role") == "img"
    title_id, desc_id = svg.get("aria-labelledby").split()
    assert svg.find(f"{SVG}title").get("id") == title_id and svg.find(f"{SVG}title").text
    assert svg.find(f"{SVG}desc").get("id") == desc_id and len(desc(svg)) > 40
    assert svg.get("viewBox").startswith("0 0 ")
    # Every marker an element points at is defined in this SVG.
    defined = {m.get("id") for m in svg.iter(f"{SVG}marker")}
    used = {
        re.match(r"url\(#(.*)\)", e.get("marker-end")).group(1)
        for e in svg.iter()
        if e.get("marker-end")
    }
    assert used <= defined


def test_unknown_kind_and_unknown_parameters_are_errors():
    kinds = "kinds: ring, ring-steps, tree"
    with pytest.raises(DiagramError, match=f"unknown diagram kind 'star'; {kinds}"):
        render_diagram("star", {}, "t")
    with pytest.raises(DiagramError, match=r"tree: unknown parameter\(s\) depth; allowed: "):
        render_diagram("tree", {"depth": "3"}, "t")
    with pytest.raises(DiagramError, match="tree: ranks must be an integer in 1..32, got 'many'"):
        render_diagram("tree", {"ranks": "many"}, "t")


# -- ring: one step of the engine's ring allreduce --------------------------------------------


def test_ring_without_a_phase_shows_each_rank_its_chunks():
    svg = draw("ring", ranks=4)
    assert [t for t in texts(svg) if t.startswith("r")] == ["r0", "r1", "r2", "r3"]
    assert texts(svg).count("A") == 4  # chunk A in each rank's buffer
    assert "r3 to r0" in desc(svg)


@pytest.mark.parametrize("step", [1, 2, 3])
def test_ring_reduce_scatter_step_matches_the_engine(step):
    p = 4
    svg = draw("ring", ranks=p, phase="reduce-scatter", step=step)
    for r in range(p):
        chunk = chunk_label((r - (step - 1)) % p)
        assert f"r{r} sends chunk {chunk} to r{(r + 1) % p}" in desc(svg)
    cells = [e for e in svg.iter(f"{SVG}rect") if "dg-cell" in e.get("class")]
    full = [e for e in cells if "dg-full" in e.get("class")]
    assert len(cells) == p * p
    assert len(full) == (p if step == p - 1 else 0)  # after p-1 steps each rank owns one chunk


def test_ring_allgather_last_step_leaves_every_copy_complete():
    svg = draw("ring", ranks=4, phase="allgather", step=3)
    cells = [e for e in svg.iter(f"{SVG}rect") if "dg-cell" in e.get("class")]
    assert all("dg-full" in e.get("class") for e in cells)
    assert "r0 sends chunk" in desc(svg) and "stores it" in desc(svg)


def test_ring_step_must_be_in_range():
    with pytest.raises(DiagramError, match="ring: step must be an integer in 1..3, got '4'"):
        render_diagram("ring", {"ranks": "4", "phase": "allgather", "step": "4"}, "t")


# -- trees: shapes from app.collectives.trees --------------------------------------------------


def edges_in(svg: ET.Element) -> int:
    return sum(1 for e in svg.iter(f"{SVG}line") if e.get("marker-end"))


@pytest.mark.parametrize(("ranks", "root"), [(8, 0), (6, 2), (13, 5), (1, 0)])
def test_binomial_tree_follows_mpich(ranks, root):
    svg = draw("tree", shape="binomial", ranks=ranks, root=root)
    assert edges_in(svg) == ranks - 1
    parents = trees.binomial_parents(ranks, root)
    children = trees.children_lists(parents)
    for r, kids in enumerate(children):
        if kids:
            assert f"r{r} to {', '.join(f'r{k}' for k in kids)}" in desc(svg)
    depth = trees.tree_depth(parents)
    assert f"depth {depth}" in desc(svg)
    rounds = {t for t in texts(svg) if t.isdigit()}
    assert rounds == {str(i) for i in range(1, trees.ceil_log2(ranks) + 1)}


def test_binary_tree_rotates_to_its_root():
    svg = draw("tree", shape="binary", ranks=7, root=2)
    assert "root r2" in svg.find(f"{SVG}title").text
    assert "r2 to r3, r4" in desc(svg)  # heap children of position 0 are positions 1 and 2
    assert edges_in(svg) == 6


@pytest.mark.parametrize("ranks", [2, 5, 8, 16, 31])
def test_double_binary_tree_interiors_never_overlap(ranks):
    svg = draw("double-binary-tree", ranks=ranks)
    tree0, tree1 = trees.double_binary_tree_parents(ranks)
    assert f"rooted at r{tree0.index(-1)} and r{tree1.index(-1)}" in desc(svg)
    assert "No rank is interior in both trees." in desc(svg)
    assert edges_in(svg) == 2 * (ranks - 1)
    filled = [c for c in svg.iter(f"{SVG}circle") if c.get("fill") == RANK_FILLED]
    interior = sum(
        1
        for parents in (tree0, tree1)
        for r, kids in enumerate(trees.children_lists(parents))
        if kids and parents[r] >= 0
    )
    assert len(filled) == interior


# -- hypercube, nodes ----------------------------------------------------------------------------


@pytest.mark.parametrize(("ranks", "dims"), [(2, 1), (4, 2), (8, 3), (16, 4)])
def test_hypercube_has_p_log_p_over_2_links_and_labels_each_dimension(ranks, dims):
    svg = draw("hypercube", ranks=ranks)
    links = [e for e in svg.iter(f"{SVG}line") if "dg-link" in e.get("class")]
    legend = [t for t in texts(svg) if t.startswith("dim ")]
    assert legend == [f"dim {k}: r XOR {1 << k}" for k in range(dims)]
    assert len(links) == ranks * dims // 2 + dims  # the cube's edges, then one legend swatch each
    assert "r0-r1" in desc(svg)


def test_hypercube_highlights_one_step_and_rejects_non_powers_of_two():
    svg = draw("hypercube", ranks=8, step=2)
    idle = [e for e in svg.iter(f"{SVG}line") if "dg-idle" in e.get("class")]
    assert len(idle) == 8  # dimensions 0 and 2 dimmed: 4 links each
    with pytest.raises(DiagramError, match="power of two"):
        render_diagram("hypercube", {"ranks": "12"}, "t")


def test_hierarchical_draws_every_gpu_and_one_rail_per_local_index():
    svg = draw("hierarchical", nodes=3, gpus=4)
    gpus = [e for e in svg.iter(f"{SVG}rect") if "dg-gpu" in e.get("class")]
    assert len(gpus) == 12
    assert [t for t in texts(svg) if t.startswith("r")] == [f"r{i}" for i in range(12)]
    assert "4 rails of 3 GPUs each" in desc(svg)


def test_hierarchical_colours_a_gpu_by_the_shard_it_owns_and_says_so():
    """Colour means a chunk everywhere (palette.js): GPU i of every node owns shard i."""
    svg = draw("hierarchical", nodes=2, gpus=4)
    fills = [e.get("fill") for e in svg.iter(f"{SVG}rect") if "dg-gpu" in e.get("class")]
    assert fills == [chunk_color(g) for g in range(4)] * 2
    caption = render_diagram("hierarchical", {"nodes": "2", "gpus": "4"}, "t").caption
    assert "colour is the shard it owns" in caption


def test_node_draws_the_server_and_says_when_there_is_no_nvlink():
    svg = draw("node", gpus=8, nics=4, nvswitch="yes", pcie=4)
    assert sum(t.startswith("GPU") for t in texts(svg)) == 8
    assert sum(t.startswith("NIC") for t in texts(svg)) == 4
    assert any("NVSwitch" in t for t in texts(svg))
    bare = draw("node", gpus=4, nics=0, nvswitch="no", pcie=2)
    assert not any("NVSwitch" in t for t in texts(bare))
    assert "There is no NVLink" in desc(bare)
    with pytest.raises(DiagramError, match=r"node: pcie \(4\) cannot exceed gpus \(2\)"):
        render_diagram("node", {"gpus": "2", "pcie": "4"}, "t")
