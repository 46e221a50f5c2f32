"""Ring allreduce: a reduce-scatter around the ring, then an allgather around it.

Rank r starts by sending chunk r to its right neighbour. In reduce-scatter step s it sends
chunk (r - s) mod p, which its left neighbour reduces into its own copy; after p-1 steps rank r
holds the full reduction of chunk (r + 1) mod p. The allgather then passes the finished chunks
on for p-1 more steps. Each rank sends 2(p-1) chunks of M/p: 2(p-1)/p · M bytes, the lower
bound for allreduce (Patarasuk & Yuan 2009).
"""

from __future__ import annotations

from .machine import Machine
from .registry import algorithm


def ring_topology(ranks: int) -> dict:
    """Describe a ring 0 → 1 → … → p-1 → 0 for the animation."""
    return {"kind": "ring", "order": list(range(ranks))}


@algorithm(
    "allreduce",
    "ring",
    "Reduce-scatter then allgather around a ring: 2(p-1) steps, bandwidth-optimal.",
    parts=lambda ranks, elements: ranks,
)
def ring(m: Machine) -> None:
    p = m.ranks
    m.topology = ring_topology(p)
    for s in range(p - 1):
        with m.step("reduce-scatter"):
            for r in range(p):
                m.send(r, (r + 1) % p, (r - s) % p, "reduce")
    for s in range(p - 1):
        with m.step("allgather"):
            for r in range(p):
                m.send(r, (r + 1) % p, (r + 1 - s) % p, "copy")
