"""Diagrams for lessons, drawn as inline SVG from data: rings, trees, hypercubes, nodes.

Each kind is a function of a few parameters (`@diagram ring ranks=8`). Shapes come from the
engine wherever the engine has them: the ring's transfers and holdings from a real
`simulate("allreduce", "ring")`, the trees from `app.collectives.trees`, so a picture and the
animation cannot disagree. Every SVG is accessible: role="img" with a <title> and a <desc>
that says in words what the picture shows.

- `base`: the result, the error, and typed parameters; `canvas`: palette and SVG blocks.
- `ring`, `ring_steps`, `tree`, `hypercube`, `hardware`: one module per family of kinds.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Diagram, DiagramError, Params
from .canvas import CHUNK_COLORS, RANK_FILLED, chunk_color, chunk_label
from .hardware import hierarchical, node
from .hypercube import hypercube
from .ring import ring
from .ring_steps import ring_steps
from .tree import double_binary_tree, tree

KINDS: dict[str, Callable[[Params, str], Diagram]] = {
    "ring": ring,
    "ring-steps": ring_steps,
    "tree": tree,
    "double-binary-tree": double_binary_tree,
    "hypercube": hypercube,
    "hierarchical": hierarchical,
    "node": node,
}


def render_diagram(kind: str, params: dict[str, str], uid: str, language: str = "en") -> Diagram:
    """Draw diagram `kind` with `params`, its words in `language`; `uid` makes its element ids
    unique on the page."""
    draw = KINDS.get(kind)
    if draw is None:
        raise DiagramError(f"unknown diagram kind {kind!r}; kinds: {', '.join(KINDS)}")
    return draw(Params(kind, params, language), uid)


__all__ = [
    "CHUNK_COLORS",
    "KINDS",
    "RANK_FILLED",
    "Diagram",
    "DiagramError",
    "chunk_color",
    "chunk_label",
    "render_diagram",
]
