"""POST /api/nccl-tests: a real nccl-tests output in, its rows and the model's curve out; bad
input a 400 naming the field and what it may be."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "nccl_tests"
GB10 = (FIXTURES / "gb10_2node_all_reduce.txt").read_text()


def test_json_body_answers_rows_peak_and_the_model(client):
    response = client.post("/api/nccl-tests", json={"output": GB10, "preset": "dgx_a100"})
    assert response.status_code == 200
    data = response.get_json()
    reading, model = data["reading"], data["model"]
    assert (reading["collective"], reading["ranks"], reading["nodes"]) == ("allreduce", 2, 2)
    assert [r["size_bytes"] for r in reading["rows"]] == [8192, 16384, 32768, 65536]
    assert reading["peak"] == {"busbw_gbs": 1.01, "size_bytes": 65536, "placement": "in_place"}
    assert reading["summary"].startswith("allreduce on 2 ranks (rank lines) on 2 nodes: 4 sizes")
    assert [p["size_bytes"] for p in model["points"]] == [8192, 16384, 32768, 65536]
    assert model["link"]["bandwidth_gbs"] == 200.0  # two nodes: min(NVLink 300, 8 × HDR 25)
    assert model["verdict"] == "short" and "latency" in model["sentence"]


def test_a_text_body_takes_its_choices_from_the_query(client):
    response = client.post(
        "/api/nccl-tests?preset=ib_ndr&ranks=2", data=GB10, content_type="text/plain"
    )
    assert response.status_code == 200
    data = response.get_json()
    assert data["model"]["link"]["bandwidth_gbs"] == 50.0
    assert data["reading"]["ranks_from"] == "caller"


@pytest.mark.parametrize(
    ("body", "field", "allowed"),
    [
        ({"output": "no table here"}, "output", "size, count, type"),
        ({"output": GB10, "preset": "dgx_z"}, "preset", "dgx_a100, dgx_h100"),
        ({"output": GB10, "collective": "allsum"}, "collective", "allreduce, allgather"),
        ({"output": GB10, "ranks": 0}, "ranks", "1..65536"),
        ({"output": GB10, "speed": 1}, "speed", "output, preset, collective, ranks"),
        ({"output": 7}, "output", "nccl-tests binary printed"),
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_what_it_may_be(client, body, field, allowed):
    response = client.post("/api/nccl-tests", json=body)
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert field in error and allowed in error
