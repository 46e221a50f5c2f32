"""The numpy reference engine: every collective, every algorithm, executed step by step.

Pure Python and numpy; nothing here knows about the web. Typical use::

    from app.collectives import simulate
    trace = simulate("allreduce", "ring", ranks=8, elements=64)
    trace.total_steps, trace.verified   # (14, True)
"""

# Importing the algorithm modules registers them in the catalog.
from . import (  # noqa: F401
    all_to_all,
    allgather,
    allreduce,
    allreduce_ring,
    broadcast,
    gather_scatter,
    hierarchical,
    reduce,
    reduce_scatter,
    sendrecv,
    trees,
)
from .engine import MAX_RANKS, catalog, simulate
from .errors import CollectiveError
from .layouts import COLLECTIVES, buffer_length, message_bytes
from .ops import OPS
from .trace import Step, Trace, Transfer, ranks_in

__all__ = [
    "COLLECTIVES",
    "MAX_RANKS",
    "OPS",
    "CollectiveError",
    "Step",
    "Trace",
    "Transfer",
    "buffer_length",
    "catalog",
    "message_bytes",
    "ranks_in",
    "simulate",
]
