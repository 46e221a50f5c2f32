"""Check a race's or a sweep's inputs and prepare what both need: the topology, where each
rank runs, each algorithm's routed steps, and the α-β model's inputs for the same preset.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.collectives import COLLECTIVES, MAX_RANKS, check, node_split_problem
from app.collectives.registry import REGISTRY, catalog_order
from app.costs.checks import number
from app.costs.model import MAX_MESSAGE_BYTES

from .clock import StepProfile, profile
from .errors import FabricError
from .graph import Topology
from .mapping import place
from .presets import resolve
from .registry import TOPOLOGIES
from .registry import topology as build
from .traces import shape

MAX_ALGORITHMS = 4
MIN_RANKS = 2


@dataclass(frozen=True)
class Prepared:
    """Everything a race or a sweep computes from."""

    collective: str
    algorithms: tuple[str, ...]
    ranks: int
    topology: Topology
    mapping: str
    placement: tuple[int, ...]  # node index of each rank's GPU
    profiles: dict[str, tuple[StepProfile, ...]]
    model_inputs: dict[str, dict]  # per algorithm: app.costs.cost's link arguments


def algorithm_names(collective: object, algorithms: object) -> tuple[str, tuple[str, ...]]:
    """Check the collective and 1..MAX_ALGORITHMS distinct algorithms of it."""
    if not isinstance(collective, str) or collective not in COLLECTIVES:
        raise FabricError(
            f"collective must be one of {', '.join(COLLECTIVES)}; got {collective!r:.40}"
        )
    offered = [name for (c, name) in sorted(REGISTRY, key=catalog_order) if c == collective]
    if isinstance(algorithms, str) or not isinstance(algorithms, list | tuple):
        raise FabricError(f"algorithms must be a list of 1 to {MAX_ALGORITHMS} names")
    names = tuple(algorithms)
    if not 1 <= len(names) <= MAX_ALGORITHMS or len(set(names)) != len(names):
        raise FabricError(
            f"algorithms must be 1 to {MAX_ALGORITHMS} distinct names of {collective}'s "
            f"algorithms ({', '.join(offered)}); got {len(names)}"
        )
    for name in names:
        if name not in offered:
            raise FabricError(
                f"algorithms: {str(name)[:40]!r} is not an algorithm of {collective}; "
                f"allowed: {', '.join(offered)}"
            )
    return collective, names


def message_size(message_bytes: object, field: str = "bytes") -> float:
    """Check a message size in bytes: a number in [1, 1 TiB] (the cost model's maximum)."""
    return number(field, message_bytes, low=1.0, high=MAX_MESSAGE_BYTES)


def prepare(
    collective: str,
    algorithms,
    ranks: int,
    topology: str,
    preset: str | None,
    mapping: str,
    params: dict,
    max_ranks: int = MAX_RANKS,
) -> Prepared:
    """Check every input (FabricError or CollectiveError naming the field) and route the runs."""
    collective, names = algorithm_names(collective, algorithms)
    if isinstance(ranks, bool) or not isinstance(ranks, int) or not MIN_RANKS <= ranks <= max_ranks:
        raise FabricError(
            f"ranks must be an integer in {MIN_RANKS}..{max_ranks}; got {ranks!r:.40}"
        )
    topo = build(topology, ranks=ranks, preset=preset, **params)
    placement = tuple(place(topo, ranks, mapping))
    links = resolve(topo.preset, TOPOLOGIES[topo.name].presets())
    profiles, model_inputs = {}, {}
    for name in names:
        per_node = None
        if REGISTRY[(collective, name)].needs_switch:
            # Its transfers go into a switch that adds (a node after the ranks, docs/engine.md);
            # the clock routes rank-to-rank transfers onto links and has no adding switch.
            raise FabricError(
                f"algorithms: {name} needs {REGISTRY[(collective, name)].needs_switch}; the "
                "race clock routes rank-to-rank transfers and has no switch that adds"
            )
        if REGISTRY[(collective, name)].needs_ranks_per_node:
            per_node = topo.gpus_per_node
            problem = node_split_problem(ranks, per_node, f"{topo.name}'s gpus_per_node")
            if problem:
                raise FabricError(f"algorithms: {name} needs whole nodes: {problem}")
        check(
            {
                "collective": collective,
                "algorithm": name,
                "ranks": ranks,
                "elements": ranks,
                "ranks_per_node": per_node,
            }
        )  # power of two and the like, named by the engine
        profiles[name] = profile(shape(collective, name, ranks, per_node), topo, placement)
        model = {"latency_us": links.inter.latency_us, "bandwidth_gbs": links.inter.bandwidth_gbs}
        if per_node is not None:
            model.update(
                ranks_per_node=per_node,
                intra_latency_us=links.intra.latency_us,
                intra_bandwidth_gbs=links.intra.bandwidth_gbs,
            )
        model_inputs[name] = model
    return Prepared(collective, names, ranks, topo, mapping, placement, profiles, model_inputs)
