"""Latency- or bandwidth-bound: the message size M* at which an algorithm's latency term
(steps·α) equals its bandwidth term (critical-path bytes·β), REFERENCE § 2."""

from __future__ import annotations

from app.i18n import N_, sentences

from .. import units
from ..model import Cost, cost
from ..terms import ALGORITHMS
from .compare import COLLECTIVE, GAMMA, MESSAGE, RANKS, RANKS_PER_NODE, link_kwargs
from .fields import CHOICE, Field, intra_link_fields, link_fields
from .registry import calculator
from .result import BANDWIDTH, BYTES, PERCENT, TEXT, Output, Result, stacked_chart

ALGORITHM_NAMES = tuple(dict.fromkeys(name for _, name in ALGORITHMS))
ALGORITHM = Field(
    "algorithm",
    N_("Algorithm"),
    CHOICE,
    "ring",
    choices=ALGORITHM_NAMES,
    help=N_("Must be one of the collective's algorithms."),
)
SIZES = [2 ** (k / 2) for k in range(0, 69)]


@calculator(
    "crossover",
    N_("Latency- or bandwidth-bound?"),
    N_("The message size where the latency and bandwidth terms are equal."),
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
    m_star = here.latency_s / per_byte.bandwidth_s if per_byte.bandwidth_s > 0 else None
    share = 100 * here.latency_s / here.time_s if here.time_s > 0 else 0.0
    peak_busbw = (
        per_byte.bus_factor / per_byte.bandwidth_s / 1e9 if per_byte.bandwidth_s > 0 else None
    )
    regime, sentence = _regime(values, m_star, share, peak_busbw)
    return Result(
        calculator="crossover",
        inputs=values,
        outputs=(
            Output("m_star_bytes", N_("Crossover size M*"), m_star, BYTES),
            Output("regime", N_("At %(size)s", size=units.size(m)), regime, TEXT),
            Output("latency_share_pct", N_("Latency share of the time"), share, PERCENT),
            Output("busbw_gbs", N_("Bus bandwidth here"), here.busbw_gbs, BANDWIDTH),
            Output("peak_busbw_gbs", N_("Large-message bus bandwidth"), peak_busbw, BANDWIDTH),
        ),
        formula="M* = (steps·α) ÷ (bandwidth term per byte);  " + here.formula,
        substituted=_substituted(here, per_byte, m_star),
        interpretation=sentence,
        charts=(
            _terms_chart(f"{collective}/{algorithm}", m, here, per_byte, m_star),
            stacked_chart(
                N_("The terms at %(size)s", size=units.size(m)),
                [algorithm],
                {
                    N_("latency"): [here.latency_s],
                    N_("bandwidth"): [here.bandwidth_s],
                    N_("compute"): [here.compute_s],
                },
            ),
        ),
    )


def _regime(
    values: dict, m_star: float | None, share: float, peak_busbw: float | None
) -> tuple[str, str]:
    """Name the side of M* the message is on, and say what would help there."""
    if m_star is None:
        return N_("nothing to send"), N_("With one rank there is nothing to send.")
    collective, algorithm, m = values["collective"], values["algorithm"], values["message_bytes"]
    below = m < m_star
    regime = N_("latency-bound") if below else N_("bandwidth-bound")
    sides = N_(
        "%(name)s on %(ranks)s ranks is latency-bound below %(m_star)s and bandwidth-bound "
        "above it.",
        name=f"{collective}/{algorithm}",
        ranks=values["ranks"],
        m_star=units.size(m_star),
    )
    here = {"size": units.size(m), "share": f"{share:.3g}"}
    if below:
        advice = N_(
            "At %(size)s the latency term is %(share)s%% of the time, so it is latency-bound: "
            "fewer steps (a tree or recursive doubling) would help more than a faster link.",
            **here,
        )
    else:
        advice = N_(
            "At %(size)s the latency term is %(share)s%% of the time, so it is "
            "bandwidth-bound: a faster link or fewer bytes helps; the step count barely matters.",
            **here,
        )
    if values["gamma_s_per_byte"]:
        return regime, sentences(sides, advice)
    half = N_(
        "At M* the bus bandwidth is half its large-message value (%(half)s of %(peak)s).",
        half=units.bandwidth(peak_busbw / 2),
        peak=units.bandwidth(peak_busbw),
    )
    return regime, sentences(sides, advice, half)


def _substituted(here: Cost, per_byte: Cost, m_star: float | None) -> str:
    """Write M* with the numbers in, then the cost at M."""
    alpha = units.seconds(here.latency_s / here.steps) if here.steps else "0 s"
    return (
        f"M* = {here.steps}·{alpha} ÷ {per_byte.bandwidth_s:.4g} s/B = "
        + (units.size(m_star) if m_star is not None else "undefined")
        + f";  at M: {here.formula_substituted}"
    )


def _terms_chart(name: str, m: float, here: Cost, per_byte: Cost, m_star: float | None) -> dict:
    """Describe the log-log chart of the latency and bandwidth terms against size, M* marked."""
    latency_s, slope_s_per_byte = here.latency_s, per_byte.bandwidth_s
    return {
        "kind": "loglog",
        "title": N_("%(name)s: latency and bandwidth terms", name=name),
        "x": SIZES,
        "series": [
            {"name": N_("latency term"), "y": [latency_s for _ in SIZES]},
            {"name": N_("bandwidth term"), "y": [slope_s_per_byte * s for s in SIZES]},
            {
                "name": N_("total"),
                "y": [latency_s + (slope_s_per_byte + per_byte.compute_s) * s for s in SIZES],
            },
        ],
        "markers": []
        if m_star is None
        else [{"x": m_star, "y": latency_s, "label": f"M* = {units.size(m_star)}"}],
        "cursor": m,
    }
