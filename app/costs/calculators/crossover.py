"""Latency- or bandwidth-bound: the message size M* at which an algorithm's latency term
(steps·α) equals its bandwidth term (critical-path bytes·β), REFERENCE § 2."""

from __future__ import annotations

from .. import units
from ..model import cost
from ..terms import ALGORITHMS
from .compare import COLLECTIVE, GAMMA, MESSAGE, RANKS, RANKS_PER_NODE, link_kwargs
from .fields import CHOICE, Field, intra_link_fields, link_fields
from .registry import calculator
from .result import BANDWIDTH, BYTES, PERCENT, TEXT, Output, Result, stacked_chart

ALGORITHM_NAMES = tuple(dict.fromkeys(name for _, name in ALGORITHMS))
ALGORITHM = Field(
    "algorithm",
    "Algorithm",
    CHOICE,
    "ring",
    choices=ALGORITHM_NAMES,
    help="Must be one of the collective's algorithms.",
)
SIZES = [2 ** (k / 2) for k in range(0, 69)]


@calculator(
    "crossover",
    "Latency- or bandwidth-bound?",
    "The message size where the latency and bandwidth terms are equal.",
    (
        COLLECTIVE,
        ALGORITHM,
        RANKS,
        MESSAGE,
        *link_fields(),
        RANKS_PER_NODE,
        *intra_link_fields(),
        GAMMA,
    ),
)
def crossover(**values) -> Result:
    """Find M* where steps·α equals the bandwidth term, and say which side M is on."""
    collective, algorithm, ranks = values["collective"], values["algorithm"], values["ranks"]
    m = values["message_bytes"]
    link = link_kwargs(values)
    spec = ALGORITHMS.get((collective, algorithm))  # None: cost() says what is allowed
    if spec is None or not spec.needs_ranks_per_node:
        link = {k: v for k, v in link.items() if not k.startswith(("ranks_per", "intra"))}
    here = cost(collective, algorithm, ranks=ranks, message_bytes=m, **link)
    per_byte = cost(collective, algorithm, ranks=ranks, message_bytes=1.0, **link)
    bandwidth_s_per_byte = per_byte.bandwidth_s
    latency_s = here.latency_s
    m_star = latency_s / bandwidth_s_per_byte if bandwidth_s_per_byte > 0 else None
    share = 100 * here.latency_s / here.time_s if here.time_s > 0 else 0.0
    peak_busbw = (
        per_byte.bus_factor / bandwidth_s_per_byte / 1e9 if bandwidth_s_per_byte > 0 else None
    )
    if m_star is None:
        regime, sentence = "nothing to send", "With one rank there is nothing to send."
    else:
        regime = "latency-bound" if m < m_star else "bandwidth-bound"
        sentence = (
            f"{collective}/{algorithm} on {ranks} ranks is latency-bound below "
            f"{units.size(m_star)} and bandwidth-bound above it. At {units.size(m)} the "
            f"latency term is {share:.3g}% of the time, so it is {regime}: "
            + (
                "fewer steps (a tree or recursive doubling) would help more than a faster link."
                if m < m_star
                else "a faster link or fewer bytes helps; the step count barely matters."
            )
        )
        if not values["gamma_s_per_byte"]:
            sentence += (
                f" At M* the bus bandwidth is half its large-message value "
                f"({units.bandwidth(peak_busbw / 2)} of {units.bandwidth(peak_busbw)})."
            )
    bandwidth_units = bandwidth_s_per_byte
    chart = {
        "kind": "loglog",
        "title": f"{collective}/{algorithm}: latency and bandwidth terms",
        "x": SIZES,
        "series": [
            {"name": "latency term", "y": [latency_s for _ in SIZES]},
            {"name": "bandwidth term", "y": [bandwidth_units * s for s in SIZES]},
            {
                "name": "total",
                "y": [latency_s + (bandwidth_units + per_byte.compute_s) * s for s in SIZES],
            },
        ],
        "markers": []
        if m_star is None
        else [{"x": m_star, "y": latency_s, "label": f"M* = {units.size(m_star)}"}],
        "cursor": m,
    }
    return Result(
        calculator="crossover",
        inputs=values,
        outputs=(
            Output("m_star_bytes", "Crossover size M*", m_star, BYTES),
            Output("regime", f"At {units.size(m)}", regime, TEXT),
            Output("latency_share_pct", "Latency share of the time", share, PERCENT),
            Output("busbw_gbs", "Bus bandwidth here", here.busbw_gbs, BANDWIDTH),
            Output("peak_busbw_gbs", "Large-message bus bandwidth", peak_busbw, BANDWIDTH),
        ),
        formula="M* = (steps·α) ÷ (bandwidth term per byte);  " + here.formula,
        substituted=(
            f"M* = {here.steps}·{units.seconds(latency_s / here.steps) if here.steps else '0 s'}"
            f" ÷ {bandwidth_s_per_byte:.4g} s/B = "
            + (units.size(m_star) if m_star is not None else "undefined")
            + f";  at M: {here.formula_substituted}"
        ),
        interpretation=sentence,
        charts=(
            chart,
            stacked_chart(
                f"The terms at {units.size(m)}",
                [algorithm],
                {
                    "latency": [here.latency_s],
                    "bandwidth": [here.bandwidth_s],
                    "compute": [here.compute_s],
                },
            ),
        ),
    )
