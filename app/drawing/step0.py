"""The picture of a run before its first step (templates/lab/_step0.html): the topology view
(app/drawing/topology.py) and the buffer grid (app/drawing/grid.py), with a sentence saying
what they show. The embed paints it from the HTML before any script loads (docs/lab.md § Embed).
"""

from __future__ import annotations

from app.collectives import Trace

from .grid import GOAL_OUTLINES, goal_cells, grid
from .topology import topology

__all__ = ["GOAL_OUTLINES", "goal_cells", "picture", "summary"]


def picture(trace: Trace) -> dict:
    """Both views of a run at step 0, and what they say in words; the same in either theme
    (colours come from the page's CSS)."""
    return {
        "topology": topology(trace),
        "grid": grid(trace),
        "summary": summary(trace),
        "topology_label": topology_label(trace),
    }


def topology_label(trace: Trace) -> str:
    """The topology picture's text alternative (its aria-label), in the embed and on the socket."""
    return "Step 0, before the first transfer: " + summary(trace)


def summary(trace: Trace) -> str:
    """The run before its first step, in words: the pictures' text alternative."""
    chunks = len(trace.chunks)
    return (
        f"{trace.ranks} ranks before the first step; "
        f"{sum(1 for m in trace.initial_holdings.values() if m)} of "
        f"{trace.ranks * chunks} (rank, chunk) cells hold data"
    )
