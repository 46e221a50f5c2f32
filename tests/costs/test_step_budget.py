"""The step-budget calculator against the formulas worked out here, for the course's case
(docs/course-case.md): 7B, 32 layers, h = s = 4096, 1024 sequences, 16 × 8 H100, NVLink 4
(450 GB/s, α 0.6 µs) inside a node, NDR (50 GB/s, α 2.7 µs) between nodes."""

from __future__ import annotations

import pytest

from app.costs import CostError
from app.costs.calculators import parallelism_3d, step_budget

PSI, TOKENS, GPUS = 7e9, 1024 * 4096, 128
COMPUTE = 6 * PSI * TOKENS / (GPUS * 989e12 * 0.4)
FORWARD, BACKWARD = COMPUTE / 3, 2 * COMPUTE / 3
NDR_A, NDR_B = 2.7e-6, 50e9
NVL_A, NVL_B = 0.6e-6, 450e9


def ring_allreduce(p: int, m: float, alpha: float, bw: float) -> float:
    return 2 * (p - 1) * alpha + 2 * (p - 1) / p * m / bw


def ring_half(p: int, m: float, alpha: float, bw: float) -> float:
    """Ring reduce-scatter or allgather of M in total (no γ)."""
    return (p - 1) * alpha + (p - 1) / p * m / bw


def test_compute_is_six_flop_per_parameter_per_token_at_the_mfu():
    result = step_budget()
    assert result.output("pflop") == pytest.approx(6 * PSI * TOKENS / 1e15)
    assert result.output("compute_s") == pytest.approx(COMPUTE)
    assert result.output("forward_s") == pytest.approx(FORWARD)
    assert result.output("backward_s") == pytest.approx(BACKWARD)
    assert COMPUTE == pytest.approx(3.479, abs=5e-4)  # docs/course-case.md's "≈ 3.5 s"
    assert step_budget(mfu=0.2).output("compute_s") == pytest.approx(2 * COMPUTE)


def test_plain_ddp_does_not_fit_and_hides_half_its_allreduce():
    result = step_budget(zero_stage=0)
    assert result.output("state_bytes") == pytest.approx(16 * PSI)
    assert result.output("memory_pct") == pytest.approx(100 * 16 * PSI / 80e9)
    allreduce = ring_allreduce(128, 2 * PSI, NDR_A, NDR_B)  # 128 GPUs span nodes: NDR
    m = 1024 // 128
    assert result.output("micro_batches") == m
    assert result.output("dp_s") == pytest.approx(allreduce)
    # Gradients accumulate locally; the allreduce hides only behind the last backward.
    assert result.output("dp_exposed_s") == pytest.approx(allreduce - BACKWARD / m)
    assert result.output("step_s") == pytest.approx(COMPUTE + allreduce - BACKWARD / m)
    assert result.output("first_change") == "make it fit"
    assert result.interpretation.endswith(
        "does NOT fit in 80 GB. Make it fit first: shard more "
        "(a higher ZeRO stage) or split the model (tp, pp)."
    )


@pytest.mark.parametrize(
    ("stage", "state_per_param"),
    [(1, 2 + 2 + 12 / 128), (2, 2 + (2 + 12) / 128), (3, 16 / 128)],
)
def test_each_zero_stage_shards_its_share_of_the_state(stage, state_per_param):
    result = step_budget(zero_stage=stage)
    assert result.output("state_bytes") == pytest.approx(PSI * state_per_param)


def test_zero_three_gathers_the_weights_again_for_every_micro_batch():
    result = step_budget(zero_stage=3)
    half, m = ring_half(128, 2 * PSI, NDR_A, NDR_B), 8
    assert result.output("dp_s") == pytest.approx(3 * m * half)
    exposed = max(0, m * half - FORWARD) + max(0, 2 * m * half - BACKWARD)
    assert result.output("dp_exposed_s") == pytest.approx(exposed)
    assert result.output("exposed_pct") == pytest.approx(100 * exposed / (COMPUTE + exposed))
    # One micro-batch of 8 sequences: the paper's three passes, all hidden.
    one = step_budget(zero_stage=3, micro_batch=8)
    assert one.output("dp_s") == pytest.approx(3 * half)
    assert one.output("dp_exposed_s") == 0
    assert one.output("first_change") == "nothing"
    assert "Nothing is exposed: the step is compute-bound" in one.interpretation


def test_zero_one_hides_its_reduce_scatter_but_not_all_of_its_allgather():
    result = step_budget(zero_stage=1)
    half, m = ring_half(128, 2 * PSI, NDR_A, NDR_B), 8
    exposed = max(0, half - BACKWARD / m) + max(0, half - FORWARD / m)
    assert result.output("dp_exposed_s") == pytest.approx(exposed)
    assert half < BACKWARD / m  # so only the allgather shows
    assert result.output("first_change") == "data-parallel traffic"
    assert "Data-parallel traffic outlasts its window" in result.interpretation


def test_tensor_parallelism_inside_a_node_is_exposed_and_its_count_is_parallelism_3ds():
    result = step_budget(tp=8, dp=16)
    m = 1024 // 16
    activation = 4096 * 4096 * 2
    tp = 4 * 32 * m * ring_allreduce(8, activation, NVL_A, NVL_B)
    assert result.output("tp_s") == pytest.approx(tp)
    grads = ring_allreduce(16, PSI / 8 * 2, NDR_A, NDR_B)
    exposed = tp + max(0, grads - BACKWARD / m)
    assert result.output("step_s") == pytest.approx(COMPUTE + exposed)
    assert result.output("exposed_s") == pytest.approx(exposed)
    assert result.output("first_change") == "tensor parallelism"
    assert "Tensor parallelism: lower tp" in result.interpretation
    same = parallelism_3d(micro_batches=m, tp=8, pp=1, dp=16, params=PSI)
    row = next(r for r in result.table["rows"] if r[0] == "tensor")
    assert row[3] == pytest.approx(same.output("tensor_bytes"))


def test_tensor_parallelism_across_nodes_says_bring_it_inside():
    result = step_budget(tp=16, dp=8)
    assert "Tensor parallelism: keep it inside a node" in result.interpretation


def test_the_pipeline_adds_its_sends_and_its_bubble():
    result = step_budget(tp=8, pp=4, dp=4, zero_stage=1)
    m = 1024 // 4
    activation = 4096 * 4096 * 2
    assert result.output("bubble_s") == pytest.approx(COMPUTE * 3 / m)
    # The bubble is (pp−1)/(m+pp−1) of the pipeline's time (compute + bubble).
    share = result.output("bubble_s") / (COMPUTE + result.output("bubble_s"))
    assert share == pytest.approx(3 / (m + 3))
    assert result.output("pp_s") == pytest.approx(2 * m * (NDR_A + activation / NDR_B))


def test_the_step_chart_stacks_compute_and_the_exposed_terms_to_the_step_time():
    result = step_budget(tp=8, pp=4, dp=4)
    chart = result.charts[0]
    assert chart["categories"] == ["this step", "no overlap"]
    with_overlap = sum(stack["values"][0] for stack in chart["stacks"])
    assert with_overlap == pytest.approx(result.output("step_s"))


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        (dict(tp=8, dp=8), r"tp × pp × dp = 8 × 1 × 8 = 64 must equal gpus_per_node × nodes"),
        (dict(global_batch=1000), r"global_batch \(1,000\) must be a multiple of dp × micro_batch"),
        (dict(tp=8, pp=5, dp=3, nodes=15), "pp must divide layers"),
        (dict(mfu=0), r"mfu must be a number in \[0.001, 1\]"),
        (dict(zero_stage=4), r"zero_stage must be an integer in 0..3"),
        (dict(hardware="nvlink9"), "hardware must be one of"),
    ],
)
def test_bad_inputs_name_the_fields(inputs, message):
    with pytest.raises(CostError, match=message):
        step_budget(**inputs)
