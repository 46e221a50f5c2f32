"""The catalog: every (collective, algorithm) pair, registered by the module that implements it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .machine import Machine


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
) -> Callable[[Callable[[Machine], None]], Callable[[Machine], None]]:
    """Register the decorated function as `collective`/`name` in the catalog."""

    def register(run: Callable[[Machine], None]) -> Callable[[Machine], None]:
        key = (collective, name)
        if key in REGISTRY:
            raise RuntimeError(f"{collective}/{name} registered twice")
        REGISTRY[key] = Algorithm(
            collective,
            name,
            description,
            run,
            parts,
            single_port,
            ports_note,
            needs_ranks_per_node,
        )
        return run

    return register
