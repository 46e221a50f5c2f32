"""Allgather algorithms: every rank ends with every rank's block, in rank order."""

from __future__ import annotations

from .allreduce_ring import ring_topology
from .machine import Machine
from .registry import algorithm


@algorithm(
    "allgather",
    "ring",
    "Pass blocks around a ring: p-1 steps, each rank sends (p-1)/p · M.",
)
def ring(m: Machine) -> None:
    p = m.ranks
    m.topology = ring_topology(p)
    for s in range(p - 1):
        with m.step("allgather"):
            for r in range(p):
                m.send(r, (r + 1) % p, (r - s) % p)
