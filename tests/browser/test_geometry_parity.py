"""The Python geometry (app/drawing/geometry.py) places every rank where the old JavaScript one
(static/js/lab-geometry.js) did: both run on the topology of every catalog entry at 1..17, 32
and 64 ranks (hierarchical at every node size), and the results are compared in Chromium.

It proves the port before the JavaScript copy is deleted; tests/drawing/test_geometry.py keeps
the geometry's invariants once it is gone.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from app.collectives import catalog, simulate
from app.drawing.geometry import TREE_ASPECT, geometry

pytestmark = pytest.mark.browser

OLD_JS = Path(__file__).parents[2] / "static" / "js" / "lab-geometry.js"
RANKS = [*range(1, 18), 32, 64]
SHIM = """
window.CollectiveLab = {views: {
  range: (n) => Array.from({length: n}, (_, i) => i),
  isRound: (k) => !k || ["ring", "circulant", "complete"].includes(k),
}};
"""
RUN_ALL = """([cases, aspect]) => cases.map(([topology, p]) => {
  const g = window.CollectiveLab.views.geometry({p, start: {layout: {topology}}}, aspect);
  return {kind: g.kind, nodes: g.nodes, edges: g.edges, fold_edges: g.foldEdges,
          boxes: g.boxes, labels: g.labels, unit: g.unit};
})"""


def topologies() -> list[tuple[str, dict, int]]:
    """Every catalog entry's topology at each rank count it allows."""
    out = []
    for e in catalog():
        for p in RANKS:
            if p < e["min_ranks"] or (e["power_of_two"] and p & (p - 1)):
                continue
            node_sizes = (
                [g for g in range(1, p + 1) if p % g == 0] if e["needs_ranks_per_node"] else [None]
            )
            roots = sorted({0, p - 1}) if e["uses_root"] else [0]
            for g in node_sizes:
                for root in roots:
                    t = simulate(
                        e["collective"],
                        e["algorithm"],
                        ranks=p,
                        elements=p,
                        root=root,
                        ranks_per_node=g,
                    )
                    name = f"{e['collective']}/{e['algorithm']} p={p} g={g} root={root}"
                    out.append((name, t.topology, p))
    return out


def same(a, b, path="") -> list[str]:
    """List where two JSON-like values differ (numbers to 1e-9)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f"{path}: keys {sorted(a)} != {sorted(b)}"]
        return [d for k in a for d in same(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items != {len(b)}"]
        return [
            d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in same(x, y, f"{path}[{i}]")
        ]
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return [] if math.isclose(a, b, abs_tol=1e-9) else [f"{path}: {a} != {b}"]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def test_python_geometry_matches_the_javascript_one(browser):
    cases = topologies()
    assert len(cases) > 500
    page = browser.new_page()
    try:
        page.set_content("<!doctype html><title>geometry</title>")
        page.add_script_tag(content=SHIM)
        page.add_script_tag(content=OLD_JS.read_text())
        old = page.evaluate(RUN_ALL, [[[t, p] for _, t, p in cases], TREE_ASPECT])
    finally:
        page.close()
    kinds = set()
    for (name, topology, p), js in zip(cases, old, strict=True):
        py = geometry(topology, p)
        kinds.add(py["kind"])
        diffs = same(py, js)
        assert not diffs, f"{name}: {diffs[:5]}"
    assert kinds == {
        "ring",
        "chain",
        "tree",
        "trees",
        "hypercube",
        "hierarchical",
        "circulant",
        "complete",
    }
