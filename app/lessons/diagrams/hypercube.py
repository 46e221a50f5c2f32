"""The hypercube diagram of recursive doubling and halving: rank r pairs with r XOR 2^k."""

from __future__ import annotations

from app.collectives.hypercube import floor_log2

from .base import Diagram, DiagramError, Params
from .canvas import DIMENSION_COLORS, Canvas, shorten

NODE_R = 22
LEGEND_SLOT = 175  # horizontal room of one dimension's legend entry
# Where one step along each dimension moves a rank on the page (dimension 3 is a second cube).
BASIS = ((150.0, 0.0), (0.0, 150.0), (70.0, -60.0), (320.0, 0.0))


def hypercube(params: Params, uid: str) -> Diagram:
    """The hypercube of recursive doubling/halving: rank r pairs with r XOR 2^k in dimension k."""
    p = params.integer("ranks", 8, 2, 16)
    if p & (p - 1):
        raise DiagramError(f"hypercube: ranks must be a power of two (2, 4, 8 or 16), got {p}")
    dims = floor_log2(p)
    step = params.integer("step", 0, 0, dims)  # 0: all dimensions equally
    params.finish()

    points = _points(p, dims)
    c = Canvas(uid)
    _draw_links(c, points, dims, step)
    for r, (x, y) in points.items():
        c.circle(x, y, NODE_R)
        c.text(x, y - 5, f"r{r}", size=12, weight="bold")
        c.text(x, y + 9, format(r, f"0{dims}b"), size=9, cls="dg-text dg-muted")
    width = max(x for x, _ in points.values()) + 50
    legend_y = max(y for _, y in points.values()) + 50 + 4
    _ = params.translate
    _draw_legend(c, dims, legend_y, _)
    height = legend_y + 20
    width = max(width, 20 + dims * LEGEND_SLOT)
    if dims > 1:
        title = _("Hypercube of %(p)s ranks (%(dims)s dimensions)", p=p, dims=dims)
    else:
        title = _("Hypercube of %(p)s ranks (1 dimension)", p=p)
    pairs = "; ".join(
        _(
            "dimension %(k)s: %(pairs)s",
            k=k,
            pairs=", ".join(f"r{r}-r{r ^ (1 << k)}" for r in range(p) if r < r ^ (1 << k)),
        )
        for k in range(dims)
    )
    desc = _(
        "%(title)s. Each rank's label shows its number in binary. Partners by dimension: "
        "%(pairs)s.",
        title=title,
        pairs=pairs,
    )
    caption = _(
        "Hypercube of %(p)s ranks: in step k of recursive doubling, rank r exchanges with "
        "r XOR 2^(k-1); %(dims)s steps in all.",
        p=p,
        dims=dims,
    )
    if step:
        caption += " " + _(
            "Highlighted: step %(step)s (dimension %(dim)s).", step=step, dim=step - 1
        )
    return Diagram(c.svg(width, height, title, desc, "hypercube"), caption)


def _points(p: int, dims: int) -> dict[int, tuple[float, float]]:
    """Place each rank on the page: the sum of the basis steps of its set bits, 50 from the edge."""
    basis = BASIS[:dims]
    points = {}
    for r in range(p):
        x = sum(basis[k][0] for k in range(dims) if r >> k & 1)
        y = sum(basis[k][1] for k in range(dims) if r >> k & 1)
        points[r] = (x, y)
    ox = 50 - min(x for x, _ in points.values())
    oy = 50 - min(y for _, y in points.values())
    return {r: (x + ox, y + oy) for r, (x, y) in points.items()}


def _draw_links(c: Canvas, points, dims: int, step: int) -> None:
    """Draw each dimension's links in its colour; `step` k > 0 highlights dimension k-1."""
    for k in range(dims):
        active = step in (0, k + 1)
        for r in points:
            q = r ^ (1 << k)
            if r < q:
                (x1, y1), (x2, y2) = points[r], points[q]
                c.line(
                    *shorten(x1, y1, x2, y2, NODE_R, NODE_R),
                    color=DIMENSION_COLORS[k],
                    width=4 if active and step else 2.5,
                    cls="dg-link" if active else "dg-link dg-idle",
                    dash=None if k % 2 == 0 else "7 4",
                )


def _draw_legend(c: Canvas, dims: int, y: float, _) -> None:
    """Draw one sample line per dimension with its partner rule."""
    for k in range(dims):
        lx = 20 + k * LEGEND_SLOT
        c.line(
            lx,
            y,
            lx + 30,
            y,
            color=DIMENSION_COLORS[k],
            width=3,
            dash=None if k % 2 == 0 else "7 4",
        )
        c.text(lx + 36, y, _("dim %(k)s: r XOR %(bit)s", k=k, bit=1 << k), size=12, anchor="start")
