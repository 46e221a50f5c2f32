"""Calculators built on the cost model: each a function with named, validated inputs whose
result explains itself (inputs echoed, formula, numbers substituted, a sentence).

    from app.costs.calculators import CALCULATORS, compare
    compare(collective="allreduce", ranks=64, hardware="ib_ndr", message_bytes=2**20)
"""

from . import compare as _compare_module  # noqa: F401  (each module registers its calculator)
from . import compression as _compression_module  # noqa: F401
from . import crossover as _crossover_module  # noqa: F401
from . import ddp as _ddp_module  # noqa: F401
from . import hierarchy as _hierarchy_module  # noqa: F401
from . import moe as _moe_module  # noqa: F401
from . import parallel3d as _parallel3d_module  # noqa: F401
from . import zero as _zero_module  # noqa: F401
from .fields import Field
from .registry import CALCULATORS, Calculator, get
from .result import Output, Result

compare = _compare_module.compare
compression = _compression_module.compression
crossover = _crossover_module.crossover
ddp = _ddp_module.ddp
hierarchy = _hierarchy_module.hierarchy
moe = _moe_module.moe
parallel3d = _parallel3d_module.parallel3d
zero = _zero_module.zero

__all__ = [
    "CALCULATORS",
    "Calculator",
    "Field",
    "Output",
    "Result",
    "compare",
    "compression",
    "crossover",
    "ddp",
    "get",
    "hierarchy",
    "moe",
    "parallel3d",
    "zero",
]
