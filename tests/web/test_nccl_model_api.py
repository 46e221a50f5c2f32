"""GET /api/nccl-model and /api/nccl-model/table: DESIGN's contract, 400s naming the field,
and the calculators page offering the nccl_model calculator."""

from __future__ import annotations

import pytest

from app import create_app


@pytest.fixture(scope="module")
def client():
    return create_app().test_client()


def test_the_answer_has_designs_shape(client):
    query = "collective=allreduce&ranks=16&bytes=1073741824&system=dgx_h100&nodes=2"
    data = client.get(f"/api/nccl-model?{query}").get_json()
    assert {"algorithm", "protocol", "time_us", "busbw_gbs", "candidates"} <= set(data)
    first = data["candidates"][0]
    assert set(first) == {"algorithm", "protocol", "time_us"}
    assert (first["algorithm"], first["protocol"]) == (data["algorithm"], data["protocol"])
    times = [c["time_us"] for c in data["candidates"]]
    assert times == sorted(times)
    # busbw = algbw × 2(p−1)/p with algbw = bytes / time (GB = 1e9).
    algbw = 1073741824 / (data["time_us"] * 1e-6) / 1e9
    assert data["busbw_gbs"] == pytest.approx(algbw * 2 * 15 / 16)


def test_the_table_runs_from_8_bytes_to_8_gib_beside_the_alpha_beta_model(client):
    query = "collective=allreduce&ranks=8&system=dgx_a100"
    data = client.get(f"/api/nccl-model/table?{query}").get_json()
    sizes = [r["bytes"] for r in data["rows"]]
    assert sizes[0] == 8 and sizes[-1] == 8 << 30
    assert all(b == 4 * a for a, b in zip(sizes, sizes[1:], strict=False))
    assert all(r["alpha_beta_time_us"] > 0 and r["alpha_beta_algorithm"] for r in data["rows"])


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("collective=alltoall&ranks=8&bytes=1&system=dgx_a100", "collective"),
        ("collective=allreduce&ranks=eight&bytes=1&system=dgx_a100", "ranks"),
        ("collective=allreduce&ranks=8&bytes=1&system=nope", "system"),
        ("collective=allreduce&ranks=8&bytes=1e3&system=dgx_a100", "bytes"),
        ("collective=allreduce&ranks=16&bytes=1&system=dgx_a100&nodes=1", "nodes"),
        ("collective=allreduce&ranks=8&bytes=1&system=dgx_a100&speed=1", "speed"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client, query, field):
    response = client.get(f"/api/nccl-model?{query}")
    assert response.status_code == 400
    assert field in response.get_json()["error"]


def test_the_calculators_page_offers_it(client):
    page = client.get("/calculators").get_data(as_text=True)
    assert 'data-calc="nccl_model"' in page or "data-calc=nccl_model" in page
    answer = client.get("/api/calc/nccl_model?system=dgx_a100&ranks=8&nodes=1").get_json()
    outputs = {o["key"]: o["value"] for o in answer["outputs"]}
    assert outputs["algorithm"] == "Ring" and outputs["protocol"] == "Simple"
    assert len(answer["table"]["rows"]) == 16
