"""3D parallelism: the bytes each dimension (tensor, pipeline, data) moves per GPU per step,
on which link class, and which one dominates.

Megatron-LM tensor parallelism does 2 allreduces of the b·s·h activations per layer in
forward (g after attention and after the MLP) and 2 in backward (f), per micro-batch
(REFERENCE § 6 Q8 and Q35, [MLM]). Pipeline stages send each micro-batch's activations
forward and their gradients back (b·s·h each). Data parallelism allreduces the gradients of
the GPU's shard, Ψ/(tp·pp), once per step. Ranks are ordered tensor fastest, then data, then
pipeline (Megatron's default), so a group stays inside a node when its span fits in one.
"""

from __future__ import annotations

from .. import units
from ..errors import CostError
from ..model import cost
from .fields import (
    FLOAT,
    INT,
    Field,
    inter_link_fields,
    intra_link_fields,
    within_one_message,
)
from .registry import calculator
from .result import BYTES, COUNT, TEXT, TIME, Output, Result, stacked_chart, table

FIELDS = (
    Field("layers", "Layers L", INT, 32, low=1, high=10000),
    Field("hidden", "Hidden size h", INT, 4096, low=1, high=1 << 20, scale="log2"),
    Field("seq", "Sequence length s", INT, 4096, low=1, high=1 << 24, scale="log2"),
    Field("micro_batch", "Micro-batch size b", INT, 1, low=1, high=1 << 16),
    Field("micro_batches", "Micro-batches per step m", INT, 8, low=1, high=1 << 16),
    Field("dtype_bytes", "Bytes per value", INT, 2, low=1, high=8),
    Field("params", "Model parameters Ψ", FLOAT, 7e9, low=1e3, high=1e13, scale="log2"),
    Field("tp", "Tensor-parallel size", INT, 8, low=1, high=1024, scale="log2"),
    Field("pp", "Pipeline stages", INT, 4, low=1, high=1024, scale="log2"),
    Field("dp", "Data-parallel size", INT, 4, low=1, high=1 << 16, scale="log2"),
    Field("gpus_per_node", "GPUs per node", INT, 8, low=1, high=1024),
    *inter_link_fields(),
    *intra_link_fields(),
)


def _link(values: dict, span: int) -> tuple[str, dict]:
    """Return the link class of a group spanning `span` consecutive ranks and its inputs."""
    if span <= values["gpus_per_node"]:
        return "intra-node", {
            "latency_us": values["intra_latency_us"],
            "bandwidth_gbs": values["intra_bandwidth_gbs"],
        }
    return "inter-node", {
        "latency_us": values["latency_us"],
        "bandwidth_gbs": values["bandwidth_gbs"],
    }


@calculator(
    "parallelism_3d",
    "3D parallelism: which dimension dominates?",
    "Tensor, pipeline and data parallel bytes per GPU per step, and on which link.",
    FIELDS,
    sizes=units.DECIMAL,
)
def parallelism_3d(**values) -> Result:
    """Return per-dimension bytes, link class and time, and name the dominant one."""
    tp, pp, dp, m = values["tp"], values["pp"], values["dp"], values["micro_batches"]
    if values["layers"] % pp:
        raise CostError(f"pp must divide layers: {values['layers']} layers over {pp} stages")
    activation = values["micro_batch"] * values["seq"] * values["hidden"] * values["dtype_bytes"]
    within_one_message(activation, "an activation, micro_batch × seq × hidden × dtype_bytes")
    layers_per_stage = values["layers"] // pp
    dims = []

    tp_link, tp_kw = _link(values, tp)
    tp_count = 4 * layers_per_stage * m if tp > 1 else 0
    one_tp = cost("allreduce", "ring", ranks=tp, message_bytes=activation, **tp_kw)
    dims.append(
        (
            "tensor",
            tp_link,
            tp_count,
            tp_count * max(one_tp.bytes_per_rank),
            tp_count * one_tp.latency_s,
            tp_count * one_tp.bandwidth_s,
            f"4·(L/pp)·m = 4·{layers_per_stage}·{m} allreduces of b·s·h·bytes = "
            f"{units.size(activation)} over {tp} GPUs",
        )
    )

    pp_link, pp_kw = _link(values, tp * dp * pp)
    pp_count = 2 * m if pp > 1 else 0
    hop = cost("sendrecv", "pipeline", ranks=2, message_bytes=activation, segments=1, **pp_kw)
    dims.append(
        (
            "pipeline",
            pp_link,
            pp_count,
            pp_count * activation,
            pp_count * hop.latency_s,
            pp_count * hop.bandwidth_s,
            f"2·m = {pp_count} sends of {units.size(activation)} (activations forward, "
            "gradients back)",
        )
    )

    dp_link, dp_kw = _link(values, tp * dp)
    grad_bytes = values["params"] / (tp * pp) * values["dtype_bytes"]
    within_one_message(grad_bytes, "a GPU's gradients, params ÷ (tp × pp) × dtype_bytes")
    dp_count = 1 if dp > 1 else 0
    one_dp = cost("allreduce", "ring", ranks=dp, message_bytes=grad_bytes, **dp_kw)
    dims.append(
        (
            "data",
            dp_link,
            dp_count,
            dp_count * max(one_dp.bytes_per_rank),
            dp_count * one_dp.latency_s,
            dp_count * one_dp.bandwidth_s,
            f"1 allreduce of Ψ/(tp·pp)·bytes = {units.size(grad_bytes)} over {dp} GPUs",
        )
    )

    by_time = max(dims, key=lambda d: d[4] + d[5])
    by_bytes = max(dims, key=lambda d: d[3])
    parts = "; ".join(
        f"{name} {units.size(sent)} over {link} ({units.seconds(lat + bw)})"
        for name, link, _n, sent, lat, bw, _how in dims
    )
    sentence = (
        f"Per GPU per step: {parts}. {by_time[0].capitalize()} parallelism dominates the time"
        + (f", while {by_bytes[0]} moves the most bytes" if by_bytes is not by_time else "")
        + ". Tensor parallelism's 4 allreduces per layer per micro-batch often outweigh the "
        "data-parallel gradient allreduce, which is why TP stays inside a node "
        "(Shoeybi et al., Megatron-LM, 2019)."
    )
    total_gpus = tp * pp * dp
    return Result(
        calculator="parallelism_3d",
        inputs=values,
        outputs=(
            Output("dominant", "Dominant dimension (time)", by_time[0], TEXT),
            Output("tensor_bytes", "Tensor-parallel bytes per GPU", dims[0][3], BYTES),
            Output("pipeline_bytes", "Pipeline bytes per GPU", dims[1][3], BYTES),
            Output("data_bytes", "Data-parallel bytes per GPU", dims[2][3], BYTES),
            Output(
                "comm_s",
                "Communication time per step (serial)",
                sum(d[4] + d[5] for d in dims),
                TIME,
            ),
            Output("gpus", "GPUs", total_gpus, COUNT),
        ),
        formula=(
            "TP: 4·(L/pp)·m · 2(tp−1)/tp · b·s·h·bytes; PP: 2·m · b·s·h·bytes; "
            "DP: 2(dp−1)/dp · Ψ/(tp·pp)·bytes"
        ),
        substituted="; ".join(f"{d[0]}: {d[6]}" for d in dims),
        interpretation=sentence,
        table=table(
            [
                ("dimension", TEXT),
                ("link", TEXT),
                ("collectives", COUNT),
                ("bytes per GPU", BYTES),
                ("latency", TIME),
                ("bandwidth", TIME),
            ],
            [list(d[:6]) for d in dims],
        ),
        charts=(
            stacked_chart(
                "Time per step by dimension",
                [d[0] for d in dims],
                {"latency": [d[4] for d in dims], "bandwidth": [d[5] for d in dims]},
            ),
            stacked_chart(
                "Bytes per GPU per step by dimension",
                [d[0] for d in dims],
                {"bytes": [d[3] for d in dims]},
                y=BYTES,
            ),
        ),
        notes=(
            "No overlap is assumed; in practice DP overlaps backward and PP's sends overlap "
            "other micro-batches' compute. Sequence parallelism replaces TP's allreduces with "
            "allgather + reduce-scatter of the same total volume.",
        ),
    )
