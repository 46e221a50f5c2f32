"""Calculators built on the cost model: each a function with named, validated inputs whose
result explains itself (inputs echoed, formula, numbers substituted, a sentence).

    from app.costs.calculators import compare
    compare(collective="allreduce", ranks=64, hardware="ib_ndr", message_bytes=2**20)

Importing a calculator's module registers it in `CALCULATORS` under the same name.
"""

from .compare import compare
from .compression import compression
from .crossover import crossover
from .ddp_overlap import ddp_overlap
from .fields import Field
from .hierarchical import hierarchical
from .moe import moe
from .nccl_model import nccl_model
from .parallelism_3d import parallelism_3d
from .registry import CALCULATORS, Calculator
from .result import Output, Result
from .step_budget import step_budget
from .zero import zero

__all__ = [
    "CALCULATORS",
    "Calculator",
    "Field",
    "Output",
    "Result",
    "compare",
    "compression",
    "crossover",
    "ddp_overlap",
    "hierarchical",
    "moe",
    "nccl_model",
    "parallelism_3d",
    "step_budget",
    "zero",
]
