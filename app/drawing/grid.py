"""The buffer grid of a run before its first step, as data a template draws
(templates/lab/_step0.html, `buffer_grid`): rank × chunk, or rank × destination for all_to_all,
each cell coloured by how many contributions it holds, and outlined where the result must end.
"""

from __future__ import annotations

from app.collectives import COLLECTIVES, Trace, chunk_label, ranks_in
from app.i18n import DEFAULT, N_
from app.i18n.catalog import translate

from .palette import count_color
from .topology import tick_step

GOAL_OUTLINES = 256  # more goal cells than this are not outlined (as the buffer view)


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


def _frame(trace: Trace, lang: str = DEFAULT) -> dict:
    """What the grid looks like apart from its cells, for the server's step-0 picture and the
    browser's live grid alike: size, labels, gaps, whether counts are written, the colour bar."""
    p = trace.ranks
    a2a = trace.collective == "all_to_all"
    cols = p if a2a else len(trace.chunks)
    top = p if a2a or COLLECTIVES[trace.collective].reduces else 1
    small = p > 16 or cols > 24
    every_c, every_r = tick_step(cols, 16), tick_step(p, 24)
    col_label = (lambda c: f"→r{c}") if a2a else chunk_label
    return {
        "cols": cols,
        "ranks": p,
        "top": top,
        "gaps": cols <= 32,
        "numbers": not small and top > 1,
        "col_labels": [col_label(c) if c % every_c == 0 else "" for c in range(cols)],
        "row_labels": [f"r{r}" if r % every_r == 0 else "" for r in range(p)],
        "scale": top > 1,
        "scale_title": translate(lang, N_("blocks arrived") if a2a else N_("k of p")),
        "ticks": sorted({0, top / 2, top}, reverse=True),
        "what": translate(lang, N_("rank × destination") if a2a else N_("rank × chunk")),
    }


def grid(trace: Trace, lang: str = DEFAULT) -> dict:
    """The buffer grid at step 0: rows of cells, equal neighbours merged into one span."""
    frame = _frame(trace, lang)
    cols, top, gaps = frame["cols"], frame["top"], frame["gaps"]
    z = _counts(trace, cols, trace.collective == "all_to_all", top)
    goal = {(r, c) for r, c in goal_cells(trace)}
    rows = []
    for r in range(trace.ranks):
        cells: list[dict] = []
        for c in range(cols):
            key = (z[r][c], (r, c) in goal)
            if cells and not gaps and cells[-1]["key"] == key:
                cells[-1]["span"] += 1
                continue
            cells.append(_cell(c, z[r][c], key[1], top))
        rows.append([_styled(cell) for cell in cells])
    return {**frame, "rows": rows}


def live(trace: Trace, lang: str = DEFAULT) -> dict:
    """The grid as the browser's buffer view draws it at every step (`sim_start.layout.grid`,
    static/js/lab-buffer.js): the step-0 picture's frame, and for each count 0..top the cell's
    background and the ink its number is written in, so the script keeps no copy of either
    rule. The same in both themes: cividis reads on either."""
    frame = _frame(trace, lang)
    top = frame["top"]
    paints = [[color, _ink(color)] for color in (count_color(n, top) for n in range(top + 1))]
    return {**frame, "paints": paints}


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
