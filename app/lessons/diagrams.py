"""Diagrams for lessons, drawn as inline SVG from data: rings, trees, hypercubes, nodes.

Each kind is a function of a few parameters (`@diagram ring ranks=8`). Shapes come from the
engine wherever the engine has them: the ring's transfers and holdings from a real
`simulate("allreduce", "ring")`, the trees from `app.collectives.trees`, so a picture and the
animation cannot disagree. Every SVG is accessible: role="img" with a <title> and a <desc>
that says in words what the picture shows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from html import escape

# The same colours as static/js/palette.js (a test keeps them equal): Okabe & Ito for chunks.
# Ranks are neutral there, so that a colour always means a chunk; a filled rank here takes the
# light theme's rank outline tone.
CHUNK_COLORS = (
    "#E69F00",
    "#56B4E9",
    "#009E73",
    "#F0E442",
    "#0072B2",
    "#D55E00",
    "#CC79A7",
    "#000000",
)
RANK_FILLED = "#5B5F6A"
# Hypercube dimensions and link classes: palette colours with enough contrast for thin lines.
DIMENSION_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7")


class DiagramError(ValueError):
    """A diagram's kind or parameters are wrong; the message says what is allowed."""


@dataclass(frozen=True)
class Diagram:
    svg: str
    caption: str


def chunk_color(i: int) -> str:
    return CHUNK_COLORS[i % len(CHUNK_COLORS)]


def chunk_label(i: int) -> str:
    """Return A, B, ..., Z, then C26, C27, ... (as palette.js labels chunks)."""
    return chr(65 + i) if i < 26 else f"C{i}"


def text_color_on(fill: str) -> str:
    """Return black or white, whichever reads better on `fill` (a #rrggbb colour)."""
    r, g, b = (int(fill[i : i + 2], 16) / 255 for i in (1, 3, 5))
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return "#000000" if luminance > 0.45 else "#ffffff"


# -- parameters ----------------------------------------------------------------------------------


class Params:
    """The key=value parameters of one diagram, read with types and bounds."""

    def __init__(self, kind: str, raw: dict[str, str]) -> None:
        self.kind = kind
        self.raw = dict(raw)
        self.used: set[str] = set()

    def integer(self, name: str, default: int, low: int, high: int) -> int:
        self.used.add(name)
        value = self.raw.get(name)
        if value is None:
            return default
        try:
            number = int(value)
        except ValueError:
            number = None
        if number is None or not low <= number <= high:
            raise DiagramError(
                f"{self.kind}: {name} must be an integer in {low}..{high}, got {value!r}"
            )
        return number

    def choice(self, name: str, default: str | None, choices: tuple[str, ...]) -> str | None:
        self.used.add(name)
        value = self.raw.get(name, default)
        if value is not None and value not in choices:
            raise DiagramError(
                f"{self.kind}: {name} must be one of {', '.join(choices)}, got {value!r}"
            )
        return value

    def flag(self, name: str, default: bool) -> bool:
        value = self.choice(
            name, "yes" if default else "no", ("yes", "no", "1", "0", "true", "false")
        )
        return value in ("yes", "1", "true")

    def finish(self) -> None:
        """Reject parameters the kind does not read (a typo must not pass silently)."""
        unknown = sorted(set(self.raw) - self.used)
        if unknown:
            raise DiagramError(
                f"{self.kind}: unknown parameter(s) {', '.join(unknown)}; "
                f"allowed: {', '.join(sorted(self.used))}"
            )


# -- SVG building blocks -------------------------------------------------------------------------


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
        extra = "".join(
            f' {k}="{v}"'
            for k, v in (("fill", fill), ("stroke", stroke), ("stroke-width", width))
            if v
        )
        self.add(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r}" class="{cls}"{extra}/>')

    def rect(self, x, y, w, h, *, cls="dg-box", fill=None, stroke=None, width=None, rx=4):
        extra = "".join(
            f' {k}="{v}"'
            for k, v in (("fill", fill), ("stroke", stroke), ("stroke-width", width))
            if v
        )
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


def _shorten(x1, y1, x2, y2, by1, by2):
    """Pull a segment's ends in by `by1` and `by2` so arrows stop at a node's rim."""
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    return x1 + ux * by1, y1 + uy * by1, x2 - ux * by2, y2 - uy * by2


def _popcount(mask: int) -> int:
    return bin(mask).count("1")


# -- ring ----------------------------------------------------------------------------------------


def ring(params: Params, uid: str) -> Diagram:
    """Ranks around a ring, each with its p chunks; optionally one step of ring allreduce."""
    from app.collectives import simulate

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

    cell = min(16.0, 120.0 / p)
    radius = max(110.0, p * (p * cell + 30) / (2 * math.pi))
    node_r = 20
    row_w = p * cell
    margin = node_r + 12 + row_w + cell  # left and right: a row may lie flat beside a node
    margin_y = node_r + 20 + 2 * cell  # top and bottom: a row sits above or below
    cx, cy = radius + margin, radius + margin_y
    c = Canvas(uid)
    pos = {}
    for i, rank in enumerate(order):
        angle = -math.pi / 2 + 2 * math.pi * i / p
        pos[rank] = (cx + radius * math.cos(angle), cy + radius * math.sin(angle), angle)

    sent = {t.src: t for t in transfers}
    for i, rank in enumerate(order):
        nxt = order[(i + 1) % p]
        x1, y1, _ = pos[rank]
        x2, y2, _ = pos[nxt]
        t = sent.get(rank)
        color = chunk_color(t.chunk) if t else None
        c.line(
            *_shorten(x1, y1, x2, y2, node_r + 3, node_r + 5),
            arrow=True,
            color=color,
            width=3 if t else None,
            cls="dg-link" if t else "dg-link dg-idle",
        )
        if t:
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
            out = math.atan2(my - cy, mx - cx)
            lx, ly = mx + 16 * math.cos(out), my + 16 * math.sin(out)
            c.rect(lx - 9, ly - 9, 18, 18, fill=color, cls="dg-chip", rx=3)
            c.text(lx, ly, chunk_label(t.chunk), size=11, fill=text_color_on(color), weight="bold")

    for rank in order:
        x, y, angle = pos[rank]
        c.circle(x, y, node_r)
        c.text(x, y, f"r{rank}", size=13, weight="bold")
        # The rank's buffer: one cell per chunk, placed outside the ring.
        # Far enough along the radius that the row's box clears the node at any angle.
        reach = node_r + 10 + abs(math.cos(angle)) * row_w / 2 + abs(math.sin(angle)) * cell / 2
        bx = x + reach * math.cos(angle) - row_w / 2
        by = y + reach * math.sin(angle) - cell / 2
        for chunk in range(p):
            fill = chunk_color(chunk)
            count = _popcount(holdings.get((rank, chunk), 0))
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
            label = chunk_label(chunk) if not phase else str(count)
            c.text(
                bx + (chunk + 0.5) * cell,
                by + cell / 2,
                label,
                size=max(7, cell * 0.6),
                fill=text_color_on(fill),
            )

    width, height = 2 * (radius + margin), 2 * (radius + margin_y)
    if phase:
        title = f"Ring allreduce on {p} ranks: {phase} step {step} of {p - 1}"
        moves = "; ".join(
            f"r{t.src} sends chunk {chunk_label(t.chunk)} to r{t.dst}" for t in transfers
        )
        op = "adds it into its copy" if phase == "reduce-scatter" else "stores it"
        desc = (
            f"{p} ranks on a ring, each sending to the next. In this step {moves}; each receiver "
            f"{op}. The numbers in each rank's cells count how many ranks' contributions that "
            f"copy of the chunk holds; {p} means fully reduced."
        )
        caption = (
            f"Ring allreduce, {phase} step {step} of {p - 1} ({p} ranks). Arrows carry the chunk "
            "shown; each cell's number counts the contributions that copy holds "
            f"(outlined when it holds all {p})."
        )
    else:
        title = f"A ring of {p} ranks"
        desc = (
            f"Ranks r0 to r{p - 1} on a ring; each sends only to its right neighbour "
            f"(r0 to r1, ..., r{p - 1} to r0). Each rank's buffer is cut into {p} chunks, "
            f"{', '.join(chunk_label(i) for i in range(p))}."
        )
        caption = f"A ring of {p} ranks; each buffer is cut into {p} chunks, one colour per chunk."
    return Diagram(c.svg(width, height, title, desc, "ring"), caption)


# -- trees ---------------------------------------------------------------------------------------


def _layout_tree(parents: list[int], children: list[list[int]]) -> dict[int, tuple[float, int]]:
    """Place each rank: x by a left-to-right walk over the leaves, y by depth."""
    root = parents.index(-1)
    pos: dict[int, tuple[float, int]] = {}
    next_leaf = [0.0]

    def walk(rank: int, depth: int) -> float:
        kids = children[rank]
        if not kids:
            x = next_leaf[0]
            next_leaf[0] += 1
        else:
            xs = [walk(k, depth + 1) for k in kids]
            x = (xs[0] + xs[-1]) / 2
        pos[rank] = (x, depth)
        return x

    walk(root, 0)
    return pos


def _draw_tree(c: Canvas, pos, parents, *, dx, dy, x0, y0, node_r, edge_labels=None, fill_of=None):
    for rank, parent in enumerate(parents):
        if parent < 0:
            continue
        (px, pd), (kx, kd) = pos[parent], pos[rank]
        x1, y1, x2, y2 = x0 + px * dx, y0 + pd * dy, x0 + kx * dx, y0 + kd * dy
        c.line(*_shorten(x1, y1, x2, y2, node_r + 2, node_r + 4), arrow=True)
        if edge_labels and (parent, rank) in edge_labels:
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
            c.circle(mx, my, 9, cls="dg-badge")
            c.text(mx, my, edge_labels[(parent, rank)], size=10)
    for rank, (x, d) in pos.items():
        fill = fill_of(rank) if fill_of else None
        c.circle(
            x0 + x * dx,
            y0 + d * dy,
            node_r,
            fill=fill,
            cls="dg-node dg-root" if parents[rank] < 0 else "dg-node",
        )
        c.text(
            x0 + x * dx,
            y0 + d * dy,
            f"r{rank}",
            size=12,
            weight="bold",
            fill=text_color_on(fill) if fill else None,
        )


def tree(params: Params, uid: str) -> Diagram:
    """A binomial tree (MPICH) or a heap-ordered binary tree, with broadcast rounds on edges."""
    from app.collectives import trees

    shape = params.choice("shape", "binomial", ("binomial", "binary"))
    p = params.integer("ranks", 8, 1, 32)
    root = params.integer("root", 0, 0, p - 1)
    params.finish()

    labels = None
    if shape == "binomial":
        parents = trees.binomial_parents(p, root)
        rounds = trees.binomial_rounds(p, root)  # leaves' round first; broadcast runs backwards
        labels = {edge: str(len(rounds) - j) for j, edges in enumerate(rounds) for edge in edges}
    else:
        heap = trees.heap_parents(p)
        # Relative ranks, as MPI numbers a tree for any root: position i is rank (i + root) mod p.
        parents = [-1] * p
        for i, up in enumerate(heap):
            parents[(i + root) % p] = -1 if up < 0 else (up + root) % p
    children = trees.children_lists(parents)
    if shape == "binomial":
        sizes = [len(trees.binomial_subtree(r, root, p)) for r in range(p)]
        children = [sorted(kids, key=lambda k: -sizes[k]) for kids in children]
    pos = _layout_tree(parents, children)
    depth = trees.tree_depth(parents)
    leaves = max(x for x, _ in pos.values()) + 1
    dx, dy, node_r = 56, 72, 18
    c = Canvas(uid)
    _draw_tree(c, pos, parents, dx=dx, dy=dy, x0=40, y0=36, node_r=node_r, edge_labels=labels)
    width, height = 80 + (leaves - 1) * dx, 72 + depth * dy

    kids = trees.children_lists(parents)
    links = "; ".join(
        f"r{r} to {', '.join(f'r{k}' for k in ks)}" for r, ks in enumerate(kids) if ks
    )
    if shape == "binomial":
        title = f"Binomial tree on {p} ranks, root r{root}"
        caption = (
            f"Binomial tree, {p} ranks, root r{root}: depth {depth}. Edge numbers are the "
            f"broadcast rounds, ceil(log2 {p}) = {trees.ceil_log2(p)} in all; a reduce runs them "
            "in reverse."
        )
    else:
        title = f"Binary tree on {p} ranks, root r{root}"
        caption = (
            f"Binary tree, {p} ranks, root r{root}: each rank has at most two children; "
            f"depth {depth}."
        )
    desc = f"{title}, depth {depth}. Parent to children: {links or 'a single rank'}."
    return Diagram(c.svg(width, height, title, desc, "tree"), caption)


def double_binary_tree(params: Params, uid: str) -> Diagram:
    """NCCL's two complementary binary trees, ranks at the same x in both."""
    from app.collectives import trees

    p = params.integer("ranks", 8, 2, 32)
    params.finish()
    tree0, tree1 = trees.double_binary_tree_parents(p)
    dx, dy, node_r = 44, 58, 16
    c = Canvas(uid)
    y0 = 40
    interior_sets = []
    for t, parents in enumerate((tree0, tree1)):
        # Both trees are in-order over rank positions; tree 1 on odd p is tree 0 shifted by one.
        played = (lambda r: r) if t == 0 or p % 2 == 0 else (lambda r: (r - 1) % p)
        depths = trees.depths(parents)
        kids = trees.children_lists(parents)
        interior = {r for r in range(p) if kids[r] and parents[r] >= 0}
        interior_sets.append(interior)
        pos = {r: (float(played(r)), depths[r]) for r in range(p)}
        c.text(12, y0 - 24, f"Tree {t}", size=13, anchor="start", weight="bold")
        _draw_tree(
            c,
            pos,
            parents,
            dx=dx,
            dy=dy,
            x0=40,
            y0=y0 + 10,
            node_r=node_r,
            fill_of=lambda r, s=interior: RANK_FILLED if r in s else None,
        )
        y0 += (max(depths) + 1) * dy + 50
    width, height = 80 + (p - 1) * dx, y0 - 20
    roots = (tree0.index(-1), tree1.index(-1))
    both = sorted(interior_sets[0] & interior_sets[1])
    title = f"NCCL's double binary tree on {p} ranks"
    desc = (
        f"Two binary trees over ranks r0 to r{p - 1}, rooted at r{roots[0]} and r{roots[1]}. "
        f"Filled ranks are interior (they receive and forward); hollow ones are leaves. "
        + ("No rank is interior in both trees." if not both else f"Interior in both: {both}.")
    )
    caption = (
        f"Double binary tree, {p} ranks (NCCL's ncclGetDtree). Filled: interior, hollow: leaf. "
        "A rank interior in one tree is a leaf in the other, so each half of the data uses "
        "every rank's links about equally."
    )
    return Diagram(c.svg(width, height, title, desc, "double-binary-tree"), caption)


# -- hypercube -----------------------------------------------------------------------------------


def hypercube(params: Params, uid: str) -> Diagram:
    """The hypercube of recursive doubling/halving: rank r pairs with r XOR 2^k in dimension k."""
    p = params.integer("ranks", 8, 2, 16)
    if p & (p - 1):
        raise DiagramError(f"hypercube: ranks must be a power of two (2, 4, 8 or 16), got {p}")
    dims = p.bit_length() - 1
    step = params.integer("step", 0, 0, dims)  # 0: all dimensions equally
    params.finish()

    basis = [(150.0, 0.0), (0.0, 150.0), (70.0, -60.0), (320.0, 0.0)][:dims]
    points = {}
    for r in range(p):
        x = sum(basis[k][0] for k in range(dims) if r >> k & 1)
        y = sum(basis[k][1] for k in range(dims) if r >> k & 1)
        points[r] = (x, y)
    min_x = min(x for x, _ in points.values())
    min_y = min(y for _, y in points.values())
    ox, oy = 50 - min_x, 50 - min_y
    node_r = 22
    c = Canvas(uid)
    for k in range(dims):
        active = step in (0, k + 1)
        for r in range(p):
            q = r ^ (1 << k)
            if r < q:
                (x1, y1), (x2, y2) = points[r], points[q]
                c.line(
                    *_shorten(x1 + ox, y1 + oy, x2 + ox, y2 + oy, node_r, node_r),
                    color=DIMENSION_COLORS[k],
                    width=4 if active and step else 2.5,
                    cls="dg-link" if active else "dg-link dg-idle",
                    dash=None if k % 2 == 0 else "7 4",
                )
    for r, (x, y) in points.items():
        c.circle(x + ox, y + oy, node_r)
        c.text(x + ox, y + oy - 5, f"r{r}", size=12, weight="bold")
        c.text(x + ox, y + oy + 9, format(r, f"0{dims}b"), size=9, cls="dg-text dg-muted")
    width = max(x for x, _ in points.values()) + ox + 50
    height = max(y for _, y in points.values()) + oy + 50
    legend_y = height + 4
    for k in range(dims):
        lx = 20 + k * 175
        c.line(
            lx,
            legend_y,
            lx + 30,
            legend_y,
            color=DIMENSION_COLORS[k],
            width=3,
            dash=None if k % 2 == 0 else "7 4",
        )
        c.text(lx + 36, legend_y, f"dim {k}: r XOR {1 << k}", size=12, anchor="start")
    height = legend_y + 20
    width = max(width, 20 + dims * 175)
    title = f"Hypercube of {p} ranks ({dims} dimension{'s' if dims > 1 else ''})"
    pairs = "; ".join(
        f"dimension {k}: "
        + ", ".join(f"r{r}-r{r ^ (1 << k)}" for r in range(p) if r < r ^ (1 << k))
        for k in range(dims)
    )
    desc = f"{title}. Each rank's label shows its number in binary. Partners by dimension: {pairs}."
    caption = (
        f"Hypercube of {p} ranks: in step k of recursive doubling, rank r exchanges with "
        f"r XOR 2^(k-1); {dims} steps in all."
    )
    if step:
        caption += f" Highlighted: step {step} (dimension {step - 1})."
    return Diagram(c.svg(width, height, title, desc, "hypercube"), caption)


# -- nodes and links -----------------------------------------------------------------------------


def hierarchical(params: Params, uid: str) -> Diagram:
    """Nodes of GPUs joined by NVLink inside, and by one network rail per local GPU index."""
    nodes = params.integer("nodes", 4, 1, 8)
    gpus = params.integer("gpus", 4, 1, 8)
    params.finish()
    # Nodes are stacked, GPUs in a row inside each: rail i is then the vertical line of GPU i.
    gw, gh, gap, pad = 44, 34, 12, 14
    box_w = pad * 2 + gpus * gw + (gpus - 1) * gap
    box_h, box_gap = gh + 26, 36
    x0, top = 70, 16
    c = Canvas(uid)
    for n in range(nodes):
        y0 = top + n * (box_h + box_gap)
        c.rect(x0, y0, box_w, box_h, cls="dg-box dg-node-box", rx=8)
        c.text(x0 - 10, y0 + box_h / 2, f"node {n}", size=12, anchor="end", weight="bold")
        mid = y0 + box_h / 2
        if gpus > 1:
            c.line(
                x0 + pad + gw / 2,
                mid,
                x0 + box_w - pad - gw / 2,
                mid,
                cls="dg-link dg-nvlink",
                width=5,
            )
        for g in range(gpus):
            gx = x0 + pad + g * (gw + gap)
            c.rect(gx, mid - gh / 2, gw, gh, fill=chunk_color(g), cls="dg-gpu")
            c.text(
                gx + gw / 2, mid, f"r{n * gpus + g}", size=12, fill=text_color_on(chunk_color(g))
            )
            if n + 1 < nodes:
                below = top + (n + 1) * (box_h + box_gap) + box_h / 2 - gh / 2
                c.line(
                    gx + gw / 2,
                    mid + gh / 2,
                    gx + gw / 2,
                    below,
                    color=chunk_color(g),
                    width=2.5,
                    dash="5 3",
                )
    width = x0 + box_w + 20
    height = top + nodes * box_h + (nodes - 1) * box_gap + 16
    p = nodes * gpus
    title = (
        f"{nodes} node{'s' if nodes > 1 else ''} of {gpus} GPU{'s' if gpus > 1 else ''} ({p} ranks)"
    )
    desc = f"{title}. Inside each node the GPUs share NVLink (the solid line through them). " + (
        f"Between nodes, dashed network rails join the GPUs with the same local index: "
        f"{gpus} rails of {nodes} GPUs each."
        if nodes > 1
        else ""
    )
    caption = (
        f"{nodes} × {gpus} GPUs. Solid: NVLink inside a node; dashed: the network, one rail per "
        "local GPU index. A GPU's colour is the shard it owns, as chunks are coloured in the lab: "
        "hierarchical allreduce reduce-scatters inside each node, allreduces shard i (M/g bytes) "
        "across nodes on rail i, then allgathers inside each node."
    )
    return Diagram(c.svg(width, height, title, desc, "hierarchical"), caption)


def node(params: Params, uid: str) -> Diagram:
    """One DGX-like server: GPUs, NVSwitch, PCIe switches, NICs and CPUs, and their links."""
    gpus = params.integer("gpus", 8, 1, 16)
    nics = params.integer("nics", 8, 0, 16)
    nvswitch = params.flag("nvswitch", True)
    switches = params.integer("pcie", 4, 1, 8)
    cpus = params.integer("cpus", 2, 1, 2)
    params.finish()
    if switches > gpus:
        raise DiagramError(f"node: pcie ({switches}) cannot exceed gpus ({gpus})")

    slot, margin = 64, 30
    width = margin * 2 + gpus * slot
    c = Canvas(uid)
    y_sw, y_gpu, y_pcie, y_nic, y_cpu = 30, 110, 200, 280, 360

    def x_of(i: int, count: int) -> float:
        return margin + (i + 0.5) * (width - 2 * margin) / count

    if nvswitch:
        c.rect(margin, y_sw - 16, width - 2 * margin, 32, cls="dg-box dg-switch", rx=6)
        label = "NVSwitch: every GPU to every GPU over NVLink" if gpus >= 6 else "NVSwitch"
        c.text(width / 2, y_sw, label, size=12)
    for g in range(gpus):
        gx = x_of(g, gpus)
        if nvswitch:
            c.line(gx, y_sw + 16, gx, y_gpu - 18, cls="dg-link dg-nvlink", width=5)
        c.rect(gx - 24, y_gpu - 18, 48, 36, fill=chunk_color(4), cls="dg-gpu")
        c.text(gx, y_gpu, f"GPU{g}", size=11, fill=text_color_on(chunk_color(4)))
        sw = g * switches // gpus
        c.line(gx, y_gpu + 18, x_of(sw, switches), y_pcie - 14, cls="dg-link dg-pcie")
    # NICs hang under their PCIe switch, leaving a gap for the switch's link down to its CPU.
    groups: list[list[int]] = [[] for _ in range(switches)]
    for n in range(nics):
        groups[n * switches // nics].append(n)
    for s in range(switches):
        sx = x_of(s, switches)
        members = groups[s]
        lane = sx if len(members) % 2 == 0 else sx + 30
        for k, n in enumerate(members):
            nx = sx + (k - (len(members) - 1) / 2) * 60
            c.line(sx, y_pcie + 14, nx, y_nic - 12, cls="dg-link dg-pcie")
            c.rect(nx - 22, y_nic - 12, 44, 24, fill=chunk_color(1), cls="dg-nic")
            c.text(nx, y_nic, f"NIC{n}", size=10, fill=text_color_on(chunk_color(1)))
            c.line(nx, y_nic + 12, nx, y_nic + 26, cls="dg-link dg-net", dash="3 2", arrow=True)
        cpu = s * cpus // switches
        c.add(
            f'<path d="M{sx:.1f},{y_pcie + 14} L{lane:.1f},{y_nic} L{lane:.1f},{y_nic + 24} '
            f'L{x_of(cpu, cpus):.1f},{y_cpu - 16}" class="dg-link dg-pcie"/>'
        )
        c.rect(sx - 40, y_pcie - 14, 80, 28, cls="dg-box dg-switch", rx=5)
        c.text(sx, y_pcie, "PCIe switch", size=11)
    for k in range(cpus):
        kx = x_of(k, cpus)
        c.rect(kx - 60, y_cpu - 16, 120, 32, cls="dg-box dg-cpu", rx=6)
        c.text(kx, y_cpu, f"CPU{k}", size=12, weight="bold")
    if cpus == 2:
        c.line(x_of(0, 2) + 60, y_cpu, x_of(1, 2) - 60, y_cpu, cls="dg-link dg-pcie", dash="2 3")
        c.text(width / 2, y_cpu - 12, "CPU link", size=10, cls="dg-text dg-muted")
    height = y_cpu + 40
    if nics:
        c.text(margin, y_nic + 34, "↓ network", size=10, anchor="start", cls="dg-text dg-muted")

    title = f"A server with {gpus} GPUs, {nics} NICs and {switches} PCIe switches"
    desc = (
        f"{title}. "
        + (
            "An NVSwitch connects every GPU to every other over NVLink. "
            if nvswitch
            else "There is no NVLink: GPU-to-GPU traffic crosses the PCIe switches, and between "
            "sockets the CPU link. "
        )
        + f"Each PCIe switch serves {gpus // switches or 1} GPU(s)"
        + (
            f" and about {max(1, nics // switches)} NIC(s), so a GPU reaches the network through "
            "the NIC beside it (GPUDirect RDMA)."
            if nics
            else "."
        )
        + f" {cpus} CPU socket(s) sit below the PCIe switches."
    )
    caption = "A DGX-like server. Thick: NVLink; thin: PCIe; dashed: network. " + (
        "Every GPU pair has the full NVLink bandwidth through the NVSwitch."
        if nvswitch
        else "Without NVLink, GPU pairs under different CPUs cross the CPU link."
    )
    return Diagram(c.svg(width, height, title, desc, "node"), caption)


KINDS: dict[str, Callable[[Params, str], Diagram]] = {
    "ring": ring,
    "tree": tree,
    "double-binary-tree": double_binary_tree,
    "hypercube": hypercube,
    "hierarchical": hierarchical,
    "node": node,
}


def render_diagram(kind: str, params: dict[str, str], uid: str) -> Diagram:
    """Draw diagram `kind` with `params`; `uid` makes its element ids unique on the page."""
    draw = KINDS.get(kind)
    if draw is None:
        raise DiagramError(f"unknown diagram kind {kind!r}; kinds: {', '.join(KINDS)}")
    return draw(Params(kind, params), uid)
