"""What NCCL would pick for one call, and a table of its picks over sizes beside the α-β model.

`nccl_choice` validates its inputs (errors name the field and the allowed range), builds the
communicator's shape, fills NCCL's tables (`tuning.tune`) and takes the fastest entry, as
`topoGetAlgoInfo` does (NVIDIA/nccl v2.30.7-1 src/enqueue.cc 2028-2045).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..checks import choice, integer
from ..errors import CostError
from ..hardware import HARDWARE
from ..nccl_tests import busbw_gbs
from ..ranking import lines
from .constants import FUNCTIONS, NCCL_TAG, RING, SIMPLE
from .graph import Shape
from .systems import NCCL_SYSTEMS
from .tuning import algo_time, tune

MAX_NODES = 4096
MAX_BYTES = 1 << 40  # 1 TiB
TABLE_SIZES = tuple(8 * 4**i for i in range(16))  # 8 B .. 8 GiB by ×4


@dataclass(frozen=True)
class NcclChoice:
    """NCCL's pick for one call and every enabled candidate, fastest first."""

    collective: str
    ranks: int
    nodes: int
    system: str
    bytes: int
    algorithm: str
    protocol: str
    time_us: float
    busbw_gbs: float | None
    candidates: tuple[dict, ...]
    disabled: tuple[dict, ...]
    graphs: dict

    def as_dict(self) -> dict:
        """Return the DESIGN contract's JSON, plus what explains it."""
        return {
            "collective": self.collective,
            "ranks": self.ranks,
            "nodes": self.nodes,
            "system": self.system,
            "bytes": self.bytes,
            "algorithm": self.algorithm,
            "protocol": self.protocol,
            "time_us": self.time_us,
            "busbw_gbs": self.busbw_gbs,
            "candidates": list(self.candidates),
            "disabled": list(self.disabled),
            "graphs": self.graphs,
            "nccl_version": NCCL_TAG,
        }


def shape_for(system: str, ranks: int, nodes: int | None) -> Shape:
    """Validate system, ranks and nodes, and return the communicator's shape."""
    system = choice("system", system, NCCL_SYSTEMS)
    spec = NCCL_SYSTEMS[system]
    ranks = integer("ranks", ranks, low=1, high=MAX_NODES * spec.gpus_per_node)
    if nodes is None:
        nodes = -(-ranks // spec.gpus_per_node)
    nodes = integer("nodes", nodes, low=1, high=min(MAX_NODES, ranks))
    if ranks % nodes:
        raise CostError(f"nodes must divide ranks ({ranks}) evenly, got {nodes}")
    if ranks // nodes > spec.gpus_per_node:
        raise CostError(
            f"nodes must be at least {-(-ranks // spec.gpus_per_node)}: {system} has "
            f"{spec.gpus_per_node} GPUs per node, got {nodes}"
        )
    return Shape(spec, nodes, ranks // nodes)


def nccl_choice(
    collective: str, ranks: int, n_bytes: int, system: str, nodes: int | None = None
) -> NcclChoice:
    """Return which (algorithm, protocol) NCCL's tuning model picks, and its predicted time."""
    collective = choice("collective", collective, FUNCTIONS)
    n_bytes = integer("bytes", n_bytes, low=0, high=MAX_BYTES)
    shape = shape_for(system, ranks, nodes)
    return _choose(collective, shape, n_bytes, system)


def _choose(collective: str, shape: Shape, n_bytes: int, system: str) -> NcclChoice:
    ranks = shape.nodes * shape.ppn
    if ranks == 1:  # enqueue.cc 1993-1996: nothing to move
        return NcclChoice(collective, 1, 1, system, n_bytes, RING, SIMPLE, 0.0, None, (), (), {})
    tables = tune(shape, collective)
    candidates = []
    for entry in tables.entries:
        time = algo_time(tables, entry, n_bytes)
        if time is not None:
            candidates.append(
                {"algorithm": entry.algorithm, "protocol": entry.protocol, "time_us": time}
            )
    candidates.sort(key=lambda c: c["time_us"])  # stable: ties keep NCCL's order
    best = candidates[0]
    return NcclChoice(
        collective=collective,
        ranks=ranks,
        nodes=shape.nodes,
        system=system,
        bytes=n_bytes,
        algorithm=best["algorithm"],
        protocol=best["protocol"],
        time_us=best["time_us"],
        busbw_gbs=busbw_gbs(collective, ranks, n_bytes, best["time_us"] * 1e-6),
        candidates=tuple(candidates),
        disabled=tables.disabled,
        graphs={a: g.as_dict() for a, g in tables.graphs.items() if g is not None},
    )


def alpha_beta_lines(collective: str, shape: Shape) -> dict[str, tuple[float, float]]:
    """This app's α-β lines (intercept s, slope s/byte) per algorithm on the system's links."""
    spec = shape.system
    intra, nic = HARDWARE[spec.intra], HARDWARE[spec.nic]
    if shape.multi_node:
        link = {"latency_us": nic.latency_us, "bandwidth_gbs": nic.bandwidth_gbs}
        link.update(
            ranks_per_node=shape.ppn,
            intra_latency_us=intra.latency_us,
            intra_bandwidth_gbs=intra.bandwidth_gbs,
        )
    else:
        link = {"latency_us": intra.latency_us, "bandwidth_gbs": intra.bandwidth_gbs}
    return lines(collective, ranks=shape.nodes * shape.ppn, **link)


def alpha_beta_best(found: dict[str, tuple[float, float]], n_bytes: int) -> tuple[str, float]:
    """The fastest α-β algorithm at `n_bytes` and its time in µs (first in order on a tie)."""
    name = min(found, key=lambda a: found[a][0] + found[a][1] * n_bytes)
    return name, (found[name][0] + found[name][1] * n_bytes) * 1e6


def nccl_table(
    collective: str,
    ranks: int,
    system: str,
    nodes: int | None = None,
    sizes: tuple[int, ...] = TABLE_SIZES,
) -> dict:
    """NCCL's pick and time at each size, beside the α-β model's fastest algorithm and time."""
    collective = choice("collective", collective, FUNCTIONS)
    shape = shape_for(system, ranks, nodes)
    found = alpha_beta_lines(collective, shape)
    rows = []
    for size in sizes:
        pick = _choose(collective, shape, size, system)
        ab_algorithm, ab_time = alpha_beta_best(found, size)
        rows.append(
            {
                "bytes": size,
                "algorithm": pick.algorithm,
                "protocol": pick.protocol,
                "time_us": pick.time_us,
                "busbw_gbs": pick.busbw_gbs,
                "alpha_beta_algorithm": ab_algorithm,
                "alpha_beta_time_us": ab_time,
            }
        )
    return {
        "collective": collective,
        "ranks": shape.nodes * shape.ppn,
        "nodes": shape.nodes,
        "system": system,
        "nccl_version": NCCL_TAG,
        "rows": rows,
    }
