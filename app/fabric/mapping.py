"""Rank → GPU placement: which GPU of the topology runs each rank.

`fill` puts rank r on the topology's r-th GPU: nodes fill up in order, as a launcher with
consecutive local ranks does. `round_robin` deals ranks across the machines (nodes, sockets,
trays) like cards, so neighbouring ranks land on different machines: the bad mapping that
makes a ring cross the network at every hop.
"""

from __future__ import annotations

from .errors import FabricError
from .graph import Topology

MAPPINGS = ("fill", "round_robin")


def place(topology: Topology, ranks: int, mapping: str = "fill") -> list[int]:
    """Return the node index of the GPU each rank runs on."""
    if mapping not in MAPPINGS:
        raise FabricError(f"mapping must be one of {', '.join(MAPPINGS)}; got {mapping!r:.40}")
    gpus = topology.gpus
    if not 1 <= ranks <= len(gpus):
        raise FabricError(
            f"ranks must be an integer in 1..{len(gpus)} on topology {topology.name} "
            f"({len(gpus)} GPUs); got {ranks}"
        )
    if mapping == "fill":
        return gpus[:ranks]
    groups = topology.groups
    deepest = max(len(g) for g in groups)
    order = [g[slot] for slot in range(deepest) for g in groups if slot < len(g)]
    return [gpus[position] for position in order[:ranks]]
