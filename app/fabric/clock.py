"""The clock: how long each engine step takes on a physical topology.

A step's transfers are routed onto links (routing.py); the step lasts the α of its slowest
path plus the bytes on its busiest link over that link's bandwidth:

    t_step = max over transfers of path α  +  max over links of (bytes on link / bandwidth)

Both terms are linear in the message size M (every transfer is a fixed share of M), so one
profile per (trace, topology, mapping) prices every size: t_step(M) = α_step + M·β_step, and
the whole run is the line Σα + M·Σβ. Computation (γ) is left out, as with the α-β model's
default γ = 0. On the flat topology every transfer has its own wire with the model's α and β,
so the clock equals the α-β model (docs/design-notes.md, "The race clock").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .graph import Topology
from .routing import router
from .traces import StepShape

GB = 1e9


@dataclass(frozen=True)
class StepProfile:
    """One step on one topology, per byte of M."""

    index: int
    phase: str
    latency_s: float  # α of the slowest path
    seconds_per_byte: float  # busiest link's share of M over its bandwidth
    unblocked_per_byte: float  # the same with the spine links at full bisection (1:1)
    bottleneck: int  # link index, -1 when nothing moves
    links: np.ndarray  # indices of the links that carry bytes
    shares: np.ndarray  # their bytes per byte of M

    def time_s(self, message_bytes: float) -> float:
        return self.latency_s + self.seconds_per_byte * message_bytes


@lru_cache(maxsize=32)  # holds its topology too: with registry's 16, at most 48 alive
def profile(
    steps: tuple[StepShape, ...], topology: Topology, placement: tuple[int, ...]
) -> tuple[StepProfile, ...]:
    """Route every step of `steps` with rank r on node `placement[r]`."""
    routes = router(topology)
    bandwidth = np.array([link.bandwidth_gbs for link in topology.links]) * GB
    spine = np.array([link.uplink for link in topology.links], dtype=bool)
    unblocked = np.where(spine, bandwidth * topology.oversubscription, bandwidth)
    out = []
    for step in steps:
        load = np.zeros(len(topology.links))
        latency_us = 0.0
        moves = zip(step.src.tolist(), step.dst.tolist(), step.share.tolist(), strict=True)
        for src, dst, share in moves:
            indices, fractions, path_us = routes.route(placement[src], placement[dst])
            np.add.at(load, indices, fractions * share)
            latency_us = max(latency_us, path_us)
        used = np.flatnonzero(load)
        per_byte = load[used] / bandwidth[used]
        worst = _worst(per_byte, spine[used])
        out.append(
            StepProfile(
                step.index,
                step.phase,
                latency_us * 1e-6,
                float(per_byte[worst]) if worst >= 0 else 0.0,
                float(np.max(load[used] / unblocked[used], initial=0.0)),
                int(used[worst]) if worst >= 0 else -1,
                used,
                load[used],
            )
        )
    return tuple(out)


def _worst(per_byte: np.ndarray, spine: np.ndarray) -> int:
    """Return the position of the busiest link; among equals, one that is no spine link (the
    NIC's own link names the bottleneck better when the spine is not what slows the step)."""
    if not len(per_byte):
        return -1
    tied = np.flatnonzero(per_byte >= per_byte.max() * (1 - 1e-12))
    own = tied[~spine[tied]]
    return int(own[0] if len(own) else tied[0])


def line(steps: tuple[StepProfile, ...]) -> tuple[float, float]:
    """Return (intercept_s, slope_s_per_byte): the run's time is intercept + slope·M."""
    return sum(s.latency_s for s in steps), sum(s.seconds_per_byte for s in steps)
