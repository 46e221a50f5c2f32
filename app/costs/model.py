"""`cost(...)`: the alpha-beta-gamma time of one collective algorithm, explained.

Time = Σ over phases (steps·α + critical-path bytes·β + reduced bytes·γ) on each phase's link
(REFERENCE § 1-2); the terms per algorithm live in `allreduce_terms`, `rooted_terms` and
`block_terms`. Units (REFERENCE § 1): bytes, seconds, GB/s = 1e9 bytes/s, latency in µs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.collectives import COLLECTIVES as ENGINE_COLLECTIVES
from app.collectives import node_split_problem
from app.collectives.registry import REGISTRY, catalog_order

# Importing the term modules registers every algorithm (as the engine's modules do).
from . import (  # noqa: F401
    allreduce_terms,
    block_terms,
    innetwork_terms,
    rooted_terms,
    tree_pipelined_terms,
    units,
)
from .cache import TermsCache
from .checks import choice, integer, number
from .errors import CostError
from .nccl_tests import MAX_RANKS, algbw_gbs, bus_factor
from .terms import ALGORITHMS, COLLECTIVES, INTER, INTRA, Terms

MAX_MESSAGE_BYTES = float(1 << 40)  # 1 TiB
MAX_LATENCY_US = 1e6
MAX_BANDWIDTH_GBS = 1e5
# 1 kB/s: slower is no link, and a floor keeps every time finite (1 TiB · 65,535 / 1 kB/s).
MIN_BANDWIDTH_GBS = 1e-6
MAX_GAMMA_S_PER_BYTE = 1e-3
MAX_SEGMENTS = 1 << 16
# The collectives that take a root, as the engine's catalog says.
ROOTED = tuple(name for name, c in ENGINE_COLLECTIVES.items() if c.uses_root)


@dataclass(frozen=True)
class PhaseCost:
    """One phase of an algorithm with its share of the time."""

    name: str
    link: str
    steps: int
    latency_s: float
    bandwidth_s: float
    compute_s: float


@dataclass(frozen=True)
class Cost:
    """The predicted time of one collective call, split into its terms and explained."""

    collective: str
    algorithm: str
    ranks: int
    message_bytes: float
    steps: int  # the count of alpha terms
    bytes_per_rank: list[float]  # what each rank sends
    latency_s: float
    bandwidth_s: float
    compute_s: float
    time_s: float
    algbw_gbs: float | None  # None when time_s is 0 (one rank)
    busbw_gbs: float | None
    bus_factor: float
    formula: str
    formula_substituted: str
    source: str
    inputs: dict = field(default_factory=dict)
    phases: tuple[PhaseCost, ...] = ()

    def as_dict(self, per_rank_limit: int | None = None) -> dict:
        """Return JSON-ready data; drop `bytes_per_rank` above `per_rank_limit` ranks."""
        data = {
            "collective": self.collective,
            "algorithm": self.algorithm,
            "ranks": self.ranks,
            "message_bytes": self.message_bytes,
            "steps": self.steps,
            "max_bytes_per_rank": max(self.bytes_per_rank, default=0.0),
            "latency_s": self.latency_s,
            "bandwidth_s": self.bandwidth_s,
            "compute_s": self.compute_s,
            "time_s": self.time_s,
            "algbw_gbs": self.algbw_gbs,
            "busbw_gbs": self.busbw_gbs,
            "bus_factor": self.bus_factor,
            "formula": self.formula,
            "formula_substituted": self.formula_substituted,
            "source": self.source,
            "inputs": dict(self.inputs),
            "phases": [vars(phase).copy() for phase in self.phases],
        }
        if per_rank_limit is None or self.ranks <= per_rank_limit:
            data["bytes_per_rank"] = list(self.bytes_per_rank)
        return data


def algorithms(collective: str) -> list[str]:
    """List the algorithms of `collective`, in the catalog's one order (`catalog_order`)."""
    collective = choice("collective", collective, COLLECTIVES)
    return [name for (c, name) in sorted(ALGORITHMS, key=catalog_order) if c == collective]


TERMS_CACHE = TermsCache()


def _terms(collective: str, algorithm: str, ranks: int, ranks_per_node, segments) -> Terms:
    return TERMS_CACHE.get(
        (collective, algorithm, ranks, ranks_per_node, segments),
        lambda: ALGORITHMS[(collective, algorithm)].terms(
            ranks, ranks_per_node=ranks_per_node, segments=segments
        ),
    )


def terms_for(
    collective: str,
    algorithm: str,
    *,
    ranks: int,
    ranks_per_node: int | None = None,
    segments: int | None = None,
) -> Terms:
    """Validate the shape arguments and return the algorithm's per-byte terms."""
    collective = choice("collective", collective, COLLECTIVES)
    algorithm = choice(f"algorithm for {collective}", algorithm, algorithms(collective))
    engine = REGISTRY[(collective, algorithm)]  # the catalog's limits are the model's too
    ranks = integer("ranks", ranks, low=1, high=min(MAX_RANKS, engine.max_ranks or MAX_RANKS))
    spec = ALGORITHMS[(collective, algorithm)]
    if spec.needs_ranks_per_node:
        if ranks_per_node is None:
            raise CostError(
                f"ranks_per_node is required for {collective}/{algorithm}: "
                f"an integer in 1..{ranks} that divides ranks"
            )
        most = min(ranks, engine.max_ranks_per_node or ranks)
        ranks_per_node = integer("ranks_per_node", ranks_per_node, low=1, high=most)
        problem = node_split_problem(ranks, ranks_per_node)
        if problem:
            raise CostError(problem)
    else:
        ranks_per_node = None
    if segments is not None:
        if not spec.segments:
            with_segments = [f"{c}/{a}" for (c, a), s in ALGORITHMS.items() if s.segments]
            raise CostError(
                f"segments does not apply to {collective}/{algorithm}; "
                f"only to {', '.join(with_segments)}"
            )
        segments = integer("segments", segments, low=1, high=MAX_SEGMENTS)
    return _terms(collective, algorithm, ranks, ranks_per_node, segments)


@dataclass(frozen=True)
class _Links:
    """Alpha in seconds and beta in seconds per byte for each link class."""

    alpha_s: dict[str, float]
    beta_s_per_byte: dict[str, float]
    bandwidth_gbs: dict[str, float]
    gamma_s_per_byte: float


def _links(
    latency_us, bandwidth_gbs, gamma_s_per_byte, intra_latency_us, intra_bandwidth_gbs
) -> _Links:
    """Validate the link inputs; the intra-node link defaults to the main one."""
    alpha = number("latency_us", latency_us, high=MAX_LATENCY_US)
    bw = number("bandwidth_gbs", bandwidth_gbs, low=MIN_BANDWIDTH_GBS, high=MAX_BANDWIDTH_GBS)
    gamma = number("gamma_s_per_byte", gamma_s_per_byte, high=MAX_GAMMA_S_PER_BYTE)
    intra_alpha = alpha
    if intra_latency_us is not None:
        intra_alpha = number("intra_latency_us", intra_latency_us, high=MAX_LATENCY_US)
    intra_bw = bw
    if intra_bandwidth_gbs is not None:
        intra_bw = number(
            "intra_bandwidth_gbs",
            intra_bandwidth_gbs,
            low=MIN_BANDWIDTH_GBS,
            high=MAX_BANDWIDTH_GBS,
        )
    return _Links(
        {INTER: alpha * 1e-6, INTRA: intra_alpha * 1e-6},
        {INTER: 1 / (bw * units.GB), INTRA: 1 / (intra_bw * units.GB)},
        {INTER: bw, INTRA: intra_bw},
        gamma,
    )


def _substitute(terms: Terms, m: float, links: _Links, parts: tuple[float, float, float]) -> str:
    """Write the time with every number in place, link by link, then the three terms."""
    used = [ph for ph in terms.phases if ph.steps]
    two_links = len({ph.link for ph in used}) > 1
    pieces = []
    for link in (INTRA, INTER):
        phases = [ph for ph in used if ph.link == link]
        if not phases:
            continue
        label = f" ({'intra' if link == INTRA else 'inter'}-node)" if two_links else ""
        steps = sum(ph.steps for ph in phases)
        beta_units = sum(ph.beta_units for ph in phases)
        pieces.append(f"{steps}·{units.seconds(links.alpha_s[link])}{label}")
        pieces.append(
            f"{units.number(beta_units)}·{units.size(m)} ÷ "
            f"{units.bandwidth(links.bandwidth_gbs[link])}{label}"
        )
    gamma_units = sum(ph.gamma_units for ph in used)
    if gamma_units and links.gamma_s_per_byte:
        pieces.append(
            f"{units.number(gamma_units)}·{units.size(m)} × {links.gamma_s_per_byte:g} s/B"
        )
    latency_s, bandwidth_s, compute_s = parts
    total = latency_s + bandwidth_s + compute_s
    return (
        (" + ".join(pieces) or "0 steps")
        + f" = {units.seconds(latency_s)} latency + {units.seconds(bandwidth_s)} bandwidth"
        + f" + {units.seconds(compute_s)} compute = {units.seconds(total)}"
    )


def cost(
    collective: str,
    algorithm: str,
    *,
    ranks: int,
    message_bytes: float,
    latency_us: float,
    bandwidth_gbs: float,
    gamma_s_per_byte: float = 0.0,
    ranks_per_node: int | None = None,
    intra_latency_us: float | None = None,
    intra_bandwidth_gbs: float | None = None,
    segments: int | None = None,
    root: int = 0,
) -> Cost:
    """Predict the time of `collective` by `algorithm` on `ranks` ranks for M = message_bytes.

    `root` (rooted collectives only) renumbers the ranks: every algorithm here treats rank r as
    rank (r - root) mod p of the same collective rooted at 0, so only `bytes_per_rank` moves.
    """
    terms = terms_for(
        collective, algorithm, ranks=ranks, ranks_per_node=ranks_per_node, segments=segments
    )
    ranks = int(ranks)
    root = _root(collective, root, ranks)
    m = number("message_bytes", message_bytes, high=MAX_MESSAGE_BYTES)
    links = _links(
        latency_us, bandwidth_gbs, gamma_s_per_byte, intra_latency_us, intra_bandwidth_gbs
    )
    phases = _phase_costs(terms, m, links)
    latency_s = sum(ph.latency_s for ph in phases)
    bandwidth_s = sum(ph.bandwidth_s for ph in phases)
    compute_s = sum(ph.compute_s for ph in phases)
    time_s = latency_s + bandwidth_s + compute_s
    algbw = algbw_gbs(m, time_s)
    factor = bus_factor(collective, ranks)
    shape = {"ranks_per_node": ranks_per_node, "segments": segments, "root": root}
    return Cost(
        collective=collective,
        algorithm=algorithm,
        ranks=ranks,
        message_bytes=m,
        steps=terms.steps,
        bytes_per_rank=_per_rank(terms, m, root),
        latency_s=latency_s,
        bandwidth_s=bandwidth_s,
        compute_s=compute_s,
        time_s=time_s,
        algbw_gbs=algbw,
        busbw_gbs=None if algbw is None else algbw * factor,
        bus_factor=factor,
        formula=terms.formula,
        formula_substituted=_substitute(terms, m, links, (latency_s, bandwidth_s, compute_s)),
        source=terms.source,
        inputs=_inputs_used(collective, algorithm, ranks, m, links, **shape),
        phases=phases,
    )


def _root(collective: str, root, ranks: int) -> int:
    """Check `root`: a rank for the rooted collectives, 0 for the others."""
    if collective in ROOTED:
        return integer("root", root, low=0, high=ranks - 1)
    if root != 0:
        raise CostError(f"root applies only to {', '.join(ROOTED)}; got root={root!r}")
    return 0


def _per_rank(terms: Terms, m: float, root: int) -> list[float]:
    """Return the bytes each rank sends; rank r sends what rank (r - root) mod p sends rooted
    at 0 (slices, not a loop)."""
    per_rank = [units_ * m for units_ in terms.bytes_per_rank]
    return per_rank[-root:] + per_rank[:-root] if root else per_rank


def _phase_costs(terms: Terms, m: float, links: _Links) -> tuple[PhaseCost, ...]:
    """Price each phase of `terms` for a message of m bytes on `links`."""
    return tuple(
        PhaseCost(
            ph.name,
            ph.link,
            ph.steps,
            ph.steps * links.alpha_s[ph.link],
            ph.beta_units * m * links.beta_s_per_byte[ph.link],
            ph.gamma_units * m * links.gamma_s_per_byte,
        )
        for ph in terms.phases
    )


def _inputs_used(
    collective: str,
    algorithm: str,
    ranks: int,
    m: float,
    links: _Links,
    *,
    ranks_per_node,
    segments,
    root: int,
) -> dict:
    """Return the inputs a cost was computed with: those every cost takes, and the shape inputs
    (node size, segments, root) where its algorithm takes them."""
    spec = ALGORITHMS[(collective, algorithm)]
    inputs = {
        "collective": collective,
        "algorithm": algorithm,
        "ranks": ranks,
        "message_bytes": m,
        "latency_us": links.alpha_s[INTER] * 1e6,
        "bandwidth_gbs": links.bandwidth_gbs[INTER],
        "gamma_s_per_byte": links.gamma_s_per_byte,
    }
    if spec.needs_ranks_per_node:
        inputs.update(
            ranks_per_node=int(ranks_per_node),
            intra_latency_us=links.alpha_s[INTRA] * 1e6,
            intra_bandwidth_gbs=links.bandwidth_gbs[INTRA],
        )
    if spec.segments:
        inputs["segments"] = int(segments) if segments is not None else spec.default_segments(ranks)
    if collective in ROOTED:
        inputs["root"] = root
    return inputs


def cost_line(
    collective: str,
    algorithm: str,
    *,
    ranks: int,
    latency_us: float,
    bandwidth_gbs: float,
    gamma_s_per_byte: float = 0.0,
    ranks_per_node: int | None = None,
    intra_latency_us: float | None = None,
    intra_bandwidth_gbs: float | None = None,
    segments: int | None = None,
) -> tuple[float, float]:
    """Return (intercept_s, slope_s_per_byte) so that time = intercept + slope·M, for sweeps.

    The phases priced for one byte: the latency is the intercept, the rest the slope.
    """
    terms = terms_for(
        collective, algorithm, ranks=ranks, ranks_per_node=ranks_per_node, segments=segments
    )
    links = _links(
        latency_us, bandwidth_gbs, gamma_s_per_byte, intra_latency_us, intra_bandwidth_gbs
    )
    phases = _phase_costs(terms, 1.0, links)
    return sum(ph.latency_s for ph in phases), sum(ph.bandwidth_s + ph.compute_s for ph in phases)
