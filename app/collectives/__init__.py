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
    innetwork,
    pat,
    reduce,
    reduce_scatter,
    ring_bidirectional,
    sendrecv,
    torus,
    tree_pipelined,
    trees,
)
from .engine import catalog, simulate
from .errors import CollectiveError
from .layouts import COLLECTIVES, buffer_length, message_bytes
from .ops import OPS
from .parameters import (
    FIELDS,
    MAX_RANKS,
    Limits,
    check,
    from_text,
    integer,
    max_elements,
    node_split_problem,
    read_integer,
)
from .trace import Step, Trace, Transfer, chunk_label, ranks_in

__all__ = [
    "COLLECTIVES",
    "FIELDS",
    "MAX_RANKS",
    "OPS",
    "CollectiveError",
    "Limits",
    "Step",
    "Trace",
    "Transfer",
    "buffer_length",
    "catalog",
    "check",
    "chunk_label",
    "from_text",
    "integer",
    "max_elements",
    "message_bytes",
    "node_split_problem",
    "ranks_in",
    "read_integer",
    "simulate",
]
