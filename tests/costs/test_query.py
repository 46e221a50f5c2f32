"""Inputs as text: calculators and the cost API type query strings by their field specs."""

from __future__ import annotations

import pytest

from app.costs import CostError
from app.costs.calculators import CALCULATORS
from app.costs.calculators.query import compare_inputs, cost_inputs, run_calculator, run_widget


def test_text_inputs_are_typed_by_the_calculators_fields():
    result = run_calculator("zero", {"stage": "3", "qwz": "Yes", "hpz": "off", "params": "7e9"})
    assert result.inputs["stage"] == 3 and result.inputs["params"] == 7e9
    assert result.inputs["qwz"] is True and result.inputs["hpz"] is False


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("zero", {"stage": "three"}, "stage must be an integer in 0..3, got 'three'"),
        ("zero", {"qwz": "maybe"}, "qwz must be true or false, got 'maybe'"),
        ("moe", {"preset": "ib_ndr"}, "unknown input 'preset' for moe; allowed: tokens, "),
    ],
)
def test_bad_text_inputs_are_named(name, args, message):
    with pytest.raises(CostError) as error:
        run_calculator(name, args)
    assert str(error.value).startswith(message)


def test_a_widget_shows_the_defaults_and_the_error_a_bad_input_makes():
    result, error = run_widget("moe", {"top_k": "0"})
    assert error == "top_k must be an integer in 1..64, got 0"
    assert result.inputs == CALCULATORS["moe"]().inputs


def test_a_widget_leaves_out_an_unknown_input_and_names_it():
    result, error = run_widget("moe", {"top_k": "4", "preset": "x"})
    assert error.startswith("unknown input 'preset' for moe")
    assert result.inputs["top_k"] == 4


def test_a_preset_fills_the_link_the_query_leaves_out():
    args = {"collective": "allreduce", "algorithm": "hierarchical", "ranks": "16"}
    args |= {"ranks_per_node": "8", "bytes": "64", "hardware": "ib_ndr"}
    args |= {"intra_hardware": "nvlink4", "latency_us": "9"}
    values = cost_inputs(args)
    assert values["latency_us"] == 9 and values["bandwidth_gbs"] == 50
    assert (values["intra_latency_us"], values["intra_bandwidth_gbs"]) == (0.6, 450)
    assert values["message_bytes"] == 64 and "bytes" not in values and "hardware" not in values


def test_the_message_size_is_named_as_the_url_spells_it():
    with pytest.raises(CostError, match=r"^bytes must be a number in \[0, 1.09951e\+12\]"):
        compare_inputs(
            {"collective": "allreduce", "ranks": "8", "bytes": "1e20", "hardware": "ib_ndr"}
        )
