"""`race(...)`: two to four algorithms of one collective on the same topology and the same
message, each step timed by the clock, with a finish order and a sentence saying why.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.collectives import MAX_RANKS
from app.costs import busbw_gbs, cost
from app.costs.nccl_tests import algbw_gbs
from app.i18n.phases import phase_name

from .clock import StepProfile
from .graph import Topology
from .setup import Prepared, message_size, prepare
from .verdict import verdict

CONTENTION = 0.05  # a share of a run's time lost to oversubscription worth a mention


@dataclass(frozen=True)
class Run:
    """One algorithm's run on the clock."""

    algorithm: str
    steps: tuple[dict, ...]
    latency_s: float
    bandwidth_s: float
    time_s: float
    algbw_gbs: float | None
    busbw_gbs: float | None
    model_time_s: float  # the plain α-β model on the preset's links
    bottleneck: int  # the link that costs this run the most time (-1 if none)
    contention: bool  # oversubscribed spine links cost the run >= CONTENTION of its time
    place: int  # 1 = finished first; ties share a place

    @property
    def bound(self) -> str:
        return "latency" if self.latency_s >= self.bandwidth_s else "bandwidth"

    def as_dict(self, topology: Topology) -> dict:
        return {
            "algorithm": self.algorithm,
            "place": self.place,
            "time_s": self.time_s,
            "latency_s": self.latency_s,
            "bandwidth_s": self.bandwidth_s,
            "bound": self.bound,
            "algbw_gbs": self.algbw_gbs,
            "busbw_gbs": self.busbw_gbs,
            "model_time_s": self.model_time_s,
            "bottleneck": link_info(topology, self.bottleneck),
            "contention": self.contention,
            "steps": list(self.steps),
        }


@dataclass(frozen=True)
class Race:
    """The result: every run, the finish order and the verdict."""

    prepared: Prepared
    message_bytes: float
    runs: tuple[Run, ...]  # in the order asked
    verdict: str

    @property
    def order(self) -> list[str]:
        return [r.algorithm for r in sorted(self.runs, key=lambda r: (r.place, r.time_s))]

    def as_dict(self) -> dict:
        p = self.prepared
        return {
            "collective": p.collective,
            "ranks": p.ranks,
            "message_bytes": self.message_bytes,
            "topology": p.topology.as_dict(),
            "mapping": p.mapping,
            "placement": list(p.placement),
            "order": self.order,
            "verdict": self.verdict,
            "runs": [r.as_dict(p.topology) for r in self.runs],
        }


def link_info(topology: Topology, index: int) -> dict | None:
    """Name a link for people: index, name, kind and bandwidth."""
    if index < 0:
        return None
    link = topology.links[index]
    return {
        "link": index,
        "name": link.name,
        "kind": link.kind,
        "bandwidth_gbs": link.bandwidth_gbs,
        "spine": link.uplink,
    }


def _step(
    step: StepProfile, m: float, start: float, topology: Topology, gbs, language: str
) -> dict:
    """One step at M bytes: its times, the bytes on each loaded link and the bottleneck; its
    phase named in `language`."""
    bandwidth_s = step.seconds_per_byte * m
    time_s = step.latency_s + bandwidth_s
    loads = step.shares * m
    busy = loads / (gbs[step.links] * 1e9) / time_s if time_s else np.zeros(len(loads))
    bottleneck = link_info(topology, step.bottleneck)
    if bottleneck is not None:
        bottleneck["bytes"] = float(loads[np.flatnonzero(step.links == step.bottleneck)[0]])
    return {
        "index": step.index,
        "phase": phase_name(step.phase, language),
        "start_s": start,
        "time_s": time_s,
        "latency_s": step.latency_s,
        "bandwidth_s": bandwidth_s,
        "bottleneck": bottleneck,
        "links": step.links.tolist(),
        "bytes": loads.tolist(),
        "utilisation": np.round(busy, 4).tolist(),  # 4 digits: short JSON, enough to colour
    }


def _run(p: Prepared, name: str, m: float, language: str) -> Run:
    steps, start = [], 0.0
    gbs = np.array([link.bandwidth_gbs for link in p.topology.links])
    spent: dict[int, float] = {}
    lost = 0.0  # the time oversubscription adds: the spine links at 1:1 would save it
    for step in p.profiles[name]:
        entry = _step(step, m, start, p.topology, gbs, language)
        steps.append(entry)
        start += entry["time_s"]
        if step.bottleneck >= 0:
            spent[step.bottleneck] = spent.get(step.bottleneck, 0.0) + entry["bandwidth_s"]
        lost += (step.seconds_per_byte - step.unblocked_per_byte) * m
    latency_s = sum(s["latency_s"] for s in steps)
    bandwidth_s = sum(s["bandwidth_s"] for s in steps)
    model = cost(p.collective, name, ranks=p.ranks, message_bytes=m, **p.model_inputs[name])
    return Run(
        name,
        tuple(steps),
        latency_s,
        bandwidth_s,
        start,
        algbw_gbs(m, start),
        busbw_gbs(p.collective, p.ranks, m, start),
        model.time_s,
        max(spent, key=spent.get) if spent else -1,
        start > 0 and lost >= CONTENTION * start,
        0,
    )


def _places(runs: list[Run]) -> list[Run]:
    """Number the finish: 1 for the fastest; runs within a relative 1e-9 share a place."""
    ranked = sorted(runs, key=lambda r: r.time_s)
    places, place = {}, 0
    for i, run in enumerate(ranked):
        if i == 0 or run.time_s > ranked[i - 1].time_s * (1 + 1e-9):
            place = i + 1
        places[run.algorithm] = place
    return [Run(**{**vars(r), "place": places[r.algorithm]}) for r in runs]


def race(
    collective: str,
    algorithms,
    *,
    ranks: int,
    message_bytes: float,
    topology: str = "flat",
    preset: str | None = None,
    mapping: str = "fill",
    max_ranks: int = MAX_RANKS,
    language: str = "en",
    **params: object,
) -> Race:
    """Run `algorithms` of `collective` side by side on `topology` for M = message_bytes.

    `params` are the topology's parameters (`TOPOLOGIES[topology].params`), `preset` a
    hardware preset it allows, `mapping` "fill" or "round_robin"; the verdict is said in
    `language`. Bad input raises a
    ValueError (FabricError, CostError or CollectiveError) whose message names the field.
    """
    m = message_size(message_bytes)
    p = prepare(collective, algorithms, ranks, topology, preset, mapping, params, max_ranks)
    runs = _places([_run(p, name, m, language) for name in p.algorithms])
    return Race(p, m, tuple(runs), verdict(runs, p, m, language))
