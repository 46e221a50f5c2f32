"""The picture of a run before its first step (templates/lab/_step0.html): the topology view
(app/drawing/topology.py) and the buffer grid (app/drawing/grid.py), with a sentence saying
what they show. The embed paints it from the HTML before any script loads (docs/lab.md § Embed).
"""

from __future__ import annotations

from app.collectives import Trace
from app.i18n import DEFAULT, N_
from app.i18n.catalog import translate

from .grid import GOAL_OUTLINES, goal_cells, grid
from .topology import topology

__all__ = ["GOAL_OUTLINES", "goal_cells", "picture", "summary"]


def picture(trace: Trace, lang: str = DEFAULT) -> dict:
    """Both views of a run at step 0, and what they say in words (in `lang`); the same in
    either theme (colours come from the page's CSS)."""
    return {
        "topology": topology(trace, lang),
        "grid": grid(trace, lang),
        "summary": summary(trace, lang),
        "topology_label": topology_label(trace, lang),
    }


def topology_label(trace: Trace, lang: str = DEFAULT) -> str:
    """The topology picture's text alternative (its aria-label), in the embed and on the socket."""
    return translate(
        lang, N_("Step 0, before the first transfer: %(summary)s"), summary=summary(trace, lang)
    )


def summary(trace: Trace, lang: str = DEFAULT) -> str:
    """The run before its first step, in words: the pictures' text alternative."""
    return translate(
        lang,
        N_(
            "%(ranks)s ranks before the first step; "
            "%(held)s of %(cells)s (rank, chunk) cells hold data"
        ),
        ranks=trace.ranks,
        held=sum(1 for m in trace.initial_holdings.values() if m),
        cells=trace.ranks * len(trace.chunks),
    )
