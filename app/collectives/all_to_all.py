"""All-to-all algorithms: block j of rank i goes to rank j, and rank j keeps them in source order.

Chunk s·p + d is the block rank s sends to rank d (M/p bytes, M = elements · itemsize), so
rank d's output is chunks d, p + d, 2p + d, … Sources:

- `pairwise`: MPICH alltoall_intra_pairwise.c, in the shift form it uses when p is not a power
  of two (for powers of two it pairs ranks by XOR; the shift works for every p). In step k
  (k = 1..p-1) rank r sends its block for (r + k) mod p straight there and receives from
  (r - k) mod p. p-1 steps; every rank sends (p-1)/p · M.
- `bruck`: MPICH alltoall_intra_brucks.c, store-and-forward, any p. A block for rank d that
  sits at rank r has offset (d - r) mod p. In step k every rank sends to (r + 2^k) mod p,
  in one message, every block it holds whose offset has bit k set; the block's offset loses
  that bit, so after ceil(lg p) steps every block has offset 0: it is home. Intermediate ranks
  keep their stale copies (the buffer view shows them). At each step every rank holds exactly
  one live block per starting offset, so every rank sends
  (M/p) · Σ_{j=1..p-1} popcount(j) bytes in total, which is (M/2) · lg p for p a power of two.
  MPICH's local rotations before and after are bookkeeping for contiguous buffers; here each
  block has its own slot, so they do not appear as steps.
- `direct`: every rank sends every block to its destination in one all-port step.
"""

from __future__ import annotations

from ..i18n import N_
from .machine import Machine
from .registry import algorithm


def bruck_distances(ranks: int) -> list[int]:
    """Return Bruck's send distances 1, 2, 4, … below `ranks`: ceil(lg p) of them."""
    return [1 << k for k in range((ranks - 1).bit_length())]


@algorithm(
    "all_to_all",
    "pairwise",
    N_("Shift by k in step k: p-1 steps, each rank sends (p-1)/p · M straight to its peers."),
)
def pairwise(m: Machine) -> None:
    p = m.ranks
    m.topology = {"kind": "complete"}
    for k in range(1, p):
        with m.step(f"shift {k}"):
            for r in range(p):
                dst = (r + k) % p
                m.send(r, dst, r * p + dst)


@algorithm(
    "all_to_all",
    "bruck",
    N_(
        "Store-and-forward along distances 1, 2, 4, …: ceil(lg p) steps, about (M/2)·lg p per rank."
    ),
)
def bruck(m: Machine) -> None:
    p = m.ranks
    distances = bruck_distances(p)
    m.topology = {"kind": "circulant", "distances": distances}
    live = [list(range(r * p, (r + 1) * p)) for r in range(p)]  # blocks each rank forwards
    for distance in distances:
        moving = [[c for c in live[r] if (c % p - r) % p & distance] for r in range(p)]
        with m.step(f"distance {distance}"):
            for r in range(p):
                m.send_chunks(r, (r + distance) % p, moving[r])
        live = [_after_step(live[r], moving[r], moving[(r - distance) % p]) for r in range(p)]


def _after_step(held: list[int], sent: list[int], received: list[int]) -> list[int]:
    """Return the blocks a rank forwards next: what it kept plus what it just received."""
    gone = set(sent)
    return sorted([c for c in held if c not in gone] + received)


@algorithm(
    "all_to_all",
    "direct",
    N_("Every rank sends each block straight to its destination in one all-port step."),
    single_port=False,
    ports_note="all-port: each rank sends to and hears from all p-1 peers in the one step",
)
def direct(m: Machine) -> None:
    p = m.ranks
    m.topology = {"kind": "complete"}
    m.all_pairs("all at once", lambda src, dst: src * p + dst)
