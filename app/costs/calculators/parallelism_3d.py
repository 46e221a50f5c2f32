"""3D parallelism: the bytes each dimension (tensor, pipeline, data) moves per GPU per step,
on which link class, and which one dominates.

Megatron-LM tensor parallelism does 2 allreduces of the b·s·h activations per layer in
forward (g after attention and after the MLP) and 2 in backward (f), per micro-batch
(REFERENCE § 6 Q8 and Q35, [MLM]). Pipeline stages send each micro-batch's activations
forward and their gradients back (b·s·h each). Data parallelism allreduces the gradients of
the GPU's shard, Ψ/(tp·pp), once per step. Ranks are ordered tensor fastest, then data, then
pipeline (Megatron's default), so a group stays inside a node when its span fits in one.
`tensor_traffic` and `pipeline_traffic` are the one count of TP and PP traffic: `step_budget`
sets the same numbers against compute.
"""

from __future__ import annotations

from typing import NamedTuple

from app.i18n import N_, sentences

from .. import units
from ..errors import CostError
from ..model import cost
from .fields import (
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
from .result import BYTES, COUNT, TEXT, TIME, Output, Result, stacked_chart, table

FIELDS = (
    Field("layers", N_("Layers L"), INT, 32, low=1, high=10000),
    Field("hidden", N_("Hidden size h"), INT, 4096, low=1, high=1 << 20, scale="log2"),
    Field("seq", N_("Sequence length s"), INT, 4096, low=1, high=1 << 24, scale="log2"),
    Field("micro_batch", N_("Micro-batch size b"), INT, 1, low=1, high=1 << 16),
    Field("micro_batches", N_("Micro-batches per step m"), INT, 8, low=1, high=1 << 16),
    Field("dtype_bytes", N_("Bytes per value"), INT, 2, low=1, high=8),
    Field("params", N_("Model parameters Ψ"), FLOAT, 7e9, low=1e3, high=1e13, scale="log2"),
    Field("tp", N_("Tensor-parallel size"), INT, 8, low=1, high=1024, scale="log2"),
    Field("pp", N_("Pipeline stages"), INT, 4, low=1, high=1024, scale="log2"),
    Field("dp", N_("Data-parallel size"), INT, 4, low=1, high=1 << 16, scale="log2"),
    GPUS_PER_NODE,
    *inter_link_fields(),
    *intra_link_fields(),
)
COLUMNS = [
    (N_("dimension"), TEXT),
    (N_("link"), TEXT),
    (N_("collectives"), COUNT),
    (N_("bytes per GPU"), BYTES),
    (N_("latency"), TIME),
    (N_("bandwidth"), TIME),
]


def link_of(values: dict, span: int) -> tuple[str, dict]:
    """Return the link class of a group spanning `span` consecutive ranks and its inputs."""
    intra = span <= values["gpus_per_node"]
    return N_("intra-node") if intra else N_("inter-node"), link_inputs(values, intra=intra)


@calculator(
    "parallelism_3d",
    N_("3D parallelism: which dimension dominates?"),
    N_("Tensor, pipeline and data parallel bytes per GPU per step, and on which link."),
    FIELDS,
    sizes=units.DECIMAL,
)
def parallelism_3d(**values) -> Result:
    """Return per-dimension bytes, link class and time, and name the dominant one."""
    whole_stages(values)
    activation = values["micro_batch"] * values["seq"] * values["hidden"] * values["dtype_bytes"]
    within_one_message(activation, "an activation, micro_batch × seq × hidden × dtype_bytes")
    dims = [tensor_traffic(values, activation), pipeline_traffic(values, activation), _data(values)]
    by_time = max(dims, key=lambda d: d.time_s)
    return Result(
        calculator="parallelism_3d",
        inputs=values,
        outputs=(
            Output("dominant", N_("Dominant dimension (time)"), by_time.name, TEXT),
            Output("tensor_bytes", N_("Tensor-parallel bytes per GPU"), dims[0].sent, BYTES),
            Output("pipeline_bytes", N_("Pipeline bytes per GPU"), dims[1].sent, BYTES),
            Output("data_bytes", N_("Data-parallel bytes per GPU"), dims[2].sent, BYTES),
            Output(
                "comm_s",
                N_("Communication time per step (serial)"),
                sum(d.time_s for d in dims),
                TIME,
            ),
            Output("gpus", N_("GPUs"), values["tp"] * values["pp"] * values["dp"], COUNT),
        ),
        formula=(
            "TP: 4·(L/pp)·m · 2(tp−1)/tp · b·s·h·bytes; PP: min(2, pp−1)·m · b·s·h·bytes; "
            "DP: 2(dp−1)/dp · Ψ/(tp·pp)·bytes"
        ),
        substituted="; ".join(f"{d.name}: {d.how}" for d in dims),
        interpretation=_sentence(dims, by_time),
        table=table(COLUMNS, [d.row() for d in dims]),
        charts=(
            stacked_chart(
                N_("Time per step by dimension"),
                [d.name for d in dims],
                {
                    N_("latency"): [d.latency_s for d in dims],
                    N_("bandwidth"): [d.bandwidth_s for d in dims],
                },
            ),
            stacked_chart(
                N_("Bytes per GPU per step by dimension"),
                [d.name for d in dims],
                {N_("bytes"): [d.sent for d in dims]},
                y=BYTES,
            ),
        ),
        notes=(
            N_(
                "No overlap is assumed; in practice DP overlaps backward and PP's sends overlap "
                "other micro-batches' compute. Sequence parallelism replaces TP's allreduces "
                "with allgather + reduce-scatter of the same total volume."
            ),
        ),
    )


def whole_stages(values: dict) -> None:
    """Refuse a pipeline whose stages would hold different numbers of layers."""
    if values["layers"] % values["pp"]:
        raise CostError(
            f"pp must divide layers: {values['layers']} layers over {values['pp']} stages"
        )


class Dimension(NamedTuple):
    """What one parallel dimension moves per GPU per step, and on which link."""

    name: str
    link: str  # "intra-node" or "inter-node"
    count: int  # collectives per step
    sent: float  # bytes per GPU
    latency_s: float
    bandwidth_s: float
    how: str  # the count and size, with the numbers in

    @property
    def time_s(self) -> float:
        """Latency plus bandwidth time, per GPU per step."""
        return self.latency_s + self.bandwidth_s

    def row(self) -> list:
        """Return the table row: every field but `how`."""
        return list(self[:6])


def allreduces(
    name: str, values: dict, group: int, span: int, count: int, size: float, how: str
) -> Dimension:
    """Return a dimension of `count` ring allreduces of `size` bytes over `group` GPUs whose
    ranks span `span` consecutive ranks (which decides the link)."""
    link, link_kw = link_of(values, span)
    one = cost("allreduce", "ring", ranks=group, message_bytes=size, **link_kw)
    sent = count * max(one.bytes_per_rank)
    return Dimension(name, link, count, sent, count * one.latency_s, count * one.bandwidth_s, how)


def tensor_traffic(values: dict, activation: float) -> Dimension:
    """Tensor parallelism: 4 allreduces of an activation per layer per micro-batch."""
    tp, m = values["tp"], values["micro_batches"]
    layers_per_stage = values["layers"] // values["pp"]
    count = 4 * layers_per_stage * m if tp > 1 else 0
    how = (
        f"4·(L/pp)·m = 4·{layers_per_stage}·{m} allreduces of b·s·h·bytes = "
        f"{units.size(activation)} over {tp} GPUs"
    )
    return allreduces(N_("tensor"), values, tp, tp, count, activation, how)


def pipeline_traffic(values: dict, activation: float) -> Dimension:
    """Pipeline parallelism: each micro-batch's activations forward and gradients back.

    A stage sends activations to the next stage unless it is the last, and gradients to the
    previous one unless it is the first: an interior stage sends 2·m messages a step, the first
    and last m each. The busiest GPU counts, so two stages send m each and more send 2·m."""
    link, link_kw = link_of(values, values["tp"] * values["dp"] * values["pp"])
    directions = min(2, values["pp"] - 1)
    count = directions * values["micro_batches"]
    hop = cost("sendrecv", "pipeline", ranks=2, message_bytes=activation, segments=1, **link_kw)
    if directions == 2:
        how = f"2·m = {count} sends of {units.size(activation)} (an interior stage: "
        how += "activations forward, gradients back)"
    else:
        how = f"m = {count} sends of {units.size(activation)} (two stages: the first sends "
        how += "activations forward, the second gradients back)"
    return Dimension(
        N_("pipeline"),
        link,
        count,
        count * activation,
        count * hop.latency_s,
        count * hop.bandwidth_s,
        how if count else "none with one stage",
    )


def _data(values: dict) -> Dimension:
    """Data parallelism: one allreduce of the GPU's shard of the gradients."""
    tp, pp, dp = values["tp"], values["pp"], values["dp"]
    grad_bytes = values["params"] / (tp * pp) * values["dtype_bytes"]
    within_one_message(grad_bytes, "a GPU's gradients, params ÷ (tp × pp) × dtype_bytes")
    how = f"1 allreduce of Ψ/(tp·pp)·bytes = {units.size(grad_bytes)} over {dp} GPUs"
    return allreduces(N_("data"), values, dp, tp * dp, 1 if dp > 1 else 0, grad_bytes, how)


CAPITALIZED = {"tensor": N_("Tensor"), "pipeline": N_("Pipeline"), "data": N_("Data")}


def _sentence(dims: list[Dimension], by_time: Dimension) -> str:
    """Say what each dimension sends, which dominates the time and which the bytes."""
    by_bytes = max(dims, key=lambda d: d.sent)
    tensor, pipeline, data = (
        N_(
            "%(name)s %(size)s over %(link)s (%(time)s)",
            name=d.name,
            size=units.size(d.sent),
            link=d.link,
            time=units.seconds(d.time_s),
        )
        for d in dims
    )
    sends = N_(
        "Per GPU per step: %(tensor)s; %(pipeline)s; %(data)s.",
        tensor=tensor,
        pipeline=pipeline,
        data=data,
    )
    dimension = CAPITALIZED[by_time.name]
    if by_bytes is by_time:
        dominates = N_("%(dimension)s parallelism dominates the time.", dimension=dimension)
    else:
        dominates = N_(
            "%(dimension)s parallelism dominates the time, while %(other)s moves the most bytes.",
            dimension=dimension,
            other=by_bytes.name,
        )
    why = N_(
        "Tensor parallelism's 4 allreduces per layer per micro-batch often outweigh the "
        "data-parallel gradient allreduce, which is why TP stays inside a node "
        "(Shoeybi et al., Megatron-LM, 2019)."
    )
    return sentences(sends, dominates, why)
