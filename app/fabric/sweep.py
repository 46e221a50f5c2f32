"""`sweep(...)`: time against message size for chosen algorithms on one topology, with the
sizes where the fastest changes, beside the plain α-β model's curves and crossovers.

Every run on the clock is a line in M (clock.line), as every α-β cost is (model.cost_line),
so crossovers are exact: `app.costs.ranking.fastest_segments` finds them for both.
"""

from __future__ import annotations

import math

from app.collectives import MAX_RANKS
from app.costs.model import cost_line
from app.costs.ranking import fastest_segments

from .clock import line
from .errors import FabricError
from .setup import message_size, prepare

DEFAULT_LOW, DEFAULT_HIGH = 1 << 10, 1 << 30  # 1 KiB .. 1 GiB
MAX_POINTS = 64


def sizes(low: float, high: float) -> list[float]:
    """Return the powers of two from `low` up to `high`, both ends included."""
    first, last = math.ceil(math.log2(low)), math.floor(math.log2(high))
    points = [float(2**k) for k in range(first, last + 1)]
    return sorted({low, *points, high})


def _curves(lines: dict[str, tuple[float, float]], low: float, high: float, points) -> dict:
    segments = fastest_segments(lines, low, high)
    return {
        "lines": {n: {"intercept_s": a, "slope_s_per_byte": b} for n, (a, b) in lines.items()},
        "times_s": {n: [a + b * m for m in points] for n, (a, b) in lines.items()},
        "fastest": [
            {"low_bytes": s.low_bytes, "high_bytes": s.high_bytes, "algorithm": s.algorithm}
            for s in segments
        ],
        "crossovers": [
            {"bytes": a.high_bytes, "below": a.algorithm, "above": b.algorithm}
            for a, b in zip(segments, segments[1:], strict=False)
        ],
        "pairs": _pairs(lines, low, high),
    }


def _pairs(lines: dict[str, tuple[float, float]], low: float, high: float) -> list[dict]:
    """Where each pair of lines crosses inside [low, high], and which is faster below."""
    out, names = [], list(lines)
    for i, x in enumerate(names):
        for y in names[i + 1 :]:
            (ax, bx), (ay, by) = lines[x], lines[y]
            if bx == by:
                continue
            m = (ay - ax) / (bx - by)
            if low < m < high:
                below = x if ax < ay else y
                out.append({"bytes": m, "below": below, "above": y if below == x else x})
    return out


def sweep(
    collective: str,
    algorithms,
    *,
    ranks: int,
    topology: str = "flat",
    preset: str | None = None,
    mapping: str = "fill",
    low_bytes: float = DEFAULT_LOW,
    high_bytes: float = DEFAULT_HIGH,
    max_ranks: int = MAX_RANKS,
    **params: object,
) -> dict:
    """Return times for powers-of-two sizes in [low_bytes, high_bytes] on the clock and in the
    α-β model, with the crossovers of each (JSON-ready)."""
    low = message_size(low_bytes, "low_bytes")
    high = message_size(high_bytes, "high_bytes")
    if not low < high:
        raise FabricError(f"low_bytes must be below high_bytes; got {low:g} and {high:g}")
    p = prepare(collective, algorithms, ranks, topology, preset, mapping, params, max_ranks)
    points = sizes(low, high)[: MAX_POINTS + 1]
    clock = {name: line(p.profiles[name]) for name in p.algorithms}
    model = {
        name: cost_line(collective, name, ranks=ranks, **p.model_inputs[name])
        for name in p.algorithms
    }
    return {
        "collective": p.collective,
        "ranks": p.ranks,
        "topology": p.topology.name,
        "topology_label": p.topology.label,
        "preset": p.topology.preset,
        "params": dict(p.topology.params),
        "mapping": p.mapping,
        "algorithms": list(p.algorithms),
        "sizes_bytes": points,
        "clock": _curves(clock, low, high, points),
        "model": _curves(model, low, high, points),
    }
