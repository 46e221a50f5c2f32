"""The catalog: every (collective, algorithm) pair, registered by the module that implements it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .layouts import COLLECTIVES
from .machine import Machine

# The catalog's one order: collectives as `layouts.COLLECTIVES` lists them, then each
# collective's algorithms in this order. Trees and rings come first, the textbook starting points,
# and `direct` (the all-port baseline) last. The first algorithm of a collective is the lab's
# default, and the cost model breaks ties between equally fast algorithms by this order.
ALGORITHM_ORDER = (
    "binomial_tree",
    "ring",
    "ring_bidirectional",
    "pipelined_ring",
    "recursive_doubling",
    "recursive_halving",
    "rabenseifner",
    "pairwise",
    "bruck",
    "binary_tree",
    "double_binary_tree",
    "tree_pipelined",
    "pat",
    "2d_torus",
    "hierarchical",
    "scatter_allgather",
    "reduce_broadcast",
    "pipeline",
    "nvls",
    "collnet",
    "direct",
)


@dataclass(frozen=True)
class Algorithm:
    """One way to run one collective."""

    collective: str
    name: str
    description: str
    run: Callable[[Machine], None]
    # Chunks the data is cut into, from (ranks, elements); used by the vector collectives
    # (allreduce, reduce, broadcast, sendrecv). Block collectives cut by rank.
    parts: Callable[[int, int], int]
    # Single-port model (REFERENCE § 1): each step a rank sends to at most one peer and
    # receives from at most one. Tree and direct algorithms say False and why in `ports_note`.
    single_port: bool = True
    ports_note: str = ""
    needs_ranks_per_node: bool = False
    power_of_two: bool = False  # runs only on a power-of-two rank count
    # In-network algorithms: the switch they need, in words ("" for none), and the most ranks
    # (and ranks per node) that hardware and NCCL allow them; None for no limit of their own.
    needs_switch: str = ""
    max_ranks: int | None = None
    max_ranks_per_node: int | None = None
    # Chunks from ranks_per_node, for an algorithm whose chunking follows the node size; it
    # takes the place of `parts`.
    node_parts: Callable[[int], int] | None = None
    # Ranks -> (rows, columns) for algorithms that run on a grid, and the rule in words: the
    # catalog says it, the cost model calls the same function.
    grid: Callable[[int], tuple[int, int]] | None = None
    grid_rule: str = ""
    # How many times the usual bound of (rank, chunk) cells a run changes this one may change
    # (app/web/guard/admission.py sizes a run's memory by it): 2 where every rank takes two
    # chunks a step for as many steps as the ring.
    cell_updates_factor: float = 1.0


REGISTRY: dict[tuple[str, str], Algorithm] = {}


def algorithm(
    collective: str,
    name: str,
    description: str,
    *,
    parts: Callable[[int, int], int] = lambda ranks, elements: 1,
    single_port: bool = True,
    ports_note: str = "",
    needs_ranks_per_node: bool = False,
    power_of_two: bool = False,
    needs_switch: str = "",
    max_ranks: int | None = None,
    max_ranks_per_node: int | None = None,
    node_parts: Callable[[int], int] | None = None,
    grid: Callable[[int], tuple[int, int]] | None = None,
    grid_rule: str = "",
    cell_updates_factor: float = 1.0,
) -> Callable[[Callable[[Machine], None]], Callable[[Machine], None]]:
    """Register the decorated function as `collective`/`name` in the catalog."""

    def register(run: Callable[[Machine], None]) -> Callable[[Machine], None]:
        key = (collective, name)
        if key in REGISTRY:
            raise RuntimeError(f"{collective}/{name} registered twice")
        catalog_order(key)  # an unplaced name fails at import, not in the catalog
        REGISTRY[key] = Algorithm(
            collective,
            name,
            description,
            run,
            parts,
            single_port,
            ports_note,
            needs_ranks_per_node,
            power_of_two,
            needs_switch,
            max_ranks,
            max_ranks_per_node,
            node_parts,
            grid,
            grid_rule,
            cell_updates_factor,
        )
        return run

    return register


def catalog_order(key: tuple[str, str]) -> tuple[int, int]:
    """Return where (collective, algorithm) stands in the catalog: sort keys by this."""
    collective, name = key
    if collective not in COLLECTIVES or name not in ALGORITHM_ORDER:
        raise RuntimeError(f"{collective}/{name} has no place in the catalog order (registry.py)")
    return list(COLLECTIVES).index(collective), ALGORITHM_ORDER.index(name)


def algorithms() -> list[Algorithm]:
    """List every registered algorithm in catalog order."""
    return [REGISTRY[key] for key in sorted(REGISTRY, key=catalog_order)]
