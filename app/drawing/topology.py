"""The topology view of a run before its first step, as data a template draws
(templates/lab/_step0.html, `topology_svg`): ranks where `geometry` puts them, the links, node
boxes and tree titles, in SVG coordinates (y down).

Sizes that the view fixes in pixels (disc size, label spacing) are worked out for a nominal box
of `BOX_PX`; the picture then scales with its box, keeping one scale on both axes, so nothing in
it moves relative to anything else when the box is resized. The same picture is the live view:
the browser adds each step's arrows and packets to it (static/js/lab-topology.js), sizing them in
nominal pixels (`px`, `r`, written on the <svg> as data-px and data-r).

It holds no colour: discs, lines and text take theirs from CSS classes and custom properties
(static/css/lab.css, the rank tones from templates/base.html), so a theme switch needs no new
markup and the picture is the same for both themes.
"""

from __future__ import annotations

import math

from app.collectives import Trace
from app.i18n import DEFAULT, N_
from app.i18n.catalog import translate

from .geometry import geometry, is_round

BOX_PX = (400, 320)  # width, height: an embed's topology box in a 760 × 520 frame
MARGIN_PX = 8  # the views' plot margin
TITLE_PX = 13  # tree titles
TEXT_WIDTH_EM = 0.56  # a character's width in the page's sans-serif, roughly


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
        if n["rank"] % every or n.get("switch"):  # a switch carries its name
            continue
        if is_round(geo["kind"]) or (geo["kind"] == "switch" and not geo["boxes"]):
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


def _hover(node: dict, topo: dict, lang: str) -> str:
    """A disc's hover text: its rank, and its node or tree when the picture has them."""
    if node.get("switch"):
        return translate(
            lang,
            N_("%(switch)s: adds what the ranks send it and sends the sum back"),
            switch=node["switch"],
        )
    parts = [translate(lang, N_("rank %(n)s"), n=node["rank"])]
    if topo.get("ranks_per_node") and topo.get("kind") in ("hierarchical", "switch"):
        parts.append(translate(lang, N_("node %(n)s"), n=node["rank"] // topo["ranks_per_node"]))
    if node.get("tree") is not None:
        parts.append(translate(lang, N_("tree %(n)s"), n=node["tree"] + 1))
    return " · ".join(parts)


def _switch_box(node: dict, size: float, topo: dict, lang: str) -> dict:
    """A switch as a rounded box a little wider than a rank's disc, with its name under it."""
    w, h = size * 2.2, size * 1.1
    return {
        "id": node["rank"],
        "x": _n(node["x"] - w / 2),
        "y": _n(-node["y"] - h / 2),
        "w": _n(w),
        "h": _n(h),
        "cx": _n(node["x"]),
        "label_y": _n(-node["y"] + h / 2 + size * 0.45),
        "name": node["switch"],
        "title": _hover(node, topo, lang),
    }


def topology(trace: Trace, lang: str = DEFAULT) -> dict:
    """The topology view at step 0: SVG coordinates (y down) and sizes in plot units; its
    words in `lang`."""
    geo = geometry(trace.topology, trace.ranks, lang=lang)
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
        "inside": inside,
        "edge_px": 1 if trace.ranks > 32 else 1.5,
        "nodes": [
            {
                "rank": n["rank"],
                "x": _n(n["x"]),
                "y": _n(-n["y"]),
                "tree": n.get("tree"),
                "title": _hover(n, trace.topology, lang),
            }
            for n in nodes
            if not n.get("switch")
        ],
        "switches": [
            _switch_box(n, node_px / ppu, trace.topology, lang) for n in nodes if n.get("switch")
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
