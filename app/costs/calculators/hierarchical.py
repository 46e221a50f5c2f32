"""Hierarchical against flat allreduce for g GPUs per node and N nodes (REFERENCE § 2).

- flat ring over all p = g·N GPUs: every step waits for the slowest hop, a network hop, and
  each node boundary is crossed by one ring through one NIC;
- (a) reduce to a leader per node (binomial), ring allreduce among the N leaders, broadcast
  back: one NIC per node carries 2(N−1)/N·M;
- (b) intra-node reduce-scatter, g concurrent inter-node ring allreduces on M/g (one per
  NIC), intra-node allgather: each NIC carries 2(N−1)/N·M/g.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from app.i18n import N_, sentences

from .. import units
from ..model import Cost, cost
from .fields import (
    FLOAT,
    GPUS_PER_NODE,
    INT,
    Field,
    inter_link_fields,
    intra_link_fields,
    link_inputs,
    within_rank_limit,
)
from .registry import calculator
from .result import RATIO, TEXT, TIME, Output, Result, stacked_chart, table

FIELDS = (
    replace(GPUS_PER_NODE, label=N_("GPUs per node g")),
    Field("nodes", N_("Nodes N"), INT, 8, low=1, high=1 << 14, scale="log2"),
    Field(
        "message_bytes",
        N_("Message size M"),
        FLOAT,
        float(1 << 30),
        low=1,
        high=float(1 << 40),
        unit="bytes",
        scale="log2",
    ),
    *inter_link_fields(),
    *intra_link_fields(),
)


class Variant(NamedTuple):
    """One way to allreduce across nodes: its collectives, each with the link it runs on."""

    name: str
    parts: list[tuple[Cost, str]]  # (cost, "intra" or "inter"; "" when its phases say)


def _variants(values: dict) -> list[Variant]:
    """Price the flat ring, (a) via leaders and (b) RS → AR → AG: five collectives."""
    g, n, m = values["gpus_per_node"], values["nodes"], values["message_bytes"]
    inter, intra = link_inputs(values), link_inputs(values, intra=True)
    # On one node the flat ring never leaves it: every hop is on the intra-node link.
    flat_link, flat_where = (intra, "intra") if n == 1 else (inter, "inter")
    flat = cost("allreduce", "ring", ranks=g * n, message_bytes=m, **flat_link)
    leader = [
        (cost("reduce", "binomial_tree", ranks=g, message_bytes=m, **intra), "intra"),
        (cost("allreduce", "ring", ranks=n, message_bytes=m, **inter), "inter"),
        (cost("broadcast", "binomial_tree", ranks=g, message_bytes=m, **intra), "intra"),
    ]
    rs_ar_ag = cost(
        "allreduce",
        "hierarchical",
        ranks=g * n,
        ranks_per_node=g,
        message_bytes=m,
        intra_latency_us=values["intra_latency_us"],
        intra_bandwidth_gbs=values["intra_bandwidth_gbs"],
        **inter,
    )
    return [
        Variant(N_("flat ring"), [(flat, flat_where)]),
        Variant(N_("(a) via leaders"), leader),
        Variant(N_("(b) RS → AR → AG"), [(rs_ar_ag, "")]),
    ]


def _split(costs) -> dict[str, float]:
    """Sum latency and bandwidth time per link class over the phases of several Costs."""
    out = {
        N_("intra latency"): 0.0,
        N_("intra bandwidth"): 0.0,
        N_("inter latency"): 0.0,
        N_("inter bandwidth"): 0.0,
    }
    for c, link in costs:
        for phase in c.phases:
            where = "intra" if (phase.link == "intra" or link == "intra") else "inter"
            out[f"{where} latency"] += phase.latency_s
            out[f"{where} bandwidth"] += phase.bandwidth_s + phase.compute_s
    return out


@calculator(
    "hierarchical",
    N_("Hierarchical or flat allreduce?"),
    N_("Flat ring against the two hierarchical allreduces for g GPUs per node and N nodes."),
    FIELDS,
)
def hierarchical(**values) -> Result:
    """Compare a flat ring with hierarchical variants (a) and (b)."""
    g, n, m = values["gpus_per_node"], values["nodes"], values["message_bytes"]
    within_rank_limit(g * n, f"gpus_per_node × nodes = {g} × {n}")
    variants = _variants(values)
    flat_ring, via_leaders, rs_ar_ag = variants
    flat, hierarchical_cost = flat_ring.parts[0][0], rs_ar_ag.parts[0][0]
    times = {name: sum(c.time_s for c, _ in parts) for name, parts in variants}
    best = min(times, key=times.get)
    splits = {name: _split(parts) for name, parts in variants}
    stack_names = list(next(iter(splits.values())))
    return Result(
        calculator="hierarchical",
        inputs=values,
        outputs=(
            Output("fastest", N_("Fastest"), best if g * n > 1 else N_("none: one GPU"), TEXT),
            Output("flat_s", N_("Flat ring"), times["flat ring"], TIME),
            Output("leader_s", N_("(a) via leaders"), times[via_leaders.name], TIME),
            Output("hierarchical_s", N_("(b) RS → AR → AG"), times[rs_ar_ag.name], TIME),
            Output("speedup", N_("Flat ÷ fastest"), _ratio(times["flat ring"], times[best]), RATIO),
        ),
        formula="(b): " + hierarchical_cost.formula + ";  flat: " + flat.formula,
        substituted=(
            f"(b): {hierarchical_cost.formula_substituted};  flat: {flat.formula_substituted}"
        ),
        interpretation=_sentence(g, n, m, best, times),
        table=table(
            [(N_("variant"), TEXT), (N_("time"), TIME)] + [(s, TIME) for s in stack_names],
            [[name, times[name], *splits[name].values()] for name, _ in variants],
        ),
        charts=(
            stacked_chart(
                N_("Where each variant spends its time"),
                [name for name, _ in variants],
                {s: [splits[name][s] for name, _ in variants] for s in stack_names},
            ),
        ),
    )


def _ratio(slow: float, fast: float) -> float:
    """Return slow ÷ fast; 1 when both are zero (one GPU: nothing to compare)."""
    return slow / fast if fast > 0 else 1.0


def _sentence(g: int, n: int, m: float, best: str, times: dict[str, float]) -> str:
    """Say which variant wins and why; on one GPU, that there is nothing to send."""
    if g * n == 1:
        return N_(
            "With one GPU there is nothing to communicate: an allreduce over one rank is its "
            "own input, so every variant takes 0 s. Add GPUs or nodes to compare them."
        )
    winner = N_(
        "For %(gpus)s × %(nodes)s and %(size)s, %(best)s is fastest (%(time)s; flat ring "
        "%(flat)s).",
        gpus=N_("%(k)s GPU", k=g) if g == 1 else N_("%(k)s GPUs", k=g),
        nodes=N_("%(k)s node", k=n) if n == 1 else N_("%(k)s nodes", k=n),
        size=units.size(m),
        best=best,
        time=units.seconds(times[best]),
        flat=units.seconds(times["flat ring"]),
    )
    if n == 1:
        return sentences(
            winner,
            N_(
                "With one node there is no network: the flat ring and (b) stay on the "
                "intra-node link, where (b) is a ring reduce-scatter then allgather, the same "
                "steps and bytes as the flat ring, so the two tie."
            ),
        )
    why = N_(
        "The flat ring pays the network latency on all 2(p−1) = %(flat_steps)s steps and "
        "pushes 2(p−1)/p·M through one NIC per node; (b) takes only 2(N−1) = %(steps)s "
        "network steps and splits the inter-node bytes over g = %(g)s NICs; (a) also has few "
        "network steps but sends all of M through one NIC per node. A flat ring does not send "
        "g·M across nodes: NCCL runs several rings on different NICs, which recovers most of "
        "(b)'s bandwidth.",
        flat_steps=2 * (g * n - 1),
        steps=2 * (n - 1),
        g=g,
    )
    return sentences(winner, why)
