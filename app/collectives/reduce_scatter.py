"""Reduce-scatter algorithms: rank i ends with block i of the reduction of all inputs.

- `ring`: the first half of ring allreduce (Patarasuk & Yuan 2009): p-1 steps, each rank
  reducing into its right neighbour the partial block it received last, started one block
  earlier than allreduce's so that block i completes at rank i.
- `recursive_halving`: MPICH reduce_scatter_intra_recursive_halving.c. Distance pof2/2 first:
  the lower rank of each pair keeps the lower half of the blocks and reduces in the partner's
  copy of it, so survivor n ends with the n-th group of blocks. Other rank counts fold in and
  out (`hypercube.py`): survivor n carries the blocks of every rank it stands for.
- `direct`: every rank sends block j straight to rank j in one all-port step.
"""

from __future__ import annotations

from ..i18n import N_
from .allreduce_ring import around_the_ring, ring_topology
from .hypercube import Fold, fold_in, fold_out
from .machine import Machine
from .registry import algorithm


@algorithm(
    "reduce_scatter",
    "ring",
    N_(
        "Reduce blocks around a ring: p-1 steps, (p-1)/p · M per rank; block i completes at rank i."
    ),
)
def ring(m: Machine) -> None:
    """Pass partial sums to the right so that block i picks up its last input at rank i."""
    m.topology = ring_topology(m.ranks)
    # Block c starts at rank c + 1 and moves one hop per step: hop p-1 ends at rank c.
    around_the_ring(m, "reduce-scatter", -1, "reduce")


@algorithm(
    "reduce_scatter",
    "recursive_halving",
    N_(
        "Keep half the blocks and reduce the other half into rank XOR 2^k, largest distance first: "
        "lg p steps, (p-1)/p · M per rank (non-powers of two fold in and out: +2 steps)."
    ),
)
def recursive_halving(m: Machine) -> None:
    """Halve the range of block groups each survivor is responsible for, once per dimension."""
    p = m.ranks
    fold = Fold(p)
    m.topology = fold.topology()
    fold_in(m, fold, lambda extra: range(p), "reduce")
    lo, hi = [0] * fold.pof2, [fold.pof2] * fold.pof2  # each survivor's span of groups
    for k in reversed(range(fold.dimensions)):
        size = 1 << k
        with m.step(f"halving k={k}"):
            for n in range(fold.pof2):
                mid = lo[n] + size
                if n & size:
                    give, lo[n] = range(lo[n], mid), mid
                else:
                    give, hi[n] = range(mid, hi[n]), mid
                m.send_chunks(fold.real(n), fold.real(n ^ size), fold.ranks_of(give), "reduce")
    fold_out(m, fold, lambda extra: [extra])


@algorithm(
    "reduce_scatter",
    "direct",
    N_(
        "Every rank sends block j straight to rank j, which reduces all p-1 of them in one step: "
        "(p-1)/p · M per rank."
    ),
    single_port=False,
    ports_note="All-port: each rank sends to and receives from all p-1 peers in one step, "
    "and p-1 reductions land in the same block at once.",
)
def direct(m: Machine) -> None:
    """Send each block to its owner at once."""
    m.topology = {"kind": "complete"}
    m.all_pairs("direct", lambda src, dst: dst, "reduce")
