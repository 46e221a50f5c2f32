"""The picture of a run before its first step, as data a template draws (templates/lab/_step0.html).

The embed paints it from the HTML, before any script loads (docs/lab.md § Embed): the topology
view (ranks where `geometry` puts them, the links, node boxes, tree titles) and the buffer grid
(rank × chunk, or rank × destination for all_to_all, each cell coloured by how many
contributions it holds, and outlined where the result must end), sized as the Plotly views
that replace it will draw them (static/js/lab-topology.js, lab-buffer.js).

Sizes that the views fix in pixels (disc size, label spacing) are worked out for a nominal box
of `BOX_PX`; the picture then scales with its box, keeping one scale on both axes as the view
does.
"""

from __future__ import annotations

import math

from app.collectives import COLLECTIVES, Trace, chunk_label, ranks_in

from .geometry import geometry, is_round
from .palette import count_color, rank_tone

BOX_PX = (400, 320)  # width, height: an embed's topology box in a 760 × 520 frame
MARGIN_PX = 8  # the views' plot margin
TITLE_PX = 13  # tree titles
TEXT_WIDTH_EM = 0.56  # a character's width in the page's sans-serif, roughly
GOAL_OUTLINES = 256  # more goal cells than this are not outlined (as the buffer view)


def _n(v: float) -> float | int:
    """A coordinate as the SVG writes it: four decimals, whole numbers as ints."""
    v = round(v, 4) + 0.0
    return int(v) if v.is_integer() else v


def tick_step(n: int, most: int) -> int:
    """Label every k-th row or column, k a power of two, so that at most `most` labels show."""
    k = 1
    while n / k > most:
        k *= 2
    return k


def _ranges(geo: dict) -> tuple[list[float], list[float]]:
    """The plot's x and y ranges: every node and box, padded as the topology view pads them."""
    xs = [n["x"] for n in geo["nodes"]] + [v for b in geo["boxes"] for v in (b["x0"], b["x1"])]
    ys = [n["y"] for n in geo["nodes"]] + [v for b in geo["boxes"] for v in (b["y0"], b["y1"])]
    span = max(max(xs) - min(xs), max(ys) - min(ys), 1)
    pad = max(geo["unit"] * 0.35, 0.08 * span)
    return [min(xs) - pad, max(xs) + pad], [min(ys) - pad, max(ys) + pad]


def _scale(geo: dict, xr: list[float], yr: list[float]) -> tuple[float, float]:
    """Pixels per plot unit in the nominal box, and the disc's diameter in pixels."""
    w, h = (v - 2 * MARGIN_PX for v in BOX_PX)
    ppu = min(w / (xr[1] - xr[0]), h / (yr[1] - yr[0]))
    spacing = geo["unit"] * ppu
    return ppu, max(min(9, spacing * 0.7), min(32, spacing * 0.42))


def _titles(geo: dict, xr: list[float], ppu: float, node_px: float) -> list[dict]:
    """Each tree's title on its root's row, left of the root; the range widens to fit it."""
    out = []
    gap = (node_px / 2 + 12) / ppu
    for label in geo["labels"]:
        width = len(label["text"]) * TEXT_WIDTH_EM * TITLE_PX / ppu
        x = min(label["left"], label["root"]["x"] - gap - width)
        xr[0] = min(xr[0], x - 6 / ppu)
        out.append({"x": _n(x), "y": _n(-label["root"]["y"]), "text": label["text"]})
    return out


def _side_labels(geo: dict, p: int, ppu: float, node_px: float) -> list[dict]:
    """Rank numbers beside discs too small to hold them: every k-th rank, ~18 px apart."""
    every = 1
    while every < p and geo["unit"] * ppu * every < 18:
        every *= 2
    off = (node_px / 2 + 8) / ppu
    out = []
    for n in geo["nodes"]:
        if n["rank"] % every:
            continue
        if is_round(geo["kind"]):
            length = math.hypot(n["x"], n["y"]) or 1
            x, y = n["x"] + n["x"] / length * off * 1.2, n["y"] + n["y"] / length * off * 1.2
        else:
            x, y = n["x"], n["y"] + off
        out.append({"x": _n(x), "y": _n(-y), "text": str(n["rank"])})
    return out


def _segment(a: dict, b: dict) -> dict:
    """A link between two nodes, y down, with the ranks it joins."""
    return {
        "x1": _n(a["x"]), "y1": _n(-a["y"]), "x2": _n(b["x"]), "y2": _n(-b["y"]),
        "ranks": f"{a['rank']}-{b['rank']}",
    }  # fmt: skip


def topology(trace: Trace, theme: str) -> dict:
    """The topology view at step 0: SVG coordinates (y down) and sizes in plot units."""
    geo = geometry(trace.topology, trace.ranks)
    xr, yr = _ranges(geo)
    ppu, node_px = _scale(geo, xr, yr)
    titles = _titles(geo, xr, ppu, node_px)
    nodes = geo["nodes"]
    inside = node_px >= 18
    return {
        "kind": geo["kind"],
        "note": geo["note"],
        "view_box": " ".join(str(_n(v)) for v in (xr[0], -yr[1], xr[1] - xr[0], yr[1] - yr[0])),
        "r": _n(node_px / 2 / ppu),
        "px": _n(1 / ppu),  # one pixel of the nominal box, in plot units
        "tone": rank_tone(theme),
        "inside": inside,
        "edge_px": 1 if trace.ranks > 32 else 1.5,
        "nodes": [
            {"rank": n["rank"], "x": _n(n["x"]), "y": _n(-n["y"]), "tree": n.get("tree")}
            for n in nodes
        ],
        "edges": [_segment(nodes[a], nodes[b]) for a, b in geo["edges"]],
        "folds": [_segment(nodes[a], nodes[b]) for a, b in geo["fold_edges"]],
        "boxes": [
            {
                "x": _n(b["x0"]),
                "y": _n(-b["y1"]),
                "w": _n(b["x1"] - b["x0"]),
                "h": _n(b["y1"] - b["y0"]),
                "label": b["label"],
            }
            for b in geo["boxes"]
        ],  # fmt: skip
        "titles": titles,
        "side_labels": [] if inside else _side_labels(geo, trace.ranks, ppu, node_px),
        "font": _n((13 if node_px > 24 else 11) / ppu),
        "small_font": _n(10 / ppu),
        "title_font": _n(TITLE_PX / ppu),
        "box_font": _n(12 / ppu),
    }


def goal_cells(trace: Trace) -> list[list[int]]:
    """The grid cells [rank, column] where the result must end, in order; none when every cell
    ends complete, or when there are more than GOAL_OUTLINES (too many to outline). The one
    copy of this rule: the page's buffer view reads it from `sim_start`'s layout."""
    p = trace.ranks
    if trace.collective == "all_to_all":
        cells = {(r, r) for r in range(p)}
    elif COLLECTIVES[trace.collective].root_only_output:
        cells = {(trace.root, c) for c in range(len(trace.chunks))}
    elif any(d is not None for d in trace.chunk_dest):
        cells = {(d, c) for c, d in enumerate(trace.chunk_dest) if d is not None}
    elif trace.collective == "sendrecv":
        cells = {(r, c) for r in range(1, p) for c in range(len(trace.chunks))}
    else:
        cells = set()
    return [list(cell) for cell in sorted(cells)] if len(cells) <= GOAL_OUTLINES else []


def _counts(trace: Trace, cols: int, a2a: bool, top: int) -> list[list[int | None]]:
    """What each grid cell shows at step 0: contributions held (or 1 when only arrival
    counts), for all_to_all how many blocks meant for that destination the rank holds; None
    for an empty cell."""
    p, held = trace.ranks, trace.initial_holdings
    z: list[list[int | None]] = [[None] * cols for _ in range(p)]
    for (rank, chunk), mask in held.items():
        n = len(ranks_in(mask))
        if not n:
            continue
        if a2a:
            c = chunk % p
            z[rank][c] = (z[rank][c] or 0) + 1
        else:
            z[rank][chunk] = n if top > 1 else 1
    return z


def grid(trace: Trace, theme: str) -> dict:
    """The buffer grid at step 0: rows of cells, equal neighbours merged into one span."""
    p = trace.ranks
    a2a = trace.collective == "all_to_all"
    cols = p if a2a else len(trace.chunks)
    top = p if a2a or COLLECTIVES[trace.collective].reduces else 1
    z = _counts(trace, cols, a2a, top)
    goal = {(r, c) for r, c in goal_cells(trace)}
    gaps = cols <= 32
    small = p > 16 or cols > 24
    rows = []
    for r in range(p):
        cells: list[dict] = []
        for c in range(cols):
            key = (z[r][c], (r, c) in goal)
            if cells and not gaps and cells[-1]["key"] == key:
                cells[-1]["span"] += 1
                continue
            cells.append(_cell(c, z[r][c], key[1], top))
        rows.append([_styled(cell) for cell in cells])
    every_c, every_r = tick_step(cols, 16), tick_step(p, 24)
    col_label = (lambda c: f"→r{c}") if a2a else chunk_label
    return {
        "rows": rows,
        "cols": cols,
        "ranks": p,
        "top": top,
        "gaps": gaps,
        "numbers": not small and top > 1,
        "col_labels": [col_label(c) if c % every_c == 0 else "" for c in range(cols)],
        "row_labels": [f"r{r}" if r % every_r == 0 else "" for r in range(p)],
        "scale": top > 1,
        "scale_title": "blocks arrived" if a2a else "k of p",
        "ticks": sorted({0, top / 2, top}, reverse=True),
        "what": "rank × destination" if a2a else "rank × chunk",
        "theme": theme,
    }


def _cell(col: int, z: int | None, goal: bool, top: int) -> dict:
    """One cell (or the first of a span): its count, colour, text ink, and outline."""
    color = count_color(z, top) if z is not None else None
    return {
        "key": (z, goal), "col": col, "span": 1, "z": z, "goal": goal,
        "cls": " ".join(n for n, on in (("s0-cell", z is not None), ("s0-goal", goal)) if on),
        "paint": f"background: {color}; color: {_ink(color)}" if color else "",
    }  # fmt: skip


def _styled(cell: dict) -> dict:
    span = f"grid-column: span {cell['span']}" if cell["span"] > 1 else ""
    cell["style"] = "; ".join(v for v in (span, cell.pop("paint")) if v)
    del cell["key"]
    return cell


def _ink(color: str | None) -> str:
    """Black or white, whichever reads on a cell of `color` (as Plotly picks a cell's text)."""
    if color is None:
        return ""
    r, g, b = (int(color[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return "#000" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "#fff"


def picture(trace: Trace, theme: str = "light") -> dict:
    """Both views of a run at step 0, and what they say in words."""
    chunks = len(trace.chunks)
    return {
        "topology": topology(trace, theme),
        "grid": grid(trace, theme),
        "summary": (
            f"{trace.ranks} ranks before the first step; "
            f"{sum(1 for m in trace.initial_holdings.values() if m)} of "
            f"{trace.ranks * chunks} (rank, chunk) cells hold data"
        ),
    }
