"""SVG building blocks for lesson diagrams: the palette, chunk names, and an accessible canvas."""

from __future__ import annotations

import math
from html import escape

from app.collectives import chunk_label  # noqa: F401  (re-exported to the diagrams)
from app.drawing.palette import CHUNK_COLORS, RANK_TONES, chunk_color  # noqa: F401  (re-exported)

# The site's palette (app/drawing/palette.py): Okabe & Ito for chunks. Ranks are neutral there,
# so that a colour always means a chunk; a filled rank here takes the light theme's rank outline.
RANK_FILLED = RANK_TONES["light"]["line"]
# Hypercube dimensions and link classes: palette colours with enough contrast for thin lines.
DIMENSION_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7")


def text_color_on(fill: str) -> str:
    """Return black or white, whichever reads better on `fill` (a #rrggbb colour)."""
    r, g, b = (int(fill[i : i + 2], 16) / 255 for i in (1, 3, 5))
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return "#000000" if luminance > 0.45 else "#ffffff"


def _paint(fill, stroke, width) -> str:
    """Return the fill, stroke and stroke-width attributes that are set."""
    return "".join(
        f' {k}="{v}"' for k, v in (("fill", fill), ("stroke", stroke), ("stroke-width", width)) if v
    )


class Canvas:
    """Collect SVG elements and wrap them with an accessible <svg>."""

    def __init__(self, uid: str) -> None:
        self.uid = uid
        self.parts: list[str] = []
        self.markers: dict[str, str] = {}  # colour -> marker id

    def add(self, element: str) -> None:
        self.parts.append(element)

    def arrow_marker(self, color: str) -> str:
        if color not in self.markers:
            self.markers[color] = f"{self.uid}-arrow{len(self.markers)}"
        return self.markers[color]

    def line(
        self, x1, y1, x2, y2, *, cls="dg-link", color=None, arrow=False, width=None, dash=None
    ):
        attrs = [f'x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" class="{cls}"']
        if color:
            attrs.append(f'stroke="{color}"')
        if width:
            attrs.append(f'stroke-width="{width}"')
        if dash:
            attrs.append(f'stroke-dasharray="{dash}"')
        if arrow:
            attrs.append(f'marker-end="url(#{self.arrow_marker(color or "currentColor")})"')
        self.add(f"<line {' '.join(attrs)}/>")

    def circle(self, cx, cy, r, *, cls="dg-node", fill=None, stroke=None, width=None):
        extra = _paint(fill, stroke, width)
        self.add(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r}" class="{cls}"{extra}/>')

    def rect(self, x, y, w, h, *, cls="dg-box", fill=None, stroke=None, width=None, rx=4):
        extra = _paint(fill, stroke, width)
        self.add(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{rx}" '
            f'class="{cls}"{extra}/>'
        )

    def text(self, x, y, label, *, size=13, anchor="middle", cls="dg-text", fill=None, weight=None):
        extra = f' fill="{fill}"' if fill else ""
        if weight:
            extra += f' font-weight="{weight}"'
        self.add(
            f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'dominant-baseline="central" class="{cls}"{extra}>{escape(str(label))}</text>'
        )

    def svg(self, width: float, height: float, title: str, desc: str, kind: str) -> str:
        defs = "".join(
            f'<marker id="{mid}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto-start-reverse">'
            f'<path d="M0,0 L10,5 L0,10 z" fill="{color}"/></marker>'
            for color, mid in self.markers.items()
        )
        w, h = math.ceil(width), math.ceil(height)
        return (
            f'<svg class="diagram diagram-{kind}" xmlns="http://www.w3.org/2000/svg" '
            f'viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
            f'aria-labelledby="{self.uid}-title {self.uid}-desc">'
            f'<title id="{self.uid}-title">{escape(title)}</title>'
            f'<desc id="{self.uid}-desc">{escape(desc)}</desc>'
            f"<defs>{defs}</defs>{''.join(self.parts)}</svg>"
        )


def shorten(x1, y1, x2, y2, by1, by2):
    """Pull a segment's ends in by `by1` and `by2` so arrows stop at a node's rim."""
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    return x1 + ux * by1, y1 + uy * by1, x2 - ux * by2, y2 - uy * by2
