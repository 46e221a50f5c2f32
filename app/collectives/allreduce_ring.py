"""Ring allreduce: a reduce-scatter around the ring, then an allgather around it.

The pass around the ring lives here too; every ring algorithm runs it (`around_the_ring`).

Rank r starts by sending chunk r to its right neighbour. In reduce-scatter step s it sends
chunk (r - s) mod p, which its left neighbour reduces into its own copy; after p-1 steps rank r
holds the full reduction of chunk (r + 1) mod p. The allgather then passes the finished chunks
on for p-1 more steps. Each rank sends 2(p-1) chunks of M/p: 2(p-1)/p · M bytes, the lower
bound for allreduce (Patarasuk & Yuan 2009).
"""

from __future__ import annotations

from ..i18n import N_
from .machine import Machine
from .registry import algorithm


def ring_topology(ranks: int) -> dict:
    """Describe a ring 0 → 1 → … → p-1 → 0 for the animation."""
    return {"kind": "ring", "order": list(range(ranks))}


def around_the_ring(m: Machine, phase: str, offset: int, op: str = "copy") -> None:
    """Run p-1 steps around the ring: in step s every rank r sends chunk (r + offset - s) mod p.

    Chunk c leaves rank c - offset in step 0, moves one hop a step, and its last hop ends at
    rank c - offset - 1: in a reduce-scatter that rank holds chunk c complete, so the offset is
    what decides which rank ends with which chunk.
    """
    p = m.ranks
    for s in range(p - 1):
        with m.step(phase):
            for r in range(p):
                m.send(r, (r + 1) % p, (r + offset - s) % p, op)


@algorithm(
    "allreduce",
    "ring",
    N_("Reduce-scatter then allgather around a ring: 2(p-1) steps, bandwidth-optimal."),
    parts=lambda ranks, elements: ranks,
)
def ring(m: Machine) -> None:
    m.topology = ring_topology(m.ranks)
    around_the_ring(m, "reduce-scatter", 0, "reduce")  # rank r ends with chunk r + 1
    around_the_ring(m, "allgather", 1)  # which it sends first
