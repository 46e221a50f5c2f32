"""Allreduce beyond the ring: recursive doubling, Rabenseifner, reduce-broadcast and direct.

- `recursive_doubling` (butterfly): MPICH allreduce_intra_recursive_doubling.c. In step k every
  survivor swaps its whole vector with rank XOR 2^k and reduces: lg p steps of M each.
- `rabenseifner`: MPICH allreduce_intra_reduce_scatter_allgather.c (Rabenseifner 2004; Thakur,
  Rabenseifner & Gropp 2005). A recursive-halving reduce-scatter (distance 1 first, as MPICH)
  then a recursive-doubling allgather over pof2 chunks: 2 lg p steps, 2(p-1)/p · M per rank.
- `reduce_broadcast`: the naive baseline through rank 0 under the single-port model; the root
  takes one whole vector per step, then hands the result out one rank per step.
- `direct`: everyone sends everything to everyone in one all-port step.

For p not a power of two the hypercube algorithms fold in and out as MPICH does
(see `hypercube.py`): two extra steps, and each folded partner sends one extra M.
"""

from __future__ import annotations

from ..i18n import N_
from .hypercube import Fold, fold_in, fold_out, largest_power_of_two
from .machine import Machine
from .registry import algorithm


@algorithm(
    "allreduce",
    "recursive_doubling",
    N_(
        "Butterfly: swap the whole vector with rank XOR 2^k and reduce; lg p steps of M each "
        "(non-powers of two fold in and out: +2 steps)."
    ),
)
def recursive_doubling(m: Machine) -> None:
    """Reduce the whole vector along each hypercube dimension in turn."""
    fold = Fold(m.ranks)
    m.topology = fold.topology()
    whole = [0]
    fold_in(m, fold, lambda extra: whole, "reduce")
    for k in range(fold.dimensions):
        with m.step(f"exchange k={k}"):
            for n in range(fold.pof2):
                m.send(fold.real(n), fold.real(n ^ (1 << k)), 0, "reduce")
    fold_out(m, fold, lambda extra: whole)


@algorithm(
    "allreduce",
    "rabenseifner",
    N_(
        "Recursive-halving reduce-scatter then recursive-doubling allgather: 2 lg p steps, "
        "2(p-1)/p · M per rank (non-powers of two fold in and out: +2 steps)."
    ),
    parts=lambda ranks, elements: largest_power_of_two(ranks),
)
def rabenseifner(m: Machine) -> None:
    """Reduce-scatter by halving, then allgather by doubling, over pof2 chunks."""
    fold = Fold(m.ranks)
    m.topology = fold.topology()
    every = range(fold.pof2)
    fold_in(m, fold, lambda extra: every, "reduce")
    spans = _halve(m, fold)
    _double(m, fold, spans)
    fold_out(m, fold, lambda extra: every)


def _halve(m: Machine, fold: Fold) -> list[tuple[int, int]]:
    """Run the reduce-scatter; return each survivor's finished span of chunks [lo, hi)."""
    spans = [(0, fold.pof2)] * fold.pof2
    for k in range(fold.dimensions):
        bit = 1 << k
        kept = []
        with m.step("reduce-scatter"):
            for n, (lo, hi) in enumerate(spans):
                mid = (lo + hi) // 2
                # MPICH: the lower rank of the pair keeps the lower half.
                keep, give = ((lo, mid), (mid, hi)) if not n & bit else ((mid, hi), (lo, mid))
                m.send_chunks(fold.real(n), fold.real(n ^ bit), range(*give), "reduce")
                kept.append(keep)
        spans = kept
    return spans


def _double(m: Machine, fold: Fold, spans: list[tuple[int, int]]) -> None:
    """Run the allgather, undoing the halving in reverse order of distance."""
    for k in reversed(range(fold.dimensions)):
        bit = 1 << k
        with m.step("allgather"):
            for n, (lo, hi) in enumerate(spans):
                m.send_chunks(fold.real(n), fold.real(n ^ bit), range(lo, hi), "copy")
        spans = [
            (min(lo, spans[n ^ bit][0]), max(hi, spans[n ^ bit][1]))
            for n, (lo, hi) in enumerate(spans)
        ]


@algorithm(
    "allreduce",
    "reduce_broadcast",
    N_(
        "Naive baseline through rank 0: the root takes one rank's vector per step, then sends the "
        "result to one rank per step: 2(p-1) steps, the root sends (p-1) · M."
    ),
)
def reduce_broadcast(m: Machine) -> None:
    """Funnel every vector into rank 0, then hand the result out one rank at a time."""
    p = m.ranks
    m.topology = {"kind": "tree", "parent": [-1] + [0] * (p - 1)}
    for r in range(1, p):
        with m.step("reduce"):
            m.send(r, 0, 0, "reduce")
    for r in range(1, p):
        with m.step("broadcast"):
            m.send(0, r, 0, "copy")


@algorithm(
    "allreduce",
    "direct",
    N_(
        "Every rank sends its whole vector to every other and reduces what arrives: one step, "
        "(p-1) · M per rank."
    ),
    single_port=False,
    ports_note="All-port: each rank sends to and receives from all p-1 peers in one step, "
    "to make the contention visible.",
)
def direct(m: Machine) -> None:
    """Send every vector to every other rank at once."""
    m.topology = {"kind": "complete"}
    m.all_pairs("direct", lambda src, dst: 0, "reduce")
