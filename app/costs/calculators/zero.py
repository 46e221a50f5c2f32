"""ZeRO stages 0-3 and ZeRO++: communication volume per GPU per training step.

Volumes in units of M, the model's size in bytes of FP16/BF16 parameters, as the papers count
them (they round (p−1)/p to 1): DP allreduce 2M; ZeRO-1/2 reduce-scatter of gradients plus
allgather of parameters 2M; ZeRO-3 adds a second parameter allgather in backward, 3M = 1.5×
DP ([ZeRO] § 7, REFERENCE § 6 Q9). ZeRO++ on ZeRO-3 ([Z++], REFERENCE § 6 Q34): qwZ sends
the forward allgather in INT8 (0.5M); hpZ serves the backward allgather from a secondary FP16
copy partitioned inside each node (no cross-node traffic, M·(g−1)/g on the intra-node link);
qgZ replaces the gradient reduce-scatter with an INT4 all-to-all (0.25M cross-node).
Cross-node volume goes from 3M to 0.75M. Bytes and times below use the exact ring counts.
"""

from __future__ import annotations

from typing import NamedTuple

from app.collectives import node_split_problem
from app.i18n import N_, sentences

from .. import units
from ..errors import CostError
from ..model import Cost, cost
from ..nccl_tests import MAX_RANKS
from .fields import (
    BOOL,
    FLOAT,
    GPUS_PER_NODE,
    INT,
    Field,
    inter_link_fields,
    intra_link_fields,
    link_inputs,
    within_one_message,
)
from .registry import calculator
from .result import BYTES, RATIO, TEXT, TIME, Output, Result, stacked_chart, table

FIELDS = (
    Field("params", N_("Model parameters Ψ"), FLOAT, 18e9, low=1e3, high=1e13, scale="log2"),
    Field(
        "param_bytes",
        N_("Bytes per parameter"),
        INT,
        2,
        low=1,
        high=8,
        help=N_("2 for FP16/BF16 parameters and gradients, as the ZeRO papers count."),
    ),
    Field("ranks", N_("Data-parallel GPUs"), INT, 64, low=2, high=MAX_RANKS, scale="log2"),
    GPUS_PER_NODE,
    Field("stage", N_("ZeRO stage"), INT, 3, low=0, high=3),
    Field("qwz", N_("qwZ: INT8 weights"), BOOL, False),
    Field("hpz", N_("hpZ: secondary copy in the node"), BOOL, False),
    Field("qgz", N_("qgZ: INT4 gradients"), BOOL, False),
    *inter_link_fields(),
    *intra_link_fields(),
)
PRETTY = {"qwz": "qwZ", "hpz": "hpZ", "qgz": "qgZ"}
COLUMNS = [
    (N_("collective"), TEXT),
    (N_("kind"), TEXT),
    (N_("link"), TEXT),
    (N_("paper volume (× M)"), RATIO),
    (N_("bytes per GPU"), BYTES),
    (N_("time"), TIME),
]
NOTES = (
    N_(
        "qgZ's 2-hop all-to-all also has an intra-node hop that is not counted here; "
        "its cross-node volume is 0.25M (Wang et al., ZeRO++, 2023)."
    ),
    N_(
        "Times use ring allgather / reduce-scatter over all data-parallel GPUs on the "
        "inter-node link, pairwise all-to-all for qgZ."
    ),
)


class Step(NamedTuple):
    """One collective of a training step, as the ZeRO papers count it."""

    what: str
    collective: str
    size_m: float  # the message, in units of M
    link: str  # "inter" (cross-node, all data-parallel GPUs) or "intra" (one node's GPUs)
    paper_m: float  # the papers' cross-node volume, in units of M


class Priced(NamedTuple):
    """A step of the plan with its cost."""

    step: Step
    cost: Cost

    @property
    def sent(self) -> float:
        """Bytes the busiest GPU sends."""
        return max(self.cost.bytes_per_rank)

    def row(self) -> list:
        """Return the table row: what, which collective, link, paper volume, bytes, time."""
        link = N_("intra-node") if self.step.link == "intra" else N_("cross-node")
        return [
            self.step.what,
            self.cost.collective,
            link,
            self.step.paper_m,
            self.sent,
            self.cost.time_s,
        ]


def plan(stage: int, qwz: bool, hpz: bool, qgz: bool) -> list[Step]:
    """Return the collectives of one training step under this configuration."""
    if stage == 0:
        return [Step(N_("gradient allreduce"), "allreduce", 1.0, "inter", 2.0)]
    if stage in (1, 2):
        return [
            Step(N_("gradient reduce-scatter"), "reduce_scatter", 1.0, "inter", 1.0),
            Step(N_("parameter allgather"), "allgather", 1.0, "inter", 1.0),
        ]
    forward = Step(
        N_("forward parameter allgather (INT8, qwZ)") if qwz else N_("forward parameter allgather"),
        "allgather",
        0.5 if qwz else 1.0,
        "inter",
        0.5 if qwz else 1.0,
    )
    if hpz:
        backward = Step(
            N_("backward allgather inside the node (hpZ)"), "allgather", 1.0, "intra", 0.0
        )
    else:
        backward = Step(N_("backward parameter allgather"), "allgather", 1.0, "inter", 1.0)
    if qgz:
        gradients = Step(N_("gradient all-to-all (INT4, qgZ)"), "all_to_all", 0.25, "inter", 0.25)
    else:
        gradients = Step(N_("gradient reduce-scatter"), "reduce_scatter", 1.0, "inter", 1.0)
    return [forward, backward, gradients]


# The configurations every answer compares, in the chart's order.
CONFIGS = (
    ("ZeRO-0 (DDP)", plan(0, False, False, False)),
    ("ZeRO-1/2", plan(2, False, False, False)),
    ("ZeRO-3", plan(3, False, False, False)),
    ("ZeRO++ (qwZ+hpZ+qgZ)", plan(3, True, True, True)),
)


def _costs(values: dict, steps: list[Step]) -> list[Priced]:
    """Cost every collective of the plan on its link (intra-node ones over one node's GPUs)."""
    model_bytes = values["params"] * values["param_bytes"]
    out = []
    for step in steps:
        algorithm = "pairwise" if step.collective == "all_to_all" else "ring"
        intra = step.link == "intra"
        c = cost(
            step.collective,
            algorithm,
            ranks=values["gpus_per_node"] if intra else values["ranks"],
            message_bytes=step.size_m * model_bytes,
            **link_inputs(values, intra=intra),
        )
        out.append(Priced(step, c))
    return out


def _totals(costs: list[Priced]) -> tuple[float, float, float]:
    """Return (cross-node bytes, intra-node bytes, time) per GPU."""
    cross = sum(p.sent for p in costs if p.step.link == "inter")
    intra = sum(p.sent for p in costs if p.step.link == "intra")
    return cross, intra, sum(p.cost.time_s for p in costs)


def _why(stage: int) -> str:
    """Say what the stage trades for its volume."""
    if stage == 0:
        return N_("Plain data parallelism: one allreduce of the gradients, 2M.")
    if stage in (1, 2):
        return N_(
            "ZeRO-1 and -2 partition optimizer states and gradients at no extra communication: "
            "a reduce-scatter plus an allgather is exactly an allreduce."
        )
    return N_(
        "ZeRO-3 pays 1.5× DP's volume for holding only 1/p of the parameters; ZeRO++ cuts the "
        "cross-node part 4× (3M → 0.75M) with INT8 weights, a node-local copy for backward and "
        "INT4 gradients."
    )


def _sentence(values: dict, label: str, paper: float, bytes_: tuple[float, float, float]) -> str:
    """Say what the configuration moves across nodes and inside them, against plain DP."""
    cross, intra, baseline_cross = bytes_
    facts = {
        "label": label,
        "paper": f"{paper:g}",
        "m": units.size(values["params"] * values["param_bytes"]),
        "cross": units.size(cross),
        "ratio": f"{cross / baseline_cross:.3g}",
    }
    if intra:
        moves = N_(
            "%(label)s moves %(paper)sM across nodes per GPU per step in the papers' count "
            "(M = %(m)s): %(cross)s cross-node and %(intra)s inside the node, %(ratio)s× plain "
            "data parallelism's cross-node bytes.",
            intra=units.size(intra),
            **facts,
        )
    else:
        moves = N_(
            "%(label)s moves %(paper)sM across nodes per GPU per step in the papers' count "
            "(M = %(m)s): %(cross)s cross-node, %(ratio)s× plain data parallelism's cross-node "
            "bytes.",
            **facts,
        )
    return sentences(moves, _why(values["stage"]))


@calculator(
    "zero",
    N_("ZeRO and ZeRO++: bytes per GPU per step"),
    N_("Stages 0-3 and qwZ / hpZ / qgZ: volume, link class and time."),
    FIELDS,
    sizes=units.DECIMAL,
)
def zero(**values) -> Result:
    """Return each collective of one training step under the chosen ZeRO configuration."""
    stage = values["stage"]
    flags = [name for name in ("qwz", "hpz", "qgz") if values[name]]
    _check(values, flags)
    chosen = _costs(values, plan(stage, values["qwz"], values["hpz"], values["qgz"]))
    cross, intra, time_s = _totals(chosen)
    paper = sum(p.step.paper_m for p in chosen)
    compared = [(name, _totals(_costs(values, steps))) for name, steps in CONFIGS]
    baseline_cross = _totals(_costs(values, plan(0, False, False, False)))[0]
    label = f"ZeRO-{stage}" + (f" + {', '.join(PRETTY[f] for f in flags)}" if flags else "")
    return Result(
        calculator="zero",
        inputs=values,
        outputs=(
            Output("config", N_("Configuration"), label, TEXT),
            Output("paper_volume_m", N_("Cross-node volume (× M)"), paper, RATIO),
            Output("cross_node_bytes", N_("Cross-node bytes per GPU"), cross, BYTES),
            Output("intra_node_bytes", N_("Intra-node bytes per GPU"), intra, BYTES),
            Output("time_s", N_("Communication time per step"), time_s, TIME),
            Output("vs_dp", N_("× DP's cross-node bytes"), cross / baseline_cross, RATIO),
        ),
        formula="DP 2M; ZeRO-1/2 M + M; ZeRO-3 M + M + M; ZeRO++ 0.5M + 0 (intra-node) + 0.25M",
        substituted=" + ".join(f"{units.size(p.sent)} ({p.step.what})" for p in chosen)
        + f" = {units.size(cross + intra)}",
        interpretation=_sentence(values, label, paper, (cross, intra, baseline_cross)),
        table=table(COLUMNS, [p.row() for p in chosen]),
        charts=(
            stacked_chart(
                N_("Bytes per GPU per step"),
                [name for name, _ in compared],
                {
                    N_("cross-node"): [t[0] for _, t in compared],
                    N_("intra-node"): [t[1] for _, t in compared],
                },
                y=BYTES,
            ),
        ),
        notes=NOTES,
    )


def _check(values: dict, flags: list[str]) -> None:
    """Refuse ZeRO++ below stage 3, nodes that do not divide the GPUs, and too big a model."""
    if flags and values["stage"] != 3:
        raise CostError(f"{flags[0]} (ZeRO++) applies to stage 3 only; got stage {values['stage']}")
    problem = node_split_problem(values["ranks"], values["gpus_per_node"], "gpus_per_node")
    if problem:
        raise CostError(problem)
    within_one_message(values["params"] * values["param_bytes"], "the model, params × param_bytes")
