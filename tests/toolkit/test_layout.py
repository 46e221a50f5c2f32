"""The layout check of the parallel-layout prompt: memory, shape and the cost model's numbers."""

from __future__ import annotations

import pytest

from app.costs.calculators import CALCULATORS
from app.toolkit import layout


def test_plain_ddp_needs_112_gb_per_gpu_as_the_course_case_says():
    assert layout.memory_bytes(1, 1, 128, 0) == pytest.approx(112e9)


def test_zero_stages_shard_optimizer_then_gradients_then_weights():
    stage = [layout.memory_bytes(1, 1, 128, z) / 7e9 for z in range(4)]
    assert stage == pytest.approx([16, 4 + 12 / 128, 2 + 14 / 128, 16 / 128])


def criteria(**kw) -> dict[str, bool]:
    return {c["id"]: c["ok"] for c in layout.check(kw)["criteria"]}


def test_the_model_layout_meets_every_numeric_criterion():
    assert criteria(tp=1, pp=1, dp=128, zero=1) == dict.fromkeys(
        ["gpus", "tp_in_node", "pp_layers", "batch", "memory", "comm_vs_compute"], True
    )


def test_plain_ddp_misses_memory_and_tp_16_leaves_the_node():
    assert criteria(tp=1, pp=1, dp=128, zero=0)["memory"] is False
    out = criteria(tp=16, pp=1, dp=8, zero=1)
    assert out["tp_in_node"] is False and "comm_vs_compute" not in out


def test_a_layout_that_does_not_use_128_gpus_is_not_priced():
    out = layout.check({"tp": 2, "pp": 1, "dp": 32, "zero": 1})
    assert {c["id"]: c["ok"] for c in out["criteria"]}["gpus"] is False
    assert "communication" not in out


def test_communication_is_the_3d_calculators_answer_for_the_case():
    out = layout.check({"tp": 8, "pp": 1, "dp": 16, "zero": 1})
    direct = CALCULATORS["parallelism_3d"](
        tp=8, pp=1, dp=16, micro_batches=64, hardware="ib_ndr", intra_hardware="nvlink4"
    )
    assert out["communication"]["outputs"]["comm_s"] == pytest.approx(
        next(o.value for o in direct.outputs if o.key == "comm_s")
    )
    assert out["communication"]["outputs"]["dominant"] == "tensor"


def test_compute_per_step_is_the_course_cases_three_and_a_half_seconds():
    assert layout.COMPUTE_S == pytest.approx(3.48, abs=0.01)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ([], "body: must be a JSON object"),
        ({"tp": 1, "pp": 1, "dp": 128}, "zero: must be an integer from 0 to 3"),
        ({"tp": 0, "pp": 1, "dp": 128, "zero": 1}, "tp: must be an integer from 1 to 128"),
        ({"tp": 1.0, "pp": 1, "dp": 128, "zero": 1}, "tp: must be an integer"),
        ({"tp": True, "pp": 1, "dp": 128, "zero": 1}, "tp: must be an integer"),
        ({"tp": 1, "pp": 1, "dp": 128, "zero": 1, "ep": 2}, "unknown field 'ep'"),
    ],
)
def test_bad_layouts_are_refused_naming_the_field(body, says):
    with pytest.raises(layout.LayoutError) as caught:
        layout.read(body)
    assert says in str(caught.value)
