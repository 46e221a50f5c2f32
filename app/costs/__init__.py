"""The alpha-beta(-gamma) cost model: predict, compare and explain communication time.

Pure Python; nothing here imports the web. Typical use::

    from app.costs import cost
    c = cost("allreduce", "ring", ranks=8, message_bytes=1e9, latency_us=5, bandwidth_gbs=25)
    c.time_s, c.busbw_gbs, c.formula_substituted

Conventions (M, per-direction bandwidth, GB = 1e9) are REFERENCE.md § 1; formulas § 2;
hardware figures § 4 (`HARDWARE`, `SYSTEMS`).
"""

from .errors import CostError
from .hardware import HARDWARE, SYSTEMS, Link, System
from .model import Cost, PhaseCost, algorithms, cost, cost_line, terms_for
from .nccl_tests import algbw_gbs, bus_factor, busbw_gbs
from .terms import ALGORITHMS, COLLECTIVES

__all__ = [
    "ALGORITHMS",
    "COLLECTIVES",
    "HARDWARE",
    "SYSTEMS",
    "Cost",
    "CostError",
    "Link",
    "PhaseCost",
    "System",
    "algbw_gbs",
    "algorithms",
    "bus_factor",
    "busbw_gbs",
    "cost",
    "cost_line",
    "terms_for",
]
