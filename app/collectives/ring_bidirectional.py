"""Bidirectional ring allreduce: half the vector around the ring each way, at the same time.

NCCL builds its rings on links that carry data both ways at once (NVLink, InfiniBand are full
duplex), and a plain ring only ever uses one direction of each link. Sending the first half of
the vector clockwise (rank r to r+1) and the second half counter-clockwise (rank r to r-1) in
the same steps uses both: each half is a ring allreduce of its own, on chunks 0..p-1 and
p..2p-1 (M/2p each).

Port model: in every step each rank sends to *both* neighbours and hears from both, so this is
not single-port (REFERENCE § 1); it assumes each link is full duplex and a rank can drive its two
links at once. Counts: 2(p-1) steps, each rank sends 2(p-1)/p · M in all, as the ring does, but
a step's largest message is M/2p instead of M/p, so the bandwidth term halves to (p-1)/p · M·β.
With two ranks both directions are the same link, and nothing is gained.
"""

from __future__ import annotations

from ..i18n import N_
from .machine import Machine
from .registry import algorithm

CLOCKWISE, COUNTER_CLOCKWISE = 1, -1


def _around(m: Machine, phase: str, offset: int, op: str) -> None:
    """Run p-1 steps of both rings: direction d sends chunk (d·r + offset - s) of its half.

    The counter-clockwise ring is the clockwise one with rank r relabelled -r mod p, so the
    same chunk rule (`allreduce_ring.around_the_ring`) holds with d·r in place of r.
    """
    p = m.ranks
    for s in range(p - 1):
        with m.step(phase):
            for half, d in enumerate((CLOCKWISE, COUNTER_CLOCKWISE)):
                for r in range(p):
                    m.send(r, (r + d) % p, half * p + (d * r + offset - s) % p, op)


@algorithm(
    "allreduce",
    "ring_bidirectional",
    N_(
        "Two ring allreduces at once on half the vector each, one clockwise and one "
        "counter-clockwise (as NCCL uses both directions of a duplex link): 2(p-1) steps of M/2p "
        "per direction, 2(p-1)/p · M per rank."
    ),
    parts=lambda ranks, elements: 2 * ranks,
    cell_updates_factor=2.0,  # two chunks into every rank a step: twice the ring's updates
    single_port=False,
    ports_note="Each step a rank sends to both neighbours and hears from both (one message each "
    "way on each of its two full-duplex links), so two ports are busy at once.",
)
def ring_bidirectional(m: Machine) -> None:
    m.topology = {"kind": "ring", "order": list(range(m.ranks)), "bidirectional": True}
    _around(m, "reduce-scatter (both directions)", 0, "reduce")
    _around(m, "allgather (both directions)", 1, "copy")
