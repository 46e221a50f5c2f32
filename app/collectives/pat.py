"""PAT allgather and reduce-scatter: NCCL's Parallel Aggregated Trees (NCCL 2.23 and later).

Described by its author in S. Jeaugey, "PAT: a new algorithm for all-gather and reduce-scatter
operations at scale" (arXiv:2506.20252, 2025); this module follows NCCL's code, not the paper.

The schedule is NCCL's own, translated in `pat_schedule.py` from NVIDIA/nccl 2.30.7,
src/include/collectives.h (PatAGAlgorithm, PatRSAlgorithm) and src/device/prims_simple.h (the
peers rank ± 2^d). One engine step is one of NCCL's aggregated steps: in it every rank sends
one message, the blocks that step aggregates, on one dimension d, and receives one: single-port.

- allgather: rank r sends block r + s - 2^d to rank r - 2^d (d the lowest set bit of the
  offset s), so the p blocks go down p shifted binomial trees at once, longest hop first;
- reduce_scatter: the mirror image; rank r adds its input to the partial sum of block x it
  received and sends it to rank r + 2^d, the shortest hop first, until block x reaches rank x.

Each rank sends every block but one once: (p-1)/p · M. For p a power of two there are lg p
steps, step k carrying 2^k blocks (allgather; reduce-scatter in reverse), like Bruck's
allgather with the distances reversed. Other p take ceil(lg p) steps too, except p = 2^k + 1,
where NCCL's aggregation stops one doubling short and there is one step more
(`pat_schedule.step_count`).
"""

from __future__ import annotations

from ..i18n import N_
from .machine import Machine
from .pat_schedule import pat_steps
from .registry import algorithm


def _topology(ranks: int) -> dict:
    distances = [1 << d for d in range(max(ranks - 1, 0).bit_length()) if (1 << d) < ranks]
    return {"kind": "circulant", "distances": distances}


def _run(m: Machine, collective: str, direction: int, op: str) -> None:
    """Play NCCL's steps: a send (d, offset) moves block r + offset to r + direction·2^d."""
    p = m.ranks
    m.topology = _topology(p)
    phase = f"PAT {collective.replace('_', '-')}"
    for sends in pat_steps(collective, p):
        distance = 1 << sends[0][0]  # one dimension per step
        with m.step(f"{phase}, distance {distance}"):
            for r in range(p):
                for dim, offset in sends:
                    m.send(r, (r + direction * (1 << dim)) % p, (r + offset) % p, op)


@algorithm(
    "allgather",
    "pat",
    N_(
        "NCCL's PAT: every rank's block goes down a binomial tree to rank r - 2^d, the longest "
        "hop first, all p trees at once and aggregated: lg p steps for p a power of two, "
        "(p-1)/p · M per rank."
    ),
)
def allgather_pat(m: Machine) -> None:
    _run(m, "allgather", -1, "copy")


@algorithm(
    "reduce_scatter",
    "pat",
    N_(
        "NCCL's PAT: partial sums of block x flow to rank r + 2^d, the shortest hop first, each "
        "rank adding its input on the way, until block x reaches rank x: lg p steps for p a power "
        "of two, (p-1)/p · M per rank."
    ),
)
def reduce_scatter_pat(m: Machine) -> None:
    _run(m, "reduce_scatter", 1, "reduce")
