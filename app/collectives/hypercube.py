"""The power-of-two hypercube and MPICH's fold-in / fold-out for any other number of ranks.

Recursive doubling, recursive halving and Rabenseifner pair rank n with rank n XOR 2^k, which
needs a power of two. MPICH (allreduce_intra_recursive_doubling.c, reduce_scatter_intra_
recursive_halving.c, allreduce_intra_reduce_scatter_allgather.c) handles any p the same way:
with pof2 the largest power of two <= p and rem = p - pof2, each even rank r < 2·rem hands its
data to r + 1 and sits out (fold-in, one step); the pof2 survivors renumber 0..pof2-1 and run
the power-of-two algorithm; then each odd rank r < 2·rem sends r - 1 its result (fold-out,
one step). This module is the one place that pairing lives.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .machine import Machine


def floor_log2(ranks: int) -> int:
    """Return floor(log2 ranks) for ranks >= 1: the hypercube's dimensions (0 for one rank)."""
    return max(ranks, 1).bit_length() - 1


def largest_power_of_two(ranks: int) -> int:
    """Return the largest power of two that is <= `ranks` (1 for a single rank)."""
    return 1 << floor_log2(ranks)


class Fold:
    """The MPICH renumbering of p ranks onto a hypercube of pof2 survivors."""

    def __init__(self, ranks: int) -> None:
        self.ranks = ranks
        self.pof2 = largest_power_of_two(ranks)
        self.rem = ranks - self.pof2
        self.dimensions = floor_log2(ranks)

    @property
    def extras(self) -> list[int]:
        """List the ranks that sit out the hypercube phase: even ranks below 2·rem."""
        return list(range(0, 2 * self.rem, 2))

    def partner(self, extra: int) -> int:
        """Return the survivor that stands in for `extra` (always extra + 1)."""
        return extra + 1

    def real(self, newrank: int) -> int:
        """Return the real rank of survivor `newrank` (MPICH's `dst` computation)."""
        return 2 * newrank + 1 if newrank < self.rem else newrank + self.rem

    def stands_for(self, newrank: int) -> list[int]:
        """List the real ranks whose data survivor `newrank` carries, ascending."""
        if newrank < self.rem:
            return [2 * newrank, 2 * newrank + 1]
        return [newrank + self.rem]

    def group(self, newrank: int, size: int) -> range:
        """Return the aligned block of `size` survivors (a sub-cube) that contains `newrank`."""
        start = newrank - newrank % size
        return range(start, start + size)

    def ranks_of(self, newranks: Iterable[int]) -> list[int]:
        """List the real ranks that a set of survivors carries, ascending."""
        return [r for n in newranks for r in self.stands_for(n)]

    def topology(self) -> dict:
        """Describe the hypercube and the folded pairs for the animation (docs/engine.md)."""
        folded = {extra: self.partner(extra) for extra in self.extras}
        return {"kind": "hypercube", "pof2": self.pof2, "folded": folded}


def fold_in(m: Machine, fold: Fold, chunks: Callable[[int], Iterable[int]], op: str) -> None:
    """Have every extra rank send `chunks(extra)` to its partner in one step."""
    if not fold.rem:
        return
    with m.step("fold-in"):
        for extra in fold.extras:
            m.send_chunks(extra, fold.partner(extra), chunks(extra), op)


def fold_out(m: Machine, fold: Fold, chunks: Callable[[int], Iterable[int]]) -> None:
    """Have every partner copy `chunks(extra)` back to its extra rank in one step."""
    if not fold.rem:
        return
    with m.step("fold-out"):
        for extra in fold.extras:
            m.send_chunks(fold.partner(extra), extra, chunks(extra), "copy")
