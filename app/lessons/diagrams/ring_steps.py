"""Ring allreduce frame by frame: the whole run as a strip of small still frames.

For print and for readers without JavaScript, in place of the animation: one frame before the
first step, then one per step of the engine's own `simulate("allreduce", "ring")`, each showing
which chunk every rank sends to whom and how many ranks' contributions each of its copies holds.
The frames are the trace's steps, so the strip and the lab cannot disagree.
"""

from __future__ import annotations

import math

from app.collectives import simulate

from .base import Diagram, Params
from .canvas import Canvas, chunk_color, chunk_label, text_color_on

MAX_RANKS = 8  # 2(p-1)+1 frames of p rows: 8 ranks already make 15 frames of 8
CELL = 18
LABEL_W = 28  # "r0" before the cells
SEND_W = 74  # "A → r1" after the cells
HEAD_H = 24  # the frame's title
PAD = 8
GAP = 14


def ring_steps(params: Params, uid: str) -> Diagram:
    """Every step of ring allreduce on `ranks` ranks, a small frame each."""
    p = params.integer("ranks", 4, 2, MAX_RANKS)
    params.finish()
    _ = params.translate
    trace = simulate("allreduce", "ring", ranks=p, elements=p)
    frames = [(-1, _("Start"), [])] + [
        (s.index, _frame_title(s.phase, s.index, p, _), s.transfers) for s in trace.steps
    ]
    cols = 4 if p <= 4 else 3 if p <= 6 else 2
    frame_w = LABEL_W + p * CELL + SEND_W + 2 * PAD
    frame_h = HEAD_H + p * CELL + 2 * PAD
    c = Canvas(uid)
    for n, (index, title, transfers) in enumerate(frames):
        x = (n % cols) * (frame_w + GAP)
        y = (n // cols) * (frame_h + GAP)
        _draw_frame(c, x, y, frame_w, frame_h, title, trace.holdings_at(index), transfers, p)
    rows = math.ceil(len(frames) / cols)
    width = cols * frame_w + (cols - 1) * GAP
    height = rows * frame_h + (rows - 1) * GAP
    title = _(
        "Ring allreduce on %(p)s ranks, frame by frame: %(steps)s steps",
        p=p,
        steps=len(frames) - 1,
    )
    desc = _describe(trace, p, _)
    caption = _(
        "Ring allreduce on %(p)s ranks, one frame per step: what each rank sends in that step, "
        "and how many ranks' contributions each copy holds after it. In which frame does "
        "every rank first hold one chunk with all %(p)s?",
        p=p,
    )
    return Diagram(c.svg(width, height, title, desc, "ring-steps"), caption)


def _frame_title(phase: str, index: int, p: int, _) -> str:
    step = index + 1 if phase == "reduce-scatter" else index - (p - 1) + 1
    name = _("Reduce-scatter") if phase == "reduce-scatter" else _("Allgather")
    return _(
        "%(n)s. %(phase)s %(step)s of %(steps)s", n=index + 1, phase=name, step=step, steps=p - 1
    )


def _draw_frame(c: Canvas, x, y, w, h, title, holdings, transfers, p) -> None:
    """One frame: a title, then a row per rank: its cells (contributions) and what it sends."""
    c.add('<g class="dg-frame">')
    c.rect(x, y, w, h, cls="dg-box dg-frame-box", rx=6)
    c.text(x + PAD, y + PAD + 7, title, size=12, anchor="start", weight="bold")
    sends = {t.src: t for t in transfers}
    for rank in range(p):
        top = y + HEAD_H + PAD + rank * CELL
        c.text(x + PAD, top + CELL / 2, f"r{rank}", size=11, anchor="start")
        for chunk in range(p):
            count = holdings[(rank, chunk)].bit_count()
            fill = chunk_color(chunk)
            left = x + PAD + LABEL_W + chunk * CELL
            cls = "dg-cell dg-full" if count == p else "dg-cell"
            c.rect(left, top, CELL, CELL, fill=fill, rx=1, cls=cls)
            c.text(left + CELL / 2, top + CELL / 2, count, size=10, fill=text_color_on(fill))
        sent = sends.get(rank)
        if sent:
            c.text(
                x + PAD + LABEL_W + p * CELL + 8,
                top + CELL / 2,
                f"{chunk_label(sent.chunk)} → r{sent.dst}",
                size=11,
                anchor="start",
                cls="dg-text dg-send",
            )
    c.add("</g>")


def _describe(trace, p: int, _) -> str:
    """The strip in words: every transfer of every step, and what the receiver then holds."""
    parts = [
        _(
            "%(p)s ranks, r0 to r%(last)s, each sending to the next. Each buffer is cut into "
            "%(p)s chunks, %(labels)s; a number counts how many ranks' contributions that copy "
            "of the chunk holds. Start: every copy holds 1.",
            p=p,
            last=p - 1,
            labels=", ".join(chunk_label(i) for i in range(p)),
        )
    ]
    for step in trace.steps:
        after = trace.holdings_at(step.index)
        moves = ", ".join(
            _(
                "r%(src)s sends %(chunk)s to r%(dst)s (now %(count)s)",
                src=t.src,
                chunk=chunk_label(t.chunk),
                dst=t.dst,
                count=after[(t.dst, t.chunk)].bit_count(),
            )
            for t in step.transfers
        )
        parts.append(f"{_frame_title(step.phase, step.index, p, _)}: {moves}.")
    final = trace.holdings_at(len(trace.steps) - 1)
    full = sum(1 for holders in final.values() if holders.bit_count() == p)
    parts.append(
        _(
            "At the end %(full)s of the %(copies)s copies hold all %(p)s contributions.",
            full=full,
            copies=p * p,
            p=p,
        )
    )
    return " ".join(parts)
