"""DDP gradient sync: bucketed allreduces overlapped with the backward pass.

PyTorch DDP groups gradients into buckets of `bucket_cap_mb` = 25 MiB
(`kDefaultBucketBytesCap`), the first bucket capped at 1 MiB (`kDefaultFirstBucketBytes`) so
communication starts early; a bucket is allreduced as soon as all its gradients are ready
(REFERENCE § 6 Q17, [PTR] reducer.hpp). Gradients become ready from the last layer to the
first; buckets are filled in that order (PyTorch rebuilds them after the first iteration in
the observed ready order), a tensor at a time, closing a bucket once it reaches its cap.
Here each layer has `tensors_per_layer` equal gradient tensors that become ready evenly during
the layer's backward, and allreduces run one after another on one stream.

Equal tensors make equal buckets: the first, then runs of full ones, then the rest. The model
prices each distinct bucket size once and schedules a run in closed form, so ten million
buckets cost three allreduces, and the answer lists only the first and last 50 of them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.i18n import N_, sentences

from .. import units
from ..model import Cost, algorithms, cost
from ..nccl_tests import MAX_RANKS
from .fields import CHOICE, FLOAT, INT, Field, link_fields, link_inputs, within_one_message
from .registry import calculator
from .result import BYTES, COUNT, PERCENT, TIME, Output, Result, stacked_chart, table

MIB = 1 << 20

FIELDS = (
    Field(
        "params",
        N_("Model parameters"),
        FLOAT,
        1.3e9,
        low=1e3,
        high=1e13,
        scale="log2",
        help=N_("Trainable parameters; every one has a gradient to allreduce."),
    ),
    Field(
        "grad_bytes",
        N_("Bytes per gradient"),
        INT,
        4,
        low=1,
        high=8,
        help=N_("4 for FP32 gradients (DDP's default), 2 for FP16/BF16."),
    ),
    Field(
        "layers",
        N_("Layers"),
        INT,
        24,
        low=1,
        high=10000,
        help=N_("Equal layers."),
    ),
    Field(
        "tensors_per_layer",
        N_("Gradient tensors per layer"),
        INT,
        12,
        low=1,
        high=1000,
        help=N_(
            "About 12 in a transformer layer: weights and biases of QKV, the projection, "
            "two MLP matrices and two layer norms."
        ),
    ),
    Field(
        "backward_ms_per_layer",
        N_("Backward time per layer"),
        FLOAT,
        5.0,
        low=0,
        high=1e5,
        unit="ms",
        help=N_("Compute time to produce one layer's gradients, in ms."),
    ),
    Field(
        "bucket_mib",
        N_("Bucket cap"),
        FLOAT,
        25.0,
        low=0.0,
        high=1e5,
        low_inclusive=False,
        help=N_("bucket_cap_mb in MiB (PyTorch default 25)."),
    ),
    Field(
        "first_bucket_mib",
        N_("First bucket cap"),
        FLOAT,
        1.0,
        low=0.0,
        high=1e5,
        low_inclusive=False,
        help=N_("PyTorch's first bucket: 1 MiB."),
    ),
    Field("ranks", N_("GPUs (ranks)"), INT, 64, low=1, high=MAX_RANKS, scale="log2"),
    Field(
        "algorithm",
        N_("Allreduce algorithm"),
        CHOICE,
        "ring",
        choices=tuple(a for a in algorithms("allreduce") if a != "hierarchical"),
    ),
    *link_fields(),
)


COLUMNS = [
    (N_("bucket"), COUNT),
    (N_("bytes"), BYTES),
    (N_("ready"), TIME),
    (N_("start"), TIME),
    (N_("end"), TIME),
    (N_("allreduce"), TIME),
]
LISTED = 50  # the table and timeline list the first and the last LISTED buckets one by one


@dataclass(frozen=True)
class Run:
    """`count` equal buckets of `size` bytes, `stride` tensors each, allreduced in order.

    Bucket i of the run is bucket `first + i` of the step; its last tensor, in ready order,
    is `last_tensor + i·stride`.
    """

    size: float
    count: int
    first: int
    last_tensor: int
    stride: int


def tensors_to_reach(cap_bytes: float, tensor_bytes: float) -> int:
    """Return the fewest tensors whose bytes reach `cap_bytes` (a bucket closes there)."""
    n = max(1, math.ceil(min(cap_bytes / tensor_bytes, 2.0**62)))
    while n > 1 and (n - 1) * tensor_bytes >= cap_bytes:  # ceil of a rounded quotient
        n -= 1
    while n * tensor_bytes < cap_bytes:
        n += 1
    return n


def buckets(tensor_bytes: float, tensors: int, cap_bytes: float, first_cap_bytes: float):
    """Return the buckets, in allreduce order, as at most three runs of equal buckets.

    Tensors are equal, so after the first bucket (its own cap) every bucket holds the same
    count of tensors, and only the last may hold fewer: ten million buckets are three runs.
    """
    first = tensors_to_reach(first_cap_bytes, tensor_bytes)
    if first >= tensors:
        return [Run(tensors * tensor_bytes, 1, 0, tensors - 1, tensors)]
    per = tensors_to_reach(cap_bytes, tensor_bytes)
    full, rest = divmod(tensors - first, per)
    runs = [Run(first * tensor_bytes, 1, 0, first - 1, first)]
    if full:
        runs.append(Run(per * tensor_bytes, full, 1, first - 1 + per, per))
    if rest:
        runs.append(Run(rest * tensor_bytes, 1, 1 + full, tensors - 1, rest))
    return runs


def schedule(runs: list[Run], times: list[float], t_tensor: float, total: int):
    """Schedule every bucket's allreduce on one stream; return (rows, timeline, end).

    A bucket starts when its gradients are ready and the previous allreduce is done. Within a
    run of equal buckets (time c, ready every d) bucket i therefore ends at
    max(max(ready₀, end before the run) + (i+1)·c, readyᵢ + c): the rows list the first and
    the last LISTED buckets, and the buckets between are one stretch of the timeline.
    """
    rows, timeline, end = [], [], 0.0
    for run, c in zip(runs, times, strict=True):
        i = 0
        while i < run.count:
            k = run.first + i
            ready = (run.last_tensor + i * run.stride + 1) * t_tensor
            start = max(ready, end)
            if LISTED <= k < total - LISTED:  # skip to the next listed bucket in closed form
                j = min(run.count, total - LISTED - run.first)
                last_ready = (run.last_tensor + (j - 1) * run.stride + 1) * t_tensor
                end = max(start + (j - i) * c, last_ready + c)
                timeline.append(
                    _bar(
                        N_(
                            "buckets %(first)s–%(last)s",
                            first=f"{k:,}",
                            last=f"{run.first + j - 1:,}",
                        ),
                        start,
                        end,
                    )
                )
                i = j
                continue
            end = start + c
            rows.append([k, run.size, ready, start, end, c])
            timeline.append(_bar(N_("bucket %(k)s", k=k), start, end))
            i += 1
    return rows, timeline, end


def _bar(label: str, start: float, end: float) -> dict:
    return {"label": label, "start": start, "end": end, "group": "allreduce"}


@calculator(
    "ddp_overlap",
    N_("DDP: how much gradient sync hides behind backward?"),
    N_("Bucketed allreduces (25 MiB, first 1 MiB) overlapped with backward, or not."),
    FIELDS,
)
def ddp_overlap(**values) -> Result:
    """Schedule each bucket's allreduce when its gradients are ready; report what stays exposed."""
    layers = values["layers"]
    total_bytes = values["params"] * values["grad_bytes"]
    tensors = layers * values["tensors_per_layer"]
    t_layer = values["backward_ms_per_layer"] * 1e-3
    t_tensor = t_layer / values["tensors_per_layer"]
    runs = buckets(
        total_bytes / tensors, tensors, values["bucket_mib"] * MIB, values["first_bucket_mib"] * MIB
    )
    count = sum(run.count for run in runs)
    costs = _price_buckets(values, runs)
    times = [costs[run.size].time_s for run in runs]
    rows, timeline, end = schedule(runs, times, t_tensor, count)
    sync = Sync(
        count=count,
        gradient_bytes=total_bytes,
        comm_s=sum(run.count * c for run, c in zip(runs, times, strict=True)),
        backward_s=layers * t_layer,
        end_s=end,
    )
    first = costs[runs[0].size]
    return Result(
        calculator="ddp_overlap",
        inputs=values,
        outputs=sync.outputs(),
        formula=(
            "bucket b starts at max(its gradients ready, previous allreduce done); "
            "exposed = max(0, last allreduce done − L·t_layer); each allreduce: " + first.formula
        ),
        substituted=(
            f"first bucket: {first.formula_substituted}; last allreduce ends at "
            f"{units.seconds(end)}, backward ends at {layers}·{units.seconds(t_layer)} = "
            f"{units.seconds(sync.backward_s)} → exposed {units.seconds(sync.exposed_overlap_s)}"
        ),
        interpretation=sync.sentence(),
        table=table(COLUMNS, rows),
        charts=sync.charts(timeline),
        notes=(
            N_("Forward time and the optimizer step are left out; they add to both cases alike."),
            N_(
                "Bucket order follows gradient readiness (PyTorch rebuilds buckets after the "
                "first iteration in the observed order)."
            ),
            *_left_out(count),
        ),
    )


def _price_buckets(values: dict, runs: list[Run]) -> dict[float, Cost]:
    """Return one allreduce per distinct bucket size (at most three), by size."""
    link = link_inputs(values)
    costs = {}
    for run in runs:
        if run.size not in costs:
            within_one_message(
                run.size,
                "a bucket of tensors of params × grad_bytes ÷ (layers × tensors_per_layer), "
                "up to bucket_mib",
            )
            costs[run.size] = cost(
                "allreduce",
                values["algorithm"],
                ranks=values["ranks"],
                message_bytes=run.size,
                **link,
            )
    return costs


@dataclass(frozen=True)
class Sync:
    """One step's gradient sync: its buckets' allreduces against the backward pass."""

    count: int  # buckets
    gradient_bytes: float
    comm_s: float  # every allreduce, one after another
    backward_s: float
    end_s: float  # when the last allreduce ends, overlapped with backward

    @property
    def exposed_overlap_s(self) -> float:
        """Communication left after backward when the allreduces overlap it."""
        return max(0.0, self.end_s - self.backward_s)

    @property
    def hidden_pct(self) -> float:
        """The share of the communication that backward hides."""
        hidden = self.comm_s - self.exposed_overlap_s
        return 100 * hidden / self.comm_s if self.comm_s else 100.0

    def outputs(self) -> tuple[Output, ...]:
        """Return the headline numbers; without overlap all of comm_s is exposed."""
        return (
            Output("buckets", N_("Buckets"), self.count, COUNT),
            Output("comm_s", N_("Allreduce time, all buckets"), self.comm_s, TIME),
            Output("backward_s", N_("Backward time"), self.backward_s, TIME),
            Output("exposed_overlap_s", N_("Exposed with overlap"), self.exposed_overlap_s, TIME),
            Output("exposed_serial_s", N_("Exposed without overlap"), self.comm_s, TIME),
            Output("hidden_pct", N_("Hidden behind backward"), self.hidden_pct, PERCENT),
            Output("gradient_bytes", N_("Gradient bytes per step"), self.gradient_bytes, BYTES),
        )

    def sentence(self) -> str:
        """Say how much stays exposed, with and without overlap, and what would help."""
        comm, backward = units.seconds(self.comm_s), units.seconds(self.backward_s)
        sync = N_(
            "%(count)s buckets carry %(size)s of gradients; their allreduces take %(comm)s in "
            "all against %(backward)s of backward.",
            count=f"{self.count:,}",
            size=units.size(self.gradient_bytes),
            comm=comm,
            backward=backward,
        )
        exposed = N_(
            "Overlapped, %(exposed)s stays exposed after backward (%(hidden)s%% hidden); "
            "without overlap all %(comm)s is.",
            exposed=units.seconds(self.exposed_overlap_s),
            hidden=f"{self.hidden_pct:.3g}",
            comm=comm,
        )
        if self.comm_s > self.backward_s:
            advice = N_(
                "Communication outlasts backward: a faster link, compression or fewer bytes "
                "(BF16 gradients) would shorten the step; bigger buckets only save latency."
            )
        else:
            advice = N_(
                "Backward is long enough to hide most of it; what remains is the last bucket's "
                "allreduce, which cannot start before the first layer's gradients exist."
            )
        return sentences(sync, exposed, advice)

    def charts(self, timeline: list[dict]) -> tuple[dict, dict]:
        """Describe the timeline of backward and the allreduces, and the step-time bars."""
        backward = {
            "label": N_("backward"),
            "start": 0.0,
            "end": self.backward_s,
            "group": N_("compute"),
        }
        return (
            {
                "kind": "timeline",
                "title": N_("Backward and the bucket allreduces"),
                "rows": [backward, *timeline],
            },
            stacked_chart(
                N_("Step time: compute and exposed communication"),
                [N_("with overlap"), N_("without overlap")],
                {
                    N_("backward"): [self.backward_s, self.backward_s],
                    N_("exposed allreduce"): [self.exposed_overlap_s, self.comm_s],
                },
            ),
        )


def _left_out(count: int) -> tuple[str, ...]:
    """Say which buckets the table leaves out, if any; the totals count them all."""
    if count <= 2 * LISTED:
        return ()
    return (
        N_(
            "The table lists the first and the last %(listed)s of the %(count)s buckets; "
            "buckets %(first)s–%(last)s are left out of the table (one bar in the timeline), "
            "not out of the totals.",
            listed=LISTED,
            count=f"{count:,}",
            first=f"{LISTED:,}",
            last=f"{count - LISTED - 1:,}",
        ),
    )
