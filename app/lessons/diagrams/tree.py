"""Tree diagrams: a binomial or binary tree, and NCCL's double binary tree.

The shapes come from `app.collectives.trees`, the same functions the engine's tree algorithms
use.
"""

from __future__ import annotations

from app.collectives import trees

from .base import Diagram, Params
from .canvas import RANK_FILLED, Canvas, shorten, text_color_on


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


def _draw_tree(
    c: Canvas, pos, parents, *, dx, dy, x0, y0, node_r, edge_labels=None, fill_of=None, prefix="r"
):
    for rank, parent in enumerate(parents):
        if parent < 0:
            continue
        (px, pd), (kx, kd) = pos[parent], pos[rank]
        x1, y1, x2, y2 = x0 + px * dx, y0 + pd * dy, x0 + kx * dx, y0 + kd * dy
        c.line(*shorten(x1, y1, x2, y2, node_r + 2, node_r + 4), arrow=True)
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
            f"{prefix}{rank}",
            size=12,
            weight="bold",
            fill=text_color_on(fill) if fill else None,
        )


def tree(params: Params, uid: str) -> Diagram:
    """A binomial tree (MPICH) or a heap-ordered binary tree, with broadcast rounds on edges."""
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
    title, desc, caption = _tree_words(shape, p, root, parents, depth, params.translate)
    return Diagram(c.svg(width, height, title, desc, "tree"), caption)


def _tree_words(shape: str, p: int, root: int, parents, depth: int, _) -> tuple[str, str, str]:
    """Return the title, description and caption of a binomial or binary tree."""
    kids = trees.children_lists(parents)
    links = "; ".join(
        _("r%(parent)s to %(children)s", parent=r, children=", ".join(f"r{k}" for k in ks))
        for r, ks in enumerate(kids)
        if ks
    )
    if shape == "binomial":
        title = _("Binomial tree on %(p)s ranks, root r%(root)s", p=p, root=root)
        caption = _(
            "Binomial tree, %(p)s ranks, root r%(root)s: depth %(depth)s. Edge numbers are the "
            "broadcast rounds, ceil(log2 %(p)s) = %(rounds)s in all; a reduce runs them in "
            "reverse.",
            p=p,
            root=root,
            depth=depth,
            rounds=trees.ceil_log2(p),
        )
    else:
        title = _("Binary tree on %(p)s ranks, root r%(root)s", p=p, root=root)
        caption = _(
            "Binary tree, %(p)s ranks, root r%(root)s: each rank has at most two children; "
            "depth %(depth)s.",
            p=p,
            root=root,
            depth=depth,
        )
    desc = _(
        "%(title)s, depth %(depth)s. Parent to children: %(links)s.",
        title=title,
        depth=depth,
        links=links or _("a single rank"),
    )
    return title, desc, caption


def double_binary_tree(params: Params, uid: str) -> Diagram:
    """NCCL's two complementary binary trees, ranks at the same x in both.

    With nodes=yes each circle is a node (n0, n1, ...), as in NCCL's Tree algorithm, where the
    double binary tree joins nodes and a chain runs through the GPUs inside each one.
    """
    p = params.integer("ranks", 8, 2, 32)
    of_nodes = params.flag("nodes", False)
    params.finish()
    prefix = "n" if of_nodes else "r"
    _ = params.translate
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
        c.text(12, y0 - 24, _("Tree %(t)s", t=t), size=13, anchor="start", weight="bold")
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
            prefix=prefix,
        )
        y0 += (max(depths) + 1) * dy + 50
    width, height = 80 + (p - 1) * dx, y0 - 20
    title, desc, caption = _double_tree_words(p, tree0, tree1, interior_sets, prefix, _)
    return Diagram(c.svg(width, height, title, desc, "double-binary-tree"), caption)


def _double_tree_words(p, tree0, tree1, interior_sets, prefix, _) -> tuple[str, str, str]:
    """Return the title, description and caption of the double binary tree, of ranks or nodes."""
    roots = (tree0.index(-1), tree1.index(-1))
    both = sorted(interior_sets[0] & interior_sets[1])
    nodes = prefix == "n"
    what = _("nodes") if nodes else _("ranks")
    one = _("node") if nodes else _("rank")
    if both:
        overlap = _("Interior in both: %(both)s.", both=both)
    else:
        overlap = _("No %(one)s is interior in both trees.", one=one)
    title = _("NCCL's double binary tree on %(p)s %(what)s", p=p, what=what)
    desc = _(
        "Two binary trees over %(what)s %(first)s to %(last)s, rooted at %(root0)s and "
        "%(root1)s. Filled %(what)s are interior (they receive and forward); hollow ones are "
        "leaves. %(overlap)s",
        what=what,
        first=f"{prefix}0",
        last=f"{prefix}{p - 1}",
        root0=f"{prefix}{roots[0]}",
        root1=f"{prefix}{roots[1]}",
        overlap=overlap,
    )
    caption = _(
        "Double binary tree, %(p)s %(what)s (NCCL's ncclGetDtree). Filled: interior, hollow: "
        "leaf. A %(one)s interior in one tree is a leaf in the other, so each half of the data "
        "uses every %(one)s's links about equally.",
        p=p,
        what=what,
        one=one,
    )
    if nodes:
        title = _("NCCL's Tree algorithm across %(p)s nodes", p=p)
        desc += " " + _("Inside each node, not drawn, NCCL joins the GPUs in a chain.")
        caption += " " + _(
            "Each circle is a whole node: inside it NCCL runs a chain through the node's GPUs, "
            "and the chain connects to the trees' links to other nodes."
        )
    return title, desc, caption
