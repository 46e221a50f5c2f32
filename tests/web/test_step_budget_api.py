"""The step-budget calculator over HTTP and as an embed: the case's numbers, and a layout that
does not match the cluster refused with a message naming the fields (issue 16)."""

from __future__ import annotations

import re

import pytest

CASE = "params=7e9&layers=32&hidden=4096&seq=4096&global_batch=1024&gpus_per_node=8&nodes=16"


def outputs(body: dict) -> dict:
    return {o["key"]: o["value"] for o in body["outputs"]}


def test_the_api_answers_the_case_with_compute_against_communication(client):
    response = client.get(f"/api/calc/step_budget?{CASE}&tp=8&dp=16")
    assert response.status_code == 200
    got = outputs(response.get_json())
    compute = 6 * 7e9 * 1024 * 4096 / (128 * 989e12 * 0.4)
    assert got["compute_s"] == pytest.approx(compute)
    assert got["step_s"] == pytest.approx(compute + got["exposed_s"] + got["bubble_s"])
    assert got["exposed_s"] == pytest.approx(got["tp_s"] + got["pp_s"] + got["dp_exposed_s"])
    assert got["first_change"] == "tensor parallelism"


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("tp=8&dp=8", "tp × pp × dp = 8 × 1 × 8 = 64 must equal gpus_per_node × nodes"),
        ("global_batch=100", "global_batch (100) must be a multiple of dp × micro_batch"),
        ("zero_stage=5", "zero_stage must be an integer in 0..3, got 5"),
        ("mfu=1.5", "mfu must be a number in [0.001, 1], got 1.5"),
    ],
)
def test_a_bad_input_is_a_400_naming_the_fields(client, query, message):
    response = client.get(f"/api/calc/step_budget?{query}")
    assert response.status_code == 400
    assert message in response.get_json()["error"]


def test_the_embed_presets_the_layout_and_shows_the_answer(client):
    html = client.get(f"/embed/calc/step_budget?{CASE}&tp=8&dp=16").get_data(as_text=True)
    assert re.search(r'name="tp" value="8"', html)
    assert re.search(r'name="dp" value="16"', html)
    assert re.search(r'name="bandwidth_gbs" value="50"', html)  # the ib_ndr preset
    assert re.search(r'name="intra_bandwidth_gbs" value="450"', html)  # the nvlink4 preset
    assert "the step takes 4.646 s" in html


def test_the_embed_of_a_layout_that_does_not_match_shows_the_error(client):
    html = client.get("/embed/calc/step_budget?tp=8&dp=8").get_data(as_text=True)
    assert "must equal gpus_per_node × nodes = 8 × 16 = 128" in html
