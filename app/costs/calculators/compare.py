"""Algorithm comparison: time against message size for every algorithm of a collective, the
fastest per size from 1 B to 16 GiB, and the exact sizes where the fastest one changes."""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from app.i18n import N_, listing, sentences

from .. import units
from ..errors import CostError
from ..model import MAX_MESSAGE_BYTES, Cost, algorithms
from ..nccl_tests import MAX_RANKS
from ..ranking import Segment, fastest_segments, lines, rank_algorithms
from ..terms import COLLECTIVES
from .fields import (
    BOOL,
    CHOICE,
    FLOAT,
    GPUS_PER_NODE,
    INT,
    LIST,
    Field,
    intra_link_fields,
    link_fields,
)
from .registry import calculator
from .result import BANDWIDTH, COUNT, RATIO, TEXT, TIME, Output, Result, stacked_chart, table

LOW_BYTES, HIGH_BYTES = 1.0, float(1 << 34)  # 1 B to 16 GiB, as the issue asks
SIZES = [2 ** (k / 2) for k in range(0, 69)]  # two points per octave for the curves

COLLECTIVE = Field(
    "collective",
    N_("Collective"),
    CHOICE,
    "allreduce",
    choices=COLLECTIVES,
    help=N_("Every algorithm of this collective is compared."),
)
RANKS = Field(
    "ranks",
    N_("GPUs (ranks)"),
    INT,
    64,
    low=1,
    high=MAX_RANKS,
    scale="log2",
    help=N_("p, the ranks."),
)
MESSAGE = Field(
    "message_bytes",
    N_("Message size M"),
    FLOAT,
    float(1 << 20),
    low=1,
    high=MAX_MESSAGE_BYTES,
    unit="bytes",
    scale="log2",
    help=N_(
        "M as nccl-tests counts it: allgather the total output, reduce_scatter the total input."
    ),
)
RANKS_PER_NODE = replace(
    GPUS_PER_NODE,
    name="ranks_per_node",
    help=N_("g, for the hierarchical allreduce (must divide the ranks)."),
)
GAMMA = Field(
    "gamma_s_per_byte",
    N_("Reduction cost γ (s/byte)"),
    FLOAT,
    0.0,
    high=1e-3,
    help=N_("Time to reduce one byte; 0 leaves the compute term out."),
)
INCLUDE_DIRECT = Field(
    "include_direct",
    N_("Include direct (all-port)"),
    BOOL,
    False,
    help=N_(
        "direct sends to all p−1 peers in one step, so the model charges it one α; real NICs "
        "pay per-message overhead and incast contention that the model leaves out."
    ),
)
ALGORITHMS = Field(
    "algorithms",
    N_("Only these algorithms"),
    LIST,
    "",
    help=N_(
        "A comma list such as ring,double_binary_tree (NCCL's two AllReduce algorithms); "
        "empty compares every algorithm of the collective."
    ),
)
FIELDS = (
    COLLECTIVE,
    RANKS,
    MESSAGE,
    *link_fields(),
    RANKS_PER_NODE,
    *intra_link_fields(),
    GAMMA,
    INCLUDE_DIRECT,
    ALGORITHMS,
)


def link_kwargs(values: dict) -> dict:
    """Pick the link inputs `cost` takes out of a calculator's validated values."""
    return {
        "latency_us": values["latency_us"],
        "bandwidth_gbs": values["bandwidth_gbs"],
        "gamma_s_per_byte": values.get("gamma_s_per_byte", 0.0),
        "ranks_per_node": values.get("ranks_per_node"),
        "intra_latency_us": values.get("intra_latency_us"),
        "intra_bandwidth_gbs": values.get("intra_bandwidth_gbs"),
    }


class Crossover(NamedTuple):
    """A size where the fastest algorithm changes, and the time there."""

    bytes: float
    from_algorithm: str
    to_algorithm: str
    time_s: float

    def as_dict(self) -> dict:
        """Return the crossover as the table's JSON row."""
        return {
            "bytes": self.bytes,
            "from": self.from_algorithm,
            "to": self.to_algorithm,
            "time_s": self.time_s,
        }


@calculator(
    "compare",
    N_("Which algorithm is fastest?"),
    N_("Time against size for every algorithm of a collective, with the crossovers."),
    FIELDS,
)
def compare(**values) -> Result:
    """Compare every algorithm of a collective at one size and over 1 B to 16 GiB."""
    collective, ranks, m = values["collective"], values["ranks"], values["message_bytes"]
    link = link_kwargs(values)
    skip = _left_out(collective, values["algorithms"], values["include_direct"])
    costs, unavailable = rank_algorithms(
        collective, ranks=ranks, message_bytes=m, skip=skip, **link
    )
    if not costs:
        reasons = "; ".join(
            f"{u['algorithm']}: {u['reason']}" for u in unavailable if u["algorithm"] not in skip
        )
        raise CostError(f"algorithms: none of them can run with these inputs ({reasons})")
    best = costs[0]
    candidates = lines(collective, ranks=ranks, skip=skip, **link)
    segments = fastest_segments(candidates, LOW_BYTES, HIGH_BYTES)
    crossovers = _crossovers(segments, candidates)
    runner_up = costs[1] if len(costs) > 1 else None
    ratio = runner_up.time_s / best.time_s if runner_up and best.time_s > 0 else 1.0
    return Result(
        calculator="compare",
        inputs=values,
        outputs=(
            Output("fastest", N_("Fastest at this size"), best.algorithm, TEXT),
            Output("time_s", N_("Its time"), best.time_s, TIME),
            Output("busbw_gbs", N_("Its bus bandwidth"), best.busbw_gbs, BANDWIDTH),
            Output("runner_up_ratio", N_("Runner-up is slower by"), ratio, RATIO),
            Output(
                "crossovers",
                N_("Changes of winner, 1 B–%(high)s", high=units.size(HIGH_BYTES)),
                len(crossovers),
                COUNT,
            ),
        ),
        formula=f"{best.algorithm}: {best.formula}",
        substituted=best.formula_substituted,
        interpretation=_sentence(collective, ranks, m, best, runner_up, ratio, crossovers),
        table={
            **_table(costs, best),
            "crossovers": [c.as_dict() for c in crossovers],
            "fastest_by_size": [_segment(s) for s in segments],
            "unavailable": unavailable,
        },
        charts=(
            _lines_chart(collective, ranks, m, candidates, crossovers),
            _terms_chart(m, costs),
        ),
        notes=(
            N_(
                "The alpha-beta model has no contention and no topology: it shows why "
                "latency-bound sizes favour few steps and bandwidth-bound sizes favour (p−1)/p "
                "bytes. Real libraries differ: NCCL implements only ring, trees, CollNet, NVLS "
                "and PAT (see the lesson How NCCL really chooses)."
            ),
        ),
    )


def _left_out(collective: str, chosen: str, include_direct: bool) -> tuple[str, ...]:
    """Return the algorithms of `collective` to leave out: those not in the comma list `chosen`
    (when it names any), and `direct` unless it is asked for, by include_direct or by name."""
    catalog = algorithms(collective)
    names = chosen.split(",") if chosen else []
    for name in names:
        if name not in catalog:
            raise CostError(
                f"algorithms: {name!r} is not an algorithm of {collective}; "
                f"allowed: {', '.join(catalog)}"
            )
    if names:
        return tuple(a for a in catalog if a not in names)
    return () if include_direct else ("direct",)


def _crossovers(segments: list[Segment], candidates: dict) -> list[Crossover]:
    """Return where each fastest range hands over to the next, priced on the new winner's line."""
    out = []
    for before, after in zip(segments, segments[1:], strict=False):
        intercept_s, slope_s_per_byte = candidates[after.algorithm]
        time_s = intercept_s + slope_s_per_byte * after.low_bytes
        out.append(Crossover(after.low_bytes, before.algorithm, after.algorithm, time_s))
    return out


def _segment(segment: Segment) -> dict:
    """Return one fastest-by-size range as JSON data."""
    return {
        "low_bytes": segment.low_bytes,
        "high_bytes": segment.high_bytes,
        "algorithm": segment.algorithm,
        "tied_with": list(segment.tied_with),
    }


def _table(costs: list[Cost], best: Cost) -> dict:
    """Tabulate every algorithm's time, terms, steps and bus bandwidth against the fastest."""
    rows = [
        [
            c.algorithm,
            c.time_s,
            c.latency_s,
            c.bandwidth_s,
            c.compute_s,
            c.steps,
            c.busbw_gbs,
            c.time_s / best.time_s if best.time_s else 1.0,
        ]
        for c in costs
    ]
    columns = [
        (N_("algorithm"), TEXT),
        (N_("time"), TIME),
        (N_("latency"), TIME),
        (N_("bandwidth"), TIME),
        (N_("compute"), TIME),
        (N_("steps"), COUNT),
        ("busbw", BANDWIDTH),
        (N_("× fastest"), RATIO),
    ]
    return table(columns, rows)


def _lines_chart(collective, ranks, m, candidates: dict, crossovers: list[Crossover]) -> dict:
    """Describe the log-log chart of every algorithm's time against size, crossovers marked."""
    return {
        "kind": "loglog",
        "title": N_(
            "%(collective)s on %(ranks)s ranks: time against size",
            collective=collective,
            ranks=ranks,
        ),
        "x": SIZES,
        "series": [
            {"name": name, "y": [a + b * s for s in SIZES]} for name, (a, b) in candidates.items()
        ],
        "markers": [
            {"x": c.bytes, "y": c.time_s, "label": f"{c.from_algorithm} → {c.to_algorithm}"}
            for c in crossovers
        ],
        "cursor": m,
    }


def _terms_chart(m: float, costs: list[Cost]) -> dict:
    """Describe the stacked bars of each algorithm's latency, bandwidth and compute at M."""
    return stacked_chart(
        N_("Where the time goes at %(size)s", size=units.size(m)),
        [c.algorithm for c in costs],
        {
            N_("latency"): [c.latency_s for c in costs],
            N_("bandwidth"): [c.bandwidth_s for c in costs],
            N_("compute"): [c.compute_s for c in costs],
        },
    )


def _sentence(collective, ranks, m, best, runner_up, ratio, crossovers) -> str:
    """Say who wins here and where the winner changes."""
    return sentences(
        _winner(collective, ranks, m, best, runner_up, ratio), _changes(best, crossovers)
    )


def _winner(collective, ranks, m, best, runner_up, ratio) -> str:
    """Say who wins at this size, by how much, and what its time is mostly."""
    bound = (
        N_("latency") if best.latency_s >= best.bandwidth_s + best.compute_s else N_("bandwidth")
    )
    facts = {
        "size": units.size(m),
        "ranks": ranks,
        "best": best.algorithm,
        "collective": collective,
        "time": units.seconds(best.time_s),
        "bound": bound,
    }
    if runner_up and ratio <= 1 + 1e-6:
        return N_(
            "At %(size)s on %(ranks)s ranks, %(best)s is the fastest %(collective)s (%(time)s), "
            "tied with %(other)s; its time is mostly %(bound)s.",
            other=runner_up.algorithm,
            **facts,
        )
    if runner_up:
        return N_(
            "At %(size)s on %(ranks)s ranks, %(best)s is the fastest %(collective)s (%(time)s), "
            "%(ratio)s× faster than %(other)s; its time is mostly %(bound)s.",
            ratio=f"{ratio:.3g}",
            other=runner_up.algorithm,
            **facts,
        )
    return N_(
        "At %(size)s on %(ranks)s ranks, %(best)s is the fastest %(collective)s (%(time)s); "
        "its time is mostly %(bound)s.",
        **facts,
    )


def _changes(best, crossovers) -> str:
    """Say where, from 1 B to HIGH_BYTES, the winner changes (or that it never does)."""
    high = units.size(HIGH_BYTES)
    if not crossovers:
        return N_(
            "%(best)s wins at every size from 1 B to %(high)s.", best=best.algorithm, high=high
        )
    changes = listing(
        *(
            N_(
                "%(before)s → %(after)s at %(size)s",
                before=c.from_algorithm,
                after=c.to_algorithm,
                size=units.size(c.bytes),
            )
            for c in crossovers
        )
    )
    if len(crossovers) == 1:
        return N_(
            "From 1 B to %(high)s the winner changes once: %(changes)s.", high=high, changes=changes
        )
    return N_(
        "From 1 B to %(high)s the winner changes %(count)s times: %(changes)s.",
        high=high,
        count=len(crossovers),
        changes=changes,
    )
