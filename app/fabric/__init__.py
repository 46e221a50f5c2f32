"""Physical topologies and a clock: collectives raced on NVSwitch, PCIe, NVL72, fat-trees, tori.

Pure Python and numpy, below the web layer; uses the engine (app.collectives) for traces and
the cost model (app.costs) for presets, busbw and crossovers. Typical use::

    from app.fabric import race, sweep
    r = race("allreduce", ["ring", "recursive_doubling"], ranks=16, message_bytes=1 << 24,
             topology="fat_tree", nodes=2, gpus_per_node=8, oversubscription=2)
    r.verdict, r.as_dict()["runs"][0]["time_s"]

Modules: graph (nodes, links), single_node and multi_node (builders), presets (which
hardware figures), registry (names, parameters, checks), mapping (rank → GPU), routing
(shortest paths, ECMP), traces (engine steps as shares of M), clock (step times), setup
(input checks), race, verdict, sweep.
"""

from .errors import FabricError
from .graph import Link, Node, Topology
from .mapping import MAPPINGS, place
from .race import Race, Run, race
from .registry import TOPOLOGIES, topology
from .setup import MAX_ALGORITHMS
from .sweep import sweep

__all__ = [
    "MAPPINGS",
    "MAX_ALGORITHMS",
    "TOPOLOGIES",
    "FabricError",
    "Link",
    "Node",
    "Race",
    "Run",
    "Topology",
    "place",
    "race",
    "sweep",
    "topology",
]
