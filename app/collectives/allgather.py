"""Allgather algorithms: every rank ends with every rank's block, in rank order.

Block c of the working buffer is rank c's input (docs/engine.md), so a block lands in its final
slot the moment it arrives; no algorithm here needs a local rotation.

- `ring`: p-1 steps, each rank forwards the block it received last (Thakur, Rabenseifner &
  Gropp 2005; MPICH allgather_intra_ring.c).
- `recursive_doubling`: in step k swap every block held with rank XOR 2^k (MPICH
  allgather_intra_recursive_doubling.c). Other rank counts fold in and out as MPICH's
  allreduce does (`hypercube.py`), which costs one step more than ceil(lg p).
- `bruck`: Bruck et al., IEEE TPDS 1997; MPICH allgather_intra_brucks.c. Step k sends to
  rank r - 2^k the blocks r, r+1, ... it holds: ceil(lg p) steps for any p.
- `direct`: every rank sends its block to every other in one all-port step.
"""

from __future__ import annotations

from ..i18n import N_
from .all_to_all import bruck_distances
from .allreduce_ring import around_the_ring, ring_topology
from .hypercube import Fold, fold_in, fold_out
from .machine import Machine
from .registry import algorithm


@algorithm(
    "allgather",
    "ring",
    N_("Pass blocks around a ring: p-1 steps, each rank sends (p-1)/p · M."),
)
def ring(m: Machine) -> None:
    """Forward to the right neighbour, each step, the block received in the step before."""
    m.topology = ring_topology(m.ranks)
    around_the_ring(m, "allgather", 0)


@algorithm(
    "allgather",
    "recursive_doubling",
    N_(
        "Swap every block held with rank XOR 2^k: lg p steps, (p-1)/p · M per rank "
        "(non-powers of two fold in and out: lg(pof2) + 2 steps, and folded partners send more)."
    ),
)
def recursive_doubling(m: Machine) -> None:
    """Double the blocks each survivor holds along each hypercube dimension."""
    fold = Fold(m.ranks)
    m.topology = fold.topology()
    fold_in(m, fold, lambda extra: [extra], "copy")
    for k in range(fold.dimensions):
        size = 1 << k
        with m.step(f"exchange k={k}"):
            for n in range(fold.pof2):
                held = fold.ranks_of(fold.group(n, size))
                m.send_chunks(fold.real(n), fold.real(n ^ size), held)
    fold_out(m, fold, lambda extra: [c for c in range(m.ranks) if c != extra])


@algorithm(
    "allgather",
    "bruck",
    N_(
        "Send the blocks held so far to rank r - 2^k: ceil(lg p) steps for any p, "
        "(p-1)/p · M per rank."
    ),
)
def bruck(m: Machine) -> None:
    """Concatenate blocks r, r+1, ... by sending them to rank r - 2^k in step k."""
    p = m.ranks
    distances = bruck_distances(p)
    m.topology = {"kind": "circulant", "distances": distances}
    for d in distances:
        count = min(d, p - d)  # the last step of a non-power of two only needs the rest
        with m.step(f"distance {d}"):
            for r in range(p):
                m.send_chunks(r, (r - d) % p, [(r + i) % p for i in range(count)])


@algorithm(
    "allgather",
    "direct",
    N_("Every rank sends its block to every other in one step: (p-1)/p · M per rank."),
    single_port=False,
    ports_note="All-port: each rank sends to and receives from all p-1 peers in one step, "
    "to make the contention visible.",
)
def direct(m: Machine) -> None:
    """Send every block to every other rank at once."""
    m.topology = {"kind": "complete"}
    m.all_pairs("direct", lambda src, dst: src)
