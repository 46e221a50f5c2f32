"""Rank every algorithm of a collective, and find where the fastest one changes with size.

Each algorithm's time is a line in M (time = a + b·M, `model.cost_line`), so the fastest
algorithm over a size range is the lower envelope of lines and every change of winner happens
exactly where two lines cross: M* = (a₂ − a₁) / (b₁ − b₂).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.collectives import node_split_problem
from app.collectives.registry import REGISTRY

from .checks import integer
from .errors import CostError
from .model import Cost, algorithms, cost, cost_line
from .nccl_tests import MAX_RANKS
from .terms import ALGORITHMS

TIE = 1e-9  # relative: times closer than this are a tie, and the first in catalog order wins


@dataclass(frozen=True)
class Segment:
    """A size range over which one algorithm is fastest."""

    low_bytes: float
    high_bytes: float
    algorithm: str
    tied_with: tuple[str, ...]


def unavailable_reason(collective: str, algorithm: str, ranks: int, ranks_per_node) -> str:
    """Return why `algorithm` cannot run with these shapes, or '' when it can."""
    engine = REGISTRY[(collective, algorithm)]  # the catalog's limits for in-network ones
    if engine.needs_switch:
        ranks = integer("ranks", ranks, low=1, high=MAX_RANKS)
        if engine.max_ranks is not None and ranks > engine.max_ranks:
            return f"needs {engine.needs_switch}: at most {engine.max_ranks} ranks"
        if not engine.needs_ranks_per_node:  # NVLS: one node, priced on its NVLink (intra)
            if ranks_per_node is None:
                return "runs inside one NVSwitch node: give ranks_per_node = ranks"
            if integer("ranks_per_node", ranks_per_node, low=1, high=ranks) < ranks:
                return f"needs {engine.needs_switch}: all ranks on one node"
    if ALGORITHMS[(collective, algorithm)].needs_ranks_per_node:
        if ranks_per_node is None:
            return "needs ranks_per_node (GPUs per node)"
        ranks = integer("ranks", ranks, low=1, high=MAX_RANKS)
        ranks_per_node = integer("ranks_per_node", ranks_per_node, low=1, high=ranks)
        if engine.max_ranks_per_node is not None and ranks_per_node > engine.max_ranks_per_node:
            return f"at most {engine.max_ranks_per_node} ranks per node (NCCL's limit for it)"
        return node_split_problem(ranks, ranks_per_node)
    return ""


def rank_algorithms(
    collective: str,
    *,
    ranks: int,
    message_bytes: float,
    skip: tuple[str, ...] = (),
    **link: object,
) -> tuple[list[Cost], list[dict]]:
    """Return every algorithm's Cost, fastest first, and the ones that cannot run, with why."""
    ranks_per_node = link.get("ranks_per_node")
    costs, unavailable = [], []
    for name in algorithms(collective):
        if name in skip:
            unavailable.append({"algorithm": name, "reason": "left out on request"})
            continue
        reason = unavailable_reason(collective, name, ranks, ranks_per_node)
        if reason:
            unavailable.append({"algorithm": name, "reason": reason})
            continue
        extra = _link_for(collective, name, link)
        costs.append(cost(collective, name, ranks=ranks, message_bytes=message_bytes, **extra))
    order = {name: i for i, name in enumerate(algorithms(collective))}
    costs.sort(key=lambda c: (c.time_s, order[c.algorithm]))
    return costs, unavailable


def _link_for(collective: str, name: str, link: dict) -> dict:
    """The link inputs `name` is priced with: all of them for a hierarchical algorithm, the
    node's own link for NVLS (its ranks all sit on one NVSwitch), else the main link."""
    if ALGORITHMS[(collective, name)].needs_ranks_per_node:
        return link
    flat = _flat(link)
    if REGISTRY[(collective, name)].needs_switch:
        for main, intra in (
            ("latency_us", "intra_latency_us"),
            ("bandwidth_gbs", "intra_bandwidth_gbs"),
        ):
            if link.get(intra) is not None:
                flat[main] = link[intra]
    return flat


def _flat(link: dict) -> dict:
    """Drop the inputs only hierarchical algorithms take."""
    drop = ("ranks_per_node", "intra_latency_us", "intra_bandwidth_gbs")
    return {k: v for k, v in link.items() if k not in drop}


def lines(
    collective: str, *, ranks: int, skip: tuple[str, ...] = (), **link: object
) -> dict[str, tuple[float, float]]:
    """Return (intercept_s, slope_s_per_byte) for every algorithm that can run."""
    out = {}
    for name in algorithms(collective):
        if name in skip or unavailable_reason(collective, name, ranks, link.get("ranks_per_node")):
            continue
        extra = _link_for(collective, name, link)
        out[name] = cost_line(collective, name, ranks=ranks, **extra)
    return out


def _winner(candidates: dict[str, tuple[float, float]], m: float) -> tuple[str, tuple[str, ...]]:
    times = {name: a + b * m for name, (a, b) in candidates.items()}
    best = min(times.values())
    tied = [name for name, t in times.items() if t <= best * (1 + TIE) + 1e-30]
    return tied[0], tuple(tied[1:])


def fastest_segments(
    candidates: dict[str, tuple[float, float]], low_bytes: float, high_bytes: float
) -> list[Segment]:
    """Split [low, high] into the ranges where one algorithm is fastest."""
    if not candidates:
        raise CostError("no algorithm can run with these inputs")
    if not 0 < low_bytes < high_bytes:
        raise CostError("the size range must satisfy 0 < low < high")
    points = {low_bytes, high_bytes}
    items = list(candidates.values())
    for i, (a1, b1) in enumerate(items):
        for a2, b2 in items[i + 1 :]:
            if b1 != b2:
                m = (a2 - a1) / (b1 - b2)
                if low_bytes < m < high_bytes:
                    points.add(m)
    edges = sorted(points)
    segments: list[Segment] = []
    for lo, hi in zip(edges, edges[1:], strict=False):
        name, ties = _winner(candidates, math.sqrt(lo * hi))
        if segments and segments[-1].algorithm == name:
            last = segments[-1]
            segments[-1] = Segment(last.low_bytes, hi, name, last.tied_with)
        else:
            segments.append(Segment(lo, hi, name, ties))
    return segments
