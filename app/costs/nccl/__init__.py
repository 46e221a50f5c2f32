"""NCCL's own tuning model (NVIDIA/nccl v2.30.7-1 src/graph/tuning.cc), run on system presets.

    from app.costs.nccl import nccl_choice
    nccl_choice("allreduce", ranks=16, n_bytes=1 << 30, system="dgx_h100", nodes=2)

`constants` holds the transcribed tables, `systems` the node presets, `graph` the simplified
graph search, `tuning` the cost tables and time, `choice` the pick and the size table.
"""

from .choice import MAX_BYTES, MAX_NODES, TABLE_SIZES, NcclChoice, nccl_choice, nccl_table
from .constants import FUNCTIONS, NCCL_TAG, NCCL_VERSION
from .systems import NCCL_SYSTEMS, NcclSystem

__all__ = [
    "FUNCTIONS",
    "MAX_BYTES",
    "MAX_NODES",
    "NCCL_SYSTEMS",
    "NCCL_TAG",
    "NCCL_VERSION",
    "TABLE_SIZES",
    "NcclChoice",
    "NcclSystem",
    "nccl_choice",
    "nccl_table",
]
