"""Where each rank of a run sits, per topology kind (docs/engine.md § Topology), in plot units.

`geometry(topology, ranks)` → {kind, note, nodes, edges, fold_edges, boxes, labels, unit}:
note: the kind in words (the view's subtitle);
nodes {rank, x, y} (and `tree` for one of two trees; `switch`, its name, for a switch, whose
`rank` is its id, p or more); edges and fold_edges: index pairs into
nodes; boxes: the nodes of a hierarchical layout {x0, x1, y0, y1, label}; labels: the titles of
two trees {text, left, root: {x, y}}; unit: the distance between neighbours. y grows upwards.

The server is the one authority for it: the lab's topology view draws the nodes it is sent
(static/js/lab-topology.js), and the embed paints the same nodes as its first picture before
any script runs (`app.drawing.step0`). Trees are spread for a plot of width / height
`TREE_ASPECT`; the views keep one scale on both axes, so another box only letterboxes them.
"""

from __future__ import annotations

import math

from app.i18n import DEFAULT, N_
from app.i18n.catalog import translate

# The width / height the tree levels are spread for: an embed's or the lab's topology box.
TREE_ASPECT = 1.4
# Decimals kept of a coordinate: a ten-thousandth of the rank spacing is far below a pixel, and
# the geometry travels in every sim_start.
DECIMALS = 4
ROUND = frozenset({"ring", "circulant", "complete"})
# What each kind of topology is, in the topology view's subtitle.
NOTES = {
    "ring": N_("ring"),
    "chain": N_("chain (pipeline)"),
    "tree": N_("tree"),
    "trees": N_("two trees"),
    "hypercube": N_("hypercube (pairs differ in one bit)"),
    "circulant": N_("circulant: distances 1, 2, 4, …"),
    "hierarchical": N_("nodes with GPUs inside"),
    "torus": N_("2D torus: a ring along each row and down each column"),
    "complete": N_("every rank to every rank"),
    "switch": N_("every rank to the switch, which adds"),
}
# A hypercube's first three dimensions: right, down, and a diagonal for depth.
CUBE = ((1.0, 0.0), (0.0, -1.0), (0.5, 0.42))


def is_round(kind: str | None) -> bool:
    """Say whether a topology is drawn with its ranks on a circle (no kind: all to all)."""
    return not kind or kind in ROUND


def _circle(order: list[int], radius: float) -> list[dict]:
    n = len(order)
    out = []
    for i, rank in enumerate(order):
        a = 2 * math.pi * i / n
        out.append({"rank": rank, "x": radius * math.sin(a), "y": radius * math.cos(a)})
    return out


def _is_root(parent: list[int], r: int, p: int) -> bool:
    q = parent[r]
    return not (0 <= q < p and q != r)


def tree_layout(parent: list[int], p: int) -> dict:
    """Place a tree's leaves in order, each parent over the middle of its children."""
    children: list[list[int]] = [[] for _ in range(p)]
    roots = []
    for r, q in enumerate(parent):
        (roots if _is_root(parent, r, p) else children[q]).append(r)
    x = [0.0] * p
    depth = [0] * p
    seen: set[int] = set()
    state = {"leaf": 0, "max_depth": 0}

    def visit(r: int, d: int) -> None:
        if r in seen:
            return
        seen.add(r)
        depth[r] = d
        state["max_depth"] = max(state["max_depth"], d)
        kids = [c for c in children[r] if c not in seen]
        if not kids:
            x[r] = state["leaf"]
            state["leaf"] += 1
            return
        for c in kids:
            visit(c, d + 1)
        x[r] = (x[kids[0]] + x[kids[-1]]) / 2

    for r in roots + list(range(p)):  # then anything a cycle left out
        visit(r, 0)
    return {"x": x, "depth": depth, "width": max(state["leaf"], 1), "max_depth": state["max_depth"]}


def ring_spots(count: int, max_cols: int) -> dict:
    """Grid spots for `count` things in ring order, ring neighbours side by side.

    Along the top row, back and forth over the other columns (a comb), and up the first column
    to the start, at most `max_cols` per row. Spare spots are left on the way back up.
    """
    if count <= 2:
        return {
            "cols": max(count, 1),
            "rows": 1,
            "spots": [{"col": i, "row": 0} for i in range(count)],
        }
    rows = math.ceil(count / max(2, max_cols))
    rows += rows % 2  # the comb closes only over an even number of rows
    cols = max(2, math.ceil(count / rows))
    path = [{"col": col, "row": 0} for col in range(cols)]
    for row in range(1, rows):
        along = list(range(1, cols))
        if row % 2:
            along.reverse()
        path += [{"col": col, "row": row} for col in along]
    back = [{"col": 0, "row": row} for row in range(rows - 1, 0, -1)]
    spare = rows * cols - count
    return {"cols": cols, "rows": rows, "spots": path + back[spare:]}


def _round(geo: dict, topo: dict, order: list[int], p: int) -> None:
    """Ring, circulant and complete: the ranks on a circle, in the topology's order."""
    geo["nodes"] = _circle(order, 1)
    geo["unit"] = 2 * math.sin(math.pi / p) if p > 1 else 1
    if topo["kind"] == "complete":
        if p <= 8:  # past 8, every-to-every lines are a grey disc
            geo["edges"] = [[i, j] for i in range(p) for j in range(i + 1, p)]
    elif p >= 2:
        geo["edges"] = [[i, (i + 1) % p] for i in range(p)]


def _chain(geo: dict, order: list[int], p: int) -> None:
    """A pipeline: one row, or rows of 8 that snake back and forth."""
    row = p if p <= 12 else 8
    for i, rank in enumerate(order):
        r, c = divmod(i, row)
        geo["nodes"].append({"rank": rank, "x": row - 1 - c if r % 2 else c, "y": -r * 1.1})
    geo["edges"] = [[i, i + 1] for i in range(p - 1)]


def _trees(geo: dict, topo: dict, p: int, aspect: float, lang: str) -> None:
    """One tree, or two (every rank in each): side by side while narrow, stacked once wide."""
    parents = [topo["parent"]] if topo["kind"] == "tree" else topo["parents"]
    lays = [tree_layout(parent, p) for parent in parents]
    width = max(lay["width"] for lay in lays)
    levels = max(lay["max_depth"] + 1 for lay in lays)
    stacked = len(parents) > 1 and width > 8
    across, down = (1, len(parents)) if stacked else (len(parents), 1)
    dy = max(1.2, across * width / (aspect * down * levels))
    dx, top = 0.0, 0.0
    for t, (parent, lay) in enumerate(zip(parents, lays, strict=True)):
        base = len(geo["nodes"])
        for r in range(p):
            geo["nodes"].append(
                {"rank": r, "x": dx + lay["x"][r], "y": top - lay["depth"][r] * dy, "tree": t}
            )
        geo["edges"] += [
            [base + r, base + q] for r, q in enumerate(parent) if not _is_root(parent, r, p)
        ]
        if len(parents) > 1:
            root = next(r for r in range(p) if _is_root(parent, r, p))
            geo["labels"].append(
                {
                    "text": translate(lang, N_("tree %(n)s"), n=t + 1),
                    "left": dx,
                    "root": {"x": dx + lay["x"][root], "y": top},
                }
            )
        if stacked:
            top -= (lay["max_depth"] + 1) * dy + dy * 0.6
        else:
            dx += lay["width"] + 1.5


def cube_spot(i: int, dims: int) -> tuple[float, float]:
    """Where member i of a `dims`-dimensional hypercube sits: three bits draw a cube, each
    further three repeat it three times larger and turned 30°, so no link runs over a node."""
    x = y = 0.0
    for d in range(dims):
        if not (i >> d) & 1:
            continue
        level = d // 3
        bx, by = CUBE[d % 3]
        s, a = 3.0**level, level * math.pi / 6
        x += s * (bx * math.cos(a) - by * math.sin(a))
        y += s * (bx * math.sin(a) + by * math.cos(a))
    return x, y


def _hypercube(geo: dict, topo: dict, p: int) -> None:
    """A hypercube over the largest power of two; each extra rank just above its partner."""
    folded = {int(k): int(v) for k, v in (topo.get("folded") or {}).items()}
    members = [r for r in range(p) if r not in folded]
    dims = int(math.floor(math.log2(max(1, len(members))) + 0.5))
    index = {}
    for i, r in enumerate(members):
        index[r] = len(geo["nodes"])
        x, y = cube_spot(i, dims)
        geo["nodes"].append({"rank": r, "x": x, "y": y})
    for i, r in enumerate(members):
        for d in range(dims):
            j = i ^ (1 << d)
            if i < j < len(members):
                geo["edges"].append([index[r], index[members[j]]])
    for extra in sorted(folded):
        q = geo["nodes"][index[folded[extra]]]
        index[extra] = len(geo["nodes"])
        geo["nodes"].append({"rank": extra, "x": q["x"], "y": q["y"] + 0.5})
        geo["fold_edges"].append([index[extra], index[folded[extra]]])
    geo["unit"] = 0.45 if folded else 0.62


def _hierarchical(geo: dict, topo: dict, p: int, lang: str) -> None:
    """Nodes with GPUs inside; both rings (GPUs in a node, nodes in the cluster) laid out so
    ring neighbours, the last and the first included, sit side by side."""
    g = topo.get("ranks_per_node") or p
    n = topo.get("nodes") or math.ceil(p / g)
    inner = ring_spots(g, 2 if g <= 4 else 4 if g <= 8 else math.ceil(math.sqrt(g)))
    outer = ring_spots(n, math.ceil(math.sqrt(n)))
    box_w, box_h, gap = inner["cols"] + 0.4, inner["rows"] + 0.6, 1.0
    for node, spot in enumerate(outer["spots"]):
        bx, by = spot["col"] * (box_w + gap), -spot["row"] * (box_h + gap)
        geo["boxes"].append(
            {"x0": bx - 0.7, "x1": bx - 0.7 + box_w, "y0": by + 0.7 - box_h, "y1": by + 0.7}
            | {"label": translate(lang, N_("node %(n)s"), n=node)}
        )
        for local, s in enumerate(inner["spots"]):
            if node * g + local < p:
                geo["nodes"].append(
                    {"rank": node * g + local, "x": bx + s["col"], "y": by - s["row"]}
                )


def _switch(geo: dict, topo: dict, p: int, lang: str) -> None:
    """Ranks around the switch that adds (NVLS), or nodes with a chain inside each and their
    heads under the switch (CollNet). A switch is a node {rank: its id, switch: its name}."""
    switches = topo.get("switches") or []
    if topo.get("ranks_per_node"):
        g = topo["ranks_per_node"]
        _hierarchical(geo, topo, p, lang)
        geo["edges"] = [[r, r + 1] for r in range(p - 1) if (r + 1) % g]  # the chains
        top = max(b["y1"] for b in geo["boxes"])
        left = min(b["x0"] for b in geo["boxes"])
        right = max(b["x1"] for b in geo["boxes"])
        spot = ((left + right) / 2, top + 1.6)
        heads = range(0, p, g)
    else:
        geo["nodes"] = _circle(list(range(p)), 1)
        geo["unit"] = 2 * math.sin(math.pi / p) if p > 1 else 1
        spot, heads = (0.0, 0.0), range(p)
    for switch in switches:
        geo["nodes"].append(
            {"rank": switch["id"], "x": spot[0], "y": spot[1], "switch": switch["name"]}
        )
        hub = len(geo["nodes"]) - 1
        geo["edges"] += [[r, hub] for r in heads]


def torus_links(rows: int, columns: int) -> set[tuple[int, int]]:
    """Return the rank pairs (low, high) of a rows x columns torus: each row and column a ring."""
    pairs = set()
    for r in range(rows * columns):
        row, col = divmod(r, columns)
        for q in (row * columns + (col + 1) % columns, (row + 1) % rows * columns + col):
            if q != r:
                pairs.add((min(r, q), max(r, q)))
    return pairs


def _torus(geo: dict, topo: dict, p: int) -> None:
    """The grid: rank r at row r // columns, column r % columns; wrap-around links included."""
    columns = topo["columns"]
    for r in range(p):
        row, col = divmod(r, columns)
        geo["nodes"].append({"rank": r, "x": col, "y": -row})
    geo["edges"] = [list(pair) for pair in sorted(torus_links(topo["rows"], columns))]


def geometry(
    topology: dict | None, ranks: int, aspect: float = TREE_ASPECT, lang: str = DEFAULT
) -> dict:
    """Return where the ranks of a run on `topology` sit (see the module docstring); its words
    (the note, trees' and nodes' labels) in `lang`."""
    topo = topology or {"kind": "complete"}
    kind = topo.get("kind")
    p = ranks
    note = NOTES.get(kind or "complete")
    geo: dict = {"kind": kind, "note": translate(lang, note) if note else kind, "unit": 1}
    geo |= {"nodes": [], "edges": [], "fold_edges": [], "boxes": [], "labels": []}
    order = topo.get("order")
    order = list(order) if order and len(order) == p else list(range(p))
    if is_round(kind):
        _round(geo, {**topo, "kind": kind or "complete"}, order, p)
    elif kind == "chain":
        _chain(geo, order, p)
    elif kind in ("tree", "trees"):
        _trees(geo, topo, p, aspect, lang)
    elif kind == "hypercube":
        _hypercube(geo, topo, p)
    elif kind == "hierarchical":
        _hierarchical(geo, topo, p, lang)
    elif kind == "switch":
        _switch(geo, topo, p, lang)
    elif kind == "torus":
        _torus(geo, topo, p)
    return _rounded(geo)


def _rounded(geo: dict) -> dict:
    """Round every coordinate to `DECIMALS` places (whole numbers stay ints)."""

    def r(v: float) -> float | int:
        v = round(v, DECIMALS) + 0.0  # + 0.0: no -0.0
        return int(v) if v.is_integer() else v

    for n in geo["nodes"]:
        n["x"], n["y"] = r(n["x"]), r(n["y"])
    for b in geo["boxes"]:
        b.update({k: r(b[k]) for k in ("x0", "x1", "y0", "y1")})
    for label in geo["labels"]:
        label["left"] = r(label["left"])
        label["root"] = {"x": r(label["root"]["x"]), "y": r(label["root"]["y"])}
    geo["unit"] = r(geo["unit"])
    return geo
