"""NCCL's choice, reproduced: which (algorithm, protocol) NCCL's own tuning model picks on a
system preset, its predicted time and busbw, and a table over sizes beside the α-β model
(`app.costs.nccl`, following NVIDIA/nccl v2.30.7-1 src/graph/tuning.cc)."""

from __future__ import annotations

from app.i18n import N_

from .. import units
from ..nccl import FUNCTIONS, MAX_BYTES, MAX_NODES, NCCL_SYSTEMS, NCCL_TAG, nccl_choice, nccl_table
from .fields import CHOICE, FLOAT, INT, Field
from .registry import calculator
from .result import BANDWIDTH, BYTES, TEXT, TIME, Output, Result, table

FIELDS = (
    Field(
        "collective",
        N_("Collective"),
        CHOICE,
        "allreduce",
        choices=FUNCTIONS,
        help=N_("The five collectives NCCL's tuning model covers."),
    ),
    Field(
        "system",
        N_("System"),
        CHOICE,
        "dgx_h100",
        choices=tuple(NCCL_SYSTEMS),
        choice_labels=tuple(s.label for s in NCCL_SYSTEMS.values()),
        help=N_("The node type: GPUs, NVLink, NICs and CPU, as NCCL's topology detection sees it."),
    ),
    Field("ranks", N_("GPUs (ranks)"), INT, 16, low=1, high=MAX_NODES * 8, scale="log2"),
    Field(
        "nodes",
        N_("Nodes"),
        INT,
        2,
        low=1,
        high=MAX_NODES,
        scale="log2",
        help=N_("Must divide the ranks, with at most the system's GPUs per node."),
    ),
    Field(
        "message_bytes",
        N_("Message size"),
        FLOAT,
        float(1 << 30),
        low=0,
        high=float(MAX_BYTES),
        unit="bytes",
        scale="log2",
        help=N_("nccl-tests' size column (allgather: the total output)."),
    ),
)


@calculator(
    "nccl_model",
    N_("NCCL's choice, reproduced"),
    N_(
        "The algorithm and protocol NCCL %(version)s's own cost model picks, and its time.",
        version=NCCL_TAG,
    ),
    FIELDS,
)
def nccl_model(**values) -> Result:
    """Run NCCL's tuning model at one size and over 8 B .. 8 GiB, beside the α-β model."""
    collective, system = values["collective"], values["system"]
    ranks, nodes, m = values["ranks"], values["nodes"], int(values["message_bytes"])
    pick = nccl_choice(collective, ranks, m, system, nodes)
    rows = nccl_table(collective, ranks, system, nodes)["rows"]
    return Result(
        calculator="nccl_model",
        inputs=values,
        outputs=(
            Output("algorithm", N_("NCCL's algorithm"), pick.algorithm, TEXT),
            Output("protocol", N_("Protocol"), pick.protocol, TEXT),
            Output("time_s", N_("NCCL's predicted time"), pick.time_us * 1e-6, TIME),
            Output("busbw_gbs", N_("Predicted busbw"), pick.busbw_gbs, BANDWIDTH),
        ),
        formula="time = lat(algorithm, protocol) + bytes ÷ (1000 · algbw)  [µs, GB/s]",
        substituted=_substituted(pick),
        interpretation=_sentence(pick, ranks, system, nodes, m),
        table=_table(rows),
        charts=(_chart(rows, m),),
        notes=(
            N_(
                "Constants and formulas from NVIDIA/nccl %(version)s src/graph/tuning.cc; the "
                "graph search is simplified (app/costs/nccl/graph.py says how).",
                version=NCCL_TAG,
            ),
            N_(
                "Defaults of a plain nccl-tests run: no NCCL_ALGO/NCCL_PROTO, no tuner plugin, "
                "CollNet off."
            ),
        ),
    )


def _sentence(pick, ranks: int, system: str, nodes: int, m: int) -> str:
    """Say what NCCL's model picks at this size, and what comes second."""
    facts = {
        "ranks": ranks,
        "system": system,
        "nodes": N_("%(k)s node", k=nodes) if nodes == 1 else N_("%(k)s nodes", k=nodes),
        "pick": f"{pick.algorithm}/{pick.protocol}",
        "size": units.size(m),
        "time": units.seconds(pick.time_us * 1e-6),
    }
    if len(pick.candidates) < 2:
        return N_(
            "On %(ranks)s GPUs of %(system)s (%(nodes)s), NCCL's model picks %(pick)s for "
            "%(size)s: %(time)s.",
            **facts,
        )
    runner_up = pick.candidates[1]
    return N_(
        "On %(ranks)s GPUs of %(system)s (%(nodes)s), NCCL's model picks %(pick)s for "
        "%(size)s: %(time)s, ahead of %(other)s at %(other_time)s.",
        other=f"{runner_up['algorithm']}/{runner_up['protocol']}",
        other_time=units.seconds(runner_up["time_us"] * 1e-6),
        **facts,
    )


def _table(rows: list[dict]) -> dict:
    """NCCL's pick and time at each size of the sweep, beside the α-β model's fastest."""
    return table(
        [
            (N_("Size"), BYTES),
            (N_("NCCL pick"), TEXT),
            (N_("NCCL time"), TIME),
            (N_("α-β fastest"), TEXT),
            (N_("α-β time"), TIME),
        ],
        [
            [
                r["bytes"],
                f"{r['algorithm']}/{r['protocol']}",
                r["time_us"] * 1e-6,
                r["alpha_beta_algorithm"].replace("_", " "),
                r["alpha_beta_time_us"] * 1e-6,
            ]
            for r in rows
        ],
    )


def _substituted(pick) -> str:
    best = pick.candidates[0] if pick.candidates else None
    if best is None:
        return "one rank: nothing to move, 0 µs"
    return f"{pick.algorithm}/{pick.protocol}: {best['time_us']:.4g} µs for {pick.bytes} B"


def _chart(rows: list[dict], m: int) -> dict:
    sizes = [r["bytes"] for r in rows]
    return {
        "kind": "loglog",
        "title": N_("NCCL's model against the α-β model"),
        "x": sizes,
        "series": [
            {"name": N_("NCCL's pick"), "y": [r["time_us"] * 1e-6 for r in rows]},
            {"name": N_("α-β fastest"), "y": [r["alpha_beta_time_us"] * 1e-6 for r in rows]},
        ],
        "markers": [],
        "cursor": max(m, 1),
    }
