"""The ring diagram: ranks around a ring with their chunks, or one step of ring allreduce.

The transfers and holdings come from a real `simulate("allreduce", "ring")`, so the picture
and the lab's animation cannot disagree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.collectives import simulate

from .base import Diagram, Params
from .canvas import Canvas, chunk_color, chunk_label, shorten, text_color_on

NODE_R = 20


@dataclass(frozen=True)
class _Geometry:
    """Where the ring sits: cell size, radius, margins, centre, and each rank's (x, y, angle)."""

    cell: float
    radius: float
    row_w: float
    margin: float  # left and right: a row may lie flat beside a node
    margin_y: float  # top and bottom: a row sits above or below
    cx: float
    cy: float
    pos: dict[int, tuple[float, float, float]]


def ring(params: Params, uid: str) -> Diagram:
    """Ranks around a ring, each with its p chunks; optionally one step of ring allreduce."""
    p = params.integer("ranks", 8, 2, 12)
    phase = params.choice("phase", None, ("reduce-scatter", "allgather"))
    step = params.integer("step", 1, 1, p - 1) if phase else None
    params.finish()

    trace = simulate("allreduce", "ring", ranks=p, elements=p)
    order = trace.topology.get("order", list(range(p)))
    index = -1
    if phase:
        index = (step - 1) + (p - 1 if phase == "allgather" else 0)
    holdings = trace.holdings_at(index)
    transfers = trace.steps[index].transfers if index >= 0 else []

    g = _geometry(p, order)
    c = Canvas(uid)
    _draw_links(c, g, order, transfers)
    for rank in order:
        _draw_rank(c, g, rank, p, holdings, counts=phase is not None)
    width, height = 2 * (g.radius + g.margin), 2 * (g.radius + g.margin_y)
    title, desc, caption = _words(p, phase, step, transfers, params.translate)
    return Diagram(c.svg(width, height, title, desc, "ring"), caption)


def _geometry(p: int, order: list[int]) -> _Geometry:
    cell = min(16.0, 120.0 / p)
    radius = max(110.0, p * (p * cell + 30) / (2 * math.pi))
    row_w = p * cell
    margin = NODE_R + 12 + row_w + cell
    margin_y = NODE_R + 20 + 2 * cell
    cx, cy = radius + margin, radius + margin_y
    pos = {}
    for i, rank in enumerate(order):
        angle = -math.pi / 2 + 2 * math.pi * i / p
        pos[rank] = (cx + radius * math.cos(angle), cy + radius * math.sin(angle), angle)
    return _Geometry(cell, radius, row_w, margin, margin_y, cx, cy, pos)


def _draw_links(c: Canvas, g: _Geometry, order: list[int], transfers) -> None:
    """Draw each rank's arrow to the next; a link that carries a chunk shows it on a chip."""
    p = len(order)
    sent = {t.src: t for t in transfers}
    for i, rank in enumerate(order):
        nxt = order[(i + 1) % p]
        x1, y1, _ = g.pos[rank]
        x2, y2, _ = g.pos[nxt]
        t = sent.get(rank)
        color = chunk_color(t.chunk) if t else None
        c.line(
            *shorten(x1, y1, x2, y2, NODE_R + 3, NODE_R + 5),
            arrow=True,
            color=color,
            width=3 if t else None,
            cls="dg-link" if t else "dg-link dg-idle",
        )
        if t:
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
            out = math.atan2(my - g.cy, mx - g.cx)
            lx, ly = mx + 16 * math.cos(out), my + 16 * math.sin(out)
            c.rect(lx - 9, ly - 9, 18, 18, fill=color, cls="dg-chip", rx=3)
            c.text(lx, ly, chunk_label(t.chunk), size=11, fill=text_color_on(color), weight="bold")


def _draw_rank(c: Canvas, g: _Geometry, rank: int, p: int, holdings, counts: bool) -> None:
    """Draw a rank and its buffer: a cell per chunk, labelled or counting contributions."""
    x, y, angle = g.pos[rank]
    cell = g.cell
    c.circle(x, y, NODE_R)
    c.text(x, y, f"r{rank}", size=13, weight="bold")
    # The rank's buffer: one cell per chunk, placed outside the ring.
    # Far enough along the radius that the row's box clears the node at any angle.
    reach = NODE_R + 10 + abs(math.cos(angle)) * g.row_w / 2 + abs(math.sin(angle)) * cell / 2
    bx = x + reach * math.cos(angle) - g.row_w / 2
    by = y + reach * math.sin(angle) - cell / 2
    for chunk in range(p):
        fill = chunk_color(chunk)
        count = holdings.get((rank, chunk), 0).bit_count()
        full = count == p
        c.rect(
            bx + chunk * cell,
            by,
            cell,
            cell,
            fill=fill,
            rx=1,
            cls="dg-cell dg-full" if full else "dg-cell",
        )
        label = str(count) if counts else chunk_label(chunk)
        c.text(
            bx + (chunk + 0.5) * cell,
            by + cell / 2,
            label,
            size=max(7, cell * 0.6),
            fill=text_color_on(fill),
        )


def _words(p: int, phase, step, transfers, _) -> tuple[str, str, str]:
    """Return the title, description and caption of a ring, or of one step on it; `_` puts a
    message in the page's language."""
    labels = ", ".join(chunk_label(i) for i in range(p))
    if not phase:
        title = _("A ring of %(p)s ranks", p=p)
        desc = _(
            "Ranks r0 to r%(last)s on a ring; each sends only to its right neighbour "
            "(r0 to r1, ..., r%(last)s to r0). Each rank's buffer is cut into %(p)s chunks, "
            "%(labels)s.",
            p=p,
            last=p - 1,
            labels=labels,
        )
        caption = _(
            "A ring of %(p)s ranks; each buffer is cut into %(p)s chunks, one colour per chunk.",
            p=p,
        )
        return title, desc, caption
    name = _("reduce-scatter") if phase == "reduce-scatter" else _("allgather")
    title = _(
        "Ring allreduce on %(p)s ranks: %(phase)s step %(step)s of %(steps)s",
        p=p,
        phase=name,
        step=step,
        steps=p - 1,
    )
    moves = "; ".join(
        _(
            "r%(src)s sends chunk %(chunk)s to r%(dst)s",
            src=t.src,
            chunk=chunk_label(t.chunk),
            dst=t.dst,
        )
        for t in transfers
    )
    op = _("adds it into its copy") if phase == "reduce-scatter" else _("stores it")
    desc = _(
        "%(p)s ranks on a ring, each sending to the next. In this step %(moves)s; each receiver "
        "%(op)s. The numbers in each rank's cells count how many ranks' contributions that "
        "copy of the chunk holds; %(p)s means fully reduced.",
        p=p,
        moves=moves,
        op=op,
    )
    caption = _(
        "Ring allreduce, %(phase)s step %(step)s of %(steps)s (%(p)s ranks). Arrows carry the "
        "chunk shown; each cell's number counts the contributions that copy holds (outlined "
        "when it holds all %(p)s).",
        phase=name,
        step=step,
        steps=p - 1,
        p=p,
    )
    return title, desc, caption
