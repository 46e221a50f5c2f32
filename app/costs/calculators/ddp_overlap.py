"""DDP gradient sync: bucketed allreduces overlapped with the backward pass.

PyTorch DDP groups gradients into buckets of `bucket_cap_mb` = 25 MiB
(`kDefaultBucketBytesCap`), the first bucket capped at 1 MiB (`kDefaultFirstBucketBytes`) so
communication starts early; a bucket is allreduced as soon as all its gradients are ready
(REFERENCE § 6 Q17, [PTR] reducer.hpp). Gradients become ready from the last layer to the
first; buckets are filled in that order (PyTorch rebuilds them after the first iteration in
the observed ready order), a tensor at a time, closing a bucket once it reaches its cap.
Here each layer has `tensors_per_layer` equal gradient tensors that become ready evenly during
the layer's backward, and allreduces run one after another on one stream.
"""

from __future__ import annotations

from .. import units
from ..model import algorithms, cost
from ..nccl_tests import MAX_RANKS
from .fields import CHOICE, FLOAT, INT, Field, link_fields
from .registry import calculator
from .result import BYTES, COUNT, PERCENT, TIME, Output, Result, stacked_chart, table

MIB = 1 << 20

FIELDS = (
    Field(
        "params",
        "Model parameters",
        FLOAT,
        1.3e9,
        low=1e3,
        high=1e13,
        scale="log2",
        help="Trainable parameters; every one has a gradient to allreduce.",
    ),
    Field(
        "grad_bytes",
        "Bytes per gradient",
        INT,
        4,
        low=1,
        high=8,
        help="4 for FP32 gradients (DDP's default), 2 for FP16/BF16.",
    ),
    Field(
        "layers",
        "Layers",
        INT,
        24,
        low=1,
        high=10000,
        help="Equal layers.",
    ),
    Field(
        "tensors_per_layer",
        "Gradient tensors per layer",
        INT,
        12,
        low=1,
        high=1000,
        help="About 12 in a transformer layer: weights and biases of QKV, the projection, "
        "two MLP matrices and two layer norms.",
    ),
    Field(
        "backward_ms_per_layer",
        "Backward time per layer",
        FLOAT,
        5.0,
        low=0,
        high=1e5,
        unit="ms",
        help="Compute time to produce one layer's gradients, in ms.",
    ),
    Field(
        "bucket_mib",
        "Bucket cap",
        FLOAT,
        25.0,
        low=0.0,
        high=1e5,
        low_inclusive=False,
        help="bucket_cap_mb in MiB (PyTorch default 25).",
    ),
    Field(
        "first_bucket_mib",
        "First bucket cap",
        FLOAT,
        1.0,
        low=0.0,
        high=1e5,
        low_inclusive=False,
        help="PyTorch's first bucket: 1 MiB.",
    ),
    Field("ranks", "GPUs (ranks)", INT, 64, low=1, high=MAX_RANKS, scale="log2"),
    Field(
        "algorithm",
        "Allreduce algorithm",
        CHOICE,
        "ring",
        choices=tuple(a for a in algorithms("allreduce") if a != "hierarchical"),
    ),
    *link_fields(),
)


def buckets(tensor_bytes: float, tensors: int, cap_bytes: float, first_cap_bytes: float):
    """Return [(bytes, index of its last tensor in ready order)] in allreduce order."""
    out, size, cap = [], 0.0, first_cap_bytes
    for j in range(tensors):
        size += tensor_bytes
        if size >= cap:
            out.append((size, j))
            size, cap = 0.0, cap_bytes
    if size:
        out.append((size, tensors - 1))
    return out


@calculator(
    "ddp_overlap",
    "DDP: how much gradient sync hides behind backward?",
    "Bucketed allreduces (25 MiB, first 1 MiB) overlapped with backward, or not.",
    FIELDS,
)
def ddp_overlap(**values) -> Result:
    """Schedule each bucket's allreduce when its gradients are ready; report what stays exposed."""
    layers, ranks = values["layers"], values["ranks"]
    total_bytes = values["params"] * values["grad_bytes"]
    tensors = layers * values["tensors_per_layer"]
    t_layer = values["backward_ms_per_layer"] * 1e-3
    t_tensor = t_layer / values["tensors_per_layer"]
    plan = buckets(
        total_bytes / tensors, tensors, values["bucket_mib"] * MIB, values["first_bucket_mib"] * MIB
    )
    link = {"latency_us": values["latency_us"], "bandwidth_gbs": values["bandwidth_gbs"]}
    rows, timeline, end = [], [], 0.0
    for i, (size, last) in enumerate(plan):
        c = cost("allreduce", values["algorithm"], ranks=ranks, message_bytes=size, **link)
        ready = (last + 1) * t_tensor
        start = max(ready, end)
        end = start + c.time_s
        rows.append([i, size, ready, start, end, c.time_s])
        timeline.append({"label": f"bucket {i}", "start": start, "end": end, "group": "allreduce"})
    backward_s = layers * t_layer
    comm_s = sum(r[5] for r in rows)
    exposed_overlap = max(0.0, end - backward_s)
    exposed_serial = comm_s
    hidden = comm_s - exposed_overlap
    hidden_pct = 100 * hidden / comm_s if comm_s else 100.0
    first = cost("allreduce", values["algorithm"], ranks=ranks, message_bytes=plan[0][0], **link)
    sentence = (
        f"{len(plan)} buckets carry {units.size(total_bytes)} of gradients; their allreduces take "
        f"{units.seconds(comm_s)} in all against {units.seconds(backward_s)} of backward. "
        f"Overlapped, {units.seconds(exposed_overlap)} stays exposed after backward "
        f"({hidden_pct:.3g}% hidden); without overlap all {units.seconds(exposed_serial)} is. "
        + (
            "Communication outlasts backward: a faster link, compression or fewer bytes "
            "(BF16 gradients) would shorten the step; bigger buckets only save latency."
            if comm_s > backward_s
            else "Backward is long enough to hide most of it; what remains is the last "
            "bucket's allreduce, which cannot start before the first layer's gradients exist."
        )
    )
    return Result(
        calculator="ddp_overlap",
        inputs=values,
        outputs=(
            Output("buckets", "Buckets", len(plan), COUNT),
            Output("comm_s", "Allreduce time, all buckets", comm_s, TIME),
            Output("backward_s", "Backward time", backward_s, TIME),
            Output("exposed_overlap_s", "Exposed with overlap", exposed_overlap, TIME),
            Output("exposed_serial_s", "Exposed without overlap", exposed_serial, TIME),
            Output("hidden_pct", "Hidden behind backward", hidden_pct, PERCENT),
            Output("gradient_bytes", "Gradient bytes per step", total_bytes, BYTES),
        ),
        formula=(
            "bucket b starts at max(its gradients ready, previous allreduce done); "
            "exposed = max(0, last allreduce done − L·t_layer); each allreduce: " + first.formula
        ),
        substituted=(
            f"first bucket: {first.formula_substituted}; last allreduce ends at "
            f"{units.seconds(end)}, backward ends at {layers}·{units.seconds(t_layer)} = "
            f"{units.seconds(backward_s)} → exposed {units.seconds(exposed_overlap)}"
        ),
        interpretation=sentence,
        table=table(
            [
                ("bucket", COUNT),
                ("bytes", BYTES),
                ("ready", TIME),
                ("start", TIME),
                ("end", TIME),
                ("allreduce", TIME),
            ],
            rows,
        ),
        charts=(
            {
                "kind": "timeline",
                "title": "Backward and the bucket allreduces",
                "rows": [
                    {"label": "backward", "start": 0.0, "end": backward_s, "group": "compute"},
                    *timeline,
                ],
            },
            stacked_chart(
                "Step time: compute and exposed communication",
                ["with overlap", "without overlap"],
                {
                    "backward": [backward_s, backward_s],
                    "exposed allreduce": [exposed_overlap, exposed_serial],
                },
            ),
        ),
        notes=(
            "Forward time and the optimizer step are left out; they add to both cases alike.",
            "Bucket order follows gradient readiness (PyTorch rebuilds buckets after the first "
            "iteration in the observed order).",
        ),
    )
