"""One training step of a transformer on a cluster: communication set against compute.

Compute is 6·Ψ FLOP per token (2 forward, 4 backward; Kaplan et al. 2020, Narayanan et al.
2021) at a share of the GPU's peak (model FLOPs utilisation). Tensor- and pipeline-parallel
traffic is `parallelism_3d`'s own count (`tensor_traffic`, `pipeline_traffic`) and lies on the
critical path: all of it is exposed. Data-parallel / ZeRO collectives can run behind the
forward or backward pass; only what outlasts its window is exposed (`dp_plan`). The pipeline
adds its bubble, (pp−1)/(m+pp−1) of the step. Memory counts the 16 bytes of mixed-precision
Adam state per parameter (Rajbhandari et al., ZeRO, 2020), sharded by tp·pp and the stage.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
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
    within_one_message,
    within_rank_limit,
)
from .parallelism_3d import FIELDS as LAYOUT_FIELDS
from .parallelism_3d import Dimension, link_of, pipeline_traffic, tensor_traffic, whole_stages
from .registry import calculator
from .result import BYTES, COUNT, PERCENT, RATIO, TEXT, TIME, Output, Result, stacked_chart, table
from .step_plan import ADAM_STATE_BYTES, FLOP_PER_PARAM_TOKEN, Exposure, dp_plan, state_bytes

SHAPE = {f.name: f for f in LAYOUT_FIELDS}  # the model and layout inputs, as parallelism_3d's
FIELDS = (
    *(SHAPE[name] for name in ("params", "layers", "hidden", "seq")),
    Field("global_batch", N_("Global batch (sequences)"), INT, 1024, low=1, high=1 << 24),
    SHAPE["micro_batch"],
    SHAPE["dtype_bytes"],
    Field(
        "peak_tflops",
        N_("GPU peak"),
        FLOAT,
        989.0,
        low=1e-3,
        high=1e5,
        help=N_("Dense TFLOP/s; 989 for an H100 SXM in BF16 (the datasheet's 1,979 is sparse)."),
    ),
    Field(
        "mfu",
        N_("Model FLOPs utilisation"),
        FLOAT,
        0.4,
        low=1e-3,
        high=1.0,
        help=N_("The share of peak the model's 6·Ψ FLOP per token actually get (0.4 = 40 %)."),
    ),
    Field("memory_gb", N_("GPU memory (GB)"), FLOAT, 80.0, low=1.0, high=1e5),
    GPUS_PER_NODE,
    Field("nodes", N_("Nodes"), INT, 16, low=1, high=1 << 16, scale="log2"),
    replace(SHAPE["tp"], default=1),
    replace(SHAPE["pp"], default=1),
    replace(SHAPE["dp"], default=128),
    Field(
        "zero_stage",
        N_("ZeRO stage"),
        INT,
        0,
        low=0,
        high=3,
        help=N_("0 = plain DDP; 1 shards optimizer state, 2 also gradients, 3 also weights."),
    ),
    *inter_link_fields(),
    *intra_link_fields("nvlink4"),
)
COLUMNS = [
    (N_("dimension"), TEXT),
    (N_("link"), TEXT),
    (N_("collectives"), COUNT),
    (N_("bytes per GPU"), BYTES),
    (N_("time"), TIME),
    (N_("exposed"), TIME),
]


class Term(NamedTuple):
    """One part of the step that is not useful compute: its total and exposed time."""

    name: str
    link: str
    count: int
    sent: float
    total_s: float
    exposed_s: float

    @classmethod
    def on_critical_path(cls, d: Dimension) -> Term:
        """A TP or PP dimension: nothing waits in parallel with it, so all of it is exposed."""
        return cls(d.name, d.link, d.count, d.sent, d.time_s, d.time_s)

    def row(self) -> list:
        """Return the table row."""
        return list(self)


@dataclass(frozen=True)
class Budget:
    """One step's numbers: compute, the non-compute terms, and the training state."""

    values: dict
    gpus: int
    m: int  # micro-batches per replica
    flops: float
    compute_s: float
    terms: tuple[Term, ...]  # tensor, pipeline, data, bubble
    data: Exposure

    @property
    def exposed_comm_s(self) -> float:
        """Communication the GPUs wait for (the bubble is idle time, not communication)."""
        return sum(t.exposed_s for t in self.terms[:3])

    @property
    def step_s(self) -> float:
        """Compute plus everything exposed."""
        return self.compute_s + sum(t.exposed_s for t in self.terms)

    @property
    def state(self) -> float:
        """Bytes of weights, gradients and optimizer state per GPU."""
        return state_bytes(self.values)

    @property
    def memory(self) -> float:
        """The state as a share of the GPU's memory (1 = full)."""
        return self.state / (self.values["memory_gb"] * 1e9)

    @property
    def worst(self) -> Term:
        """The largest exposed term."""
        return max(self.terms, key=lambda t: t.exposed_s)

    def outputs(self) -> tuple[Output, ...]:
        """The headline numbers."""
        tensor, pipeline, _, bubble = self.terms
        exposed_pct = 100 * self.exposed_comm_s / self.step_s
        return (
            Output("pflop", N_("Compute per step (PFLOP)"), self.flops / 1e15, RATIO),
            Output("compute_s", N_("Compute time per step"), self.compute_s, TIME),
            Output("forward_s", N_("Forward (a third of compute)"), self.compute_s / 3, TIME),
            Output("backward_s", N_("Backward (two thirds)"), 2 * self.compute_s / 3, TIME),
            Output("state_bytes", N_("Weights, gradients, optimizer per GPU"), self.state, BYTES),
            Output("memory_pct", N_("Of the GPU's memory"), 100 * self.memory, PERCENT),
            Output("micro_batches", N_("Micro-batches per replica m"), self.m, COUNT),
            Output("tp_s", N_("Tensor-parallel time (exposed)"), tensor.exposed_s, TIME),
            Output("pp_s", N_("Pipeline sends (exposed)"), pipeline.exposed_s, TIME),
            Output("bubble_s", N_("Pipeline bubble"), bubble.exposed_s, TIME),
            Output("dp_s", N_("Data-parallel / ZeRO time"), self.data.total_s, TIME),
            Output("dp_exposed_s", N_("Data-parallel / ZeRO exposed"), self.data.exposed_s, TIME),
            Output("exposed_s", N_("Exposed communication"), self.exposed_comm_s, TIME),
            Output("step_s", N_("Step time"), self.step_s, TIME),
            Output("exposed_pct", N_("Step spent in exposed communication"), exposed_pct, PERCENT),
            Output("first_change", N_("What to change first"), _first_change(self)[0], TEXT),
        )  # fmt: skip


@calculator(
    "step_budget",
    N_("Step budget: communication against compute"),
    N_("One training step: compute, memory per GPU, and which communication stays exposed."),
    FIELDS,
    sizes=units.DECIMAL,
)
def step_budget(**values) -> Result:
    """Return the step's compute, memory, each dimension's exposed time and what to change."""
    budget = _budget(values)
    return Result(
        calculator="step_budget",
        inputs=values,
        outputs=budget.outputs(),
        formula=(
            "compute = 6·Ψ·B·s / (GPUs·peak·MFU); step = compute + TP + PP sends + bubble "
            "+ max(0, DP in forward − forward) + max(0, DP in backward − backward); "
            "forward = compute/3, backward = 2·compute/3, bubble = compute·(pp−1)/m"
        ),
        substituted=_substituted(budget),
        interpretation=_sentence(budget),
        table=table(COLUMNS, [t.row() for t in budget.terms]),
        charts=(_chart(budget),),
        notes=(
            N_(
                "TP and PP traffic is counted as exposed: the next operation waits for it. "
                "DP/ZeRO collectives run behind the forward or backward pass they belong to."
            ),
            budget.data.note,
            N_("Memory counts weights, gradients and Adam state only; activations come on top."),
            N_(
                "Left out: the tail after backward's last gradient (the last bucket's "
                "collective; see ddp_overlap) and contention between dimensions sharing a link."
            ),
        ),
    )


def _budget(values: dict) -> Budget:
    """Work out the step: compute, then each dimension's traffic and what of it is exposed."""
    gpus, m = _check(values)
    flops = FLOP_PER_PARAM_TOKEN * values["params"] * values["global_batch"] * values["seq"]
    compute_s = flops / (gpus * values["peak_tflops"] * 1e12 * values["mfu"])
    shape = {**values, "micro_batches": m}
    activation = values["micro_batch"] * values["seq"] * values["hidden"] * values["dtype_bytes"]
    within_one_message(activation, "an activation, micro_batch × seq × hidden × dtype_bytes")
    data = _data(values, m, compute_s)
    bubble_s = compute_s * (values["pp"] - 1) / m
    terms = (
        Term.on_critical_path(tensor_traffic(shape, activation)),
        Term.on_critical_path(pipeline_traffic(shape, activation)),
        Term(data.name, data.link, data.count, data.sent, data.total_s, data.exposed_s),
        Term(N_("pipeline bubble"), N_("none (idle)"), 0, 0.0, bubble_s, bubble_s),
    )
    return Budget(values, gpus, m, flops, compute_s, terms, data)


def _check(values: dict) -> tuple[int, int]:
    """Return (GPUs, micro-batches per replica), or raise naming the inputs that disagree."""
    gpus = within_rank_limit(values["gpus_per_node"] * values["nodes"], "gpus_per_node × nodes")
    layout = values["tp"] * values["pp"] * values["dp"]
    if layout != gpus:
        raise CostError(
            f"tp × pp × dp = {values['tp']} × {values['pp']} × {values['dp']} = {layout:,} must "
            f"equal gpus_per_node × nodes = {values['gpus_per_node']} × {values['nodes']} = "
            f"{gpus:,}"
        )
    whole_stages(values)
    per_pass = values["dp"] * values["micro_batch"]
    if values["global_batch"] % per_pass:
        raise CostError(
            f"global_batch ({values['global_batch']:,}) must be a multiple of dp × micro_batch "
            f"= {values['dp']} × {values['micro_batch']} = {per_pass:,}"
        )
    return gpus, values["global_batch"] // per_pass


def _data(values: dict, m: int, compute_s: float) -> Exposure:
    """Price the DP/ZeRO collectives once each over dp GPUs and set them against their windows."""
    dp, tp, pp = values["dp"], values["tp"], values["pp"]
    shard = values["params"] / (tp * pp) * values["dtype_bytes"]
    within_one_message(shard, "a GPU's gradients, params ÷ (tp × pp) × dtype_bytes")
    link, link_kw = link_of(values, tp * dp)
    plan = dp_plan(values["zero_stage"], m, compute_s)
    priced = {
        name: cost(name, "ring", ranks=dp, message_bytes=shard, **link_kw)
        for name in plan.collectives()
    }
    return plan.expose(priced, link, dp)


def _first_change(budget: Budget) -> tuple[str, str]:
    """Say what to change first, in a word and in a sentence: memory that does not fit, else
    the largest exposed term."""
    if budget.memory > 1:
        return N_("make it fit"), N_(
            "Make it fit first: shard more (a higher ZeRO stage) or split the model (tp, pp)."
        )
    worst = budget.worst
    if worst.exposed_s == 0:
        return N_("nothing"), N_(
            "Nothing is exposed: the step is compute-bound; raise MFU or add GPUs."
        )
    if worst.name == "tensor" and worst.link == "inter-node":
        return N_("tensor parallelism"), N_(
            "Tensor parallelism: keep it inside a node, or use it only where memory needs it."
        )
    if worst.name == "tensor":
        return N_("tensor parallelism"), N_(
            "Tensor parallelism: lower tp, or use it only where memory needs it."
        )
    if worst.name == "pipeline bubble":
        return N_("the bubble"), N_(
            "The pipeline bubble: more micro-batches per step, or fewer stages."
        )
    if worst.name == "pipeline":
        return N_("pipeline sends"), N_("Pipeline sends: fewer stages, or stages inside a node.")
    return N_("data-parallel traffic"), N_(
        "Data-parallel traffic outlasts its window: fewer, larger micro-batches, a lower ZeRO "
        "stage if memory allows, or a faster network."
    )


def _substituted(budget: Budget) -> str:
    """Write the compute and each term with the numbers in."""
    v = budget.values
    peak = v["peak_tflops"] * 1e12 * v["mfu"]
    return (
        f"compute = 6 · {v['params']:.4g} · {v['global_batch']:,} · {v['seq']:,} "
        f"= {budget.flops:.4g} FLOP / ({budget.gpus:,} · {peak:.4g} FLOP/s) = "
        f"{units.seconds(budget.compute_s)}; "
        + "; ".join(
            f"{t.name}: {units.seconds(t.total_s)}, exposed {units.seconds(t.exposed_s)}"
            for t in budget.terms
        )
        + f"; {budget.data.how}"
    )


def _sentence(budget: Budget) -> str:
    """Say how long the step takes, what is exposed, and whether the state fits."""
    v, worst = budget.values, budget.worst
    step = {
        "compute": units.seconds(budget.compute_s),
        "step": units.seconds(budget.step_s),
        "share": f"{100 * budget.exposed_comm_s / budget.step_s:.3g}",
    }
    if worst.exposed_s > 0:
        time = N_(
            "Compute takes %(compute)s per step; the step takes %(step)s, %(share)s%% of it "
            "exposed communication; the largest exposed term is %(worst)s, %(exposed)s.",
            worst=worst.name,
            exposed=units.seconds(worst.exposed_s),
            **step,
        )
    else:
        time = N_(
            "Compute takes %(compute)s per step; the step takes %(step)s, %(share)s%% of it "
            "exposed communication.",
            **step,
        )
    state = {
        "state": units.size(budget.state),
        "bytes": ADAM_STATE_BYTES + 2 * v["dtype_bytes"],
        "memory": f"{v['memory_gb']:g}",
    }
    if budget.memory <= 1:
        memory = N_(
            "The training state (%(state)s per GPU, %(bytes)s bytes per parameter) fits in "
            "%(memory)s GB.",
            **state,
        )
    else:
        memory = N_(
            "The training state (%(state)s per GPU, %(bytes)s bytes per parameter) does NOT fit "
            "in %(memory)s GB.",
            **state,
        )
    return sentences(time, memory, _first_change(budget)[1])


def _chart(budget: Budget) -> dict:
    """The step as a stacked bar, beside the same step with no overlap at all."""
    stacks = {N_("compute"): [budget.compute_s, budget.compute_s]}
    for t in budget.terms:
        stacks[t.name] = [t.exposed_s, t.total_s]
    return stacked_chart(
        N_("One step: compute and what is exposed"),
        [N_("this step"), N_("no overlap")],
        stacks,
    )
