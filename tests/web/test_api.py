"""The JSON API: the catalog, whole simulations, and 400s that name the field."""

from __future__ import annotations

import json

import pytest

from app import create_app
from app.collectives import catalog, simulate
from app.collectives.narration import narrate

RING8 = {"collective": "allreduce", "algorithm": "ring", "ranks": 8, "elements": 64}


def strict_json(response) -> object:
    """Parse a response body as standard JSON: NaN and Infinity are rejected."""

    def refuse(token: str):
        raise ValueError(f"not JSON: {token}")

    return json.loads(response.get_data(as_text=True), parse_constant=refuse)


def test_collectives_lists_the_engine_catalog(client):
    response = client.get("/api/collectives")
    assert response.status_code == 200
    body = response.get_json()
    assert body == catalog()
    ring = next(e for e in body if (e["collective"], e["algorithm"]) == ("allreduce", "ring"))
    assert ring["description"] and ring["constraints"]["ranks"] == "1..256"


def test_simulate_returns_the_whole_trace(client):
    response = client.post("/api/simulate", json=RING8)
    assert response.status_code == 200
    body = strict_json(response)

    assert body["total_steps"] == 14 and len(body["steps"]) == 14
    assert [s["index"] for s in body["steps"]] == list(range(14))
    narrations = [s["narration"] for s in body["steps"]]
    assert narrations == narrate(simulate("allreduce", "ring", ranks=8, elements=64))
    assert all(text.startswith(f"Step {i + 1} of 14, ") for i, text in enumerate(narrations))
    assert all("run_id" not in s for s in body["steps"]) and "run_id" not in body
    assert body["verified"] is True and body["max_abs_error"] == 0.0
    assert body["bytes_sent"] == [448] * 8
    assert body["layout"]["topology"]["kind"] == "ring"
    assert len(body["initial_state"]) == 64 and len(body["phases"]) == 14
    expected = simulate("allreduce", "ring", ranks=8, elements=64).expected[0].tolist()
    assert body["outputs"] == [expected] * 8 and body["expected"] == [expected] * 8
    assert {"cost", "expected_bytes_per_rank", "dtype", "op", "root"} <= set(body)


def test_ranks_without_output_get_null(client):
    params = {"collective": "reduce", "algorithm": "binomial_tree", "ranks": 4, "elements": 8}
    body = client.post("/api/simulate", json={**params, "root": 2}).get_json()
    assert [o is None for o in body["outputs"]] == [True, True, False, True]
    assert [o is None for o in body["expected"]] == [True, True, False, True]


def test_average_values_are_written_shortest_in_float32(client):
    body = client.post("/api/simulate", json={**RING8, "ranks": 3, "elements": 3, "op": "avg"})
    values = body.get_json()["outputs"][0]
    sums = simulate("allreduce", "ring", ranks=3, elements=3, op="sum").outputs[0]
    assert values == [float(str(s / 3)) if s % 3 else s / 3 for s in sums.astype("float32")]
    assert all(len(repr(v)) <= 10 for v in values)  # 5.6666665, not 5.666666507720947


def test_overflowed_products_are_null_and_the_body_stays_json(client):
    response = client.post("/api/simulate", json={**RING8, "ranks": 64, "op": "prod"})
    body = strict_json(response)  # 9**64 overflows float32 to inf, which JSON cannot carry
    assert body["verified"] is True
    assert None in body["outputs"][0]
    assert None in [v for cell in body["steps"][-1]["state"] for v in cell["values"]]
    finite = [v for v in body["outputs"][0] if v is not None]
    assert all(len(repr(v)) <= 15 for v in finite)  # float32 digits: 1.4251772e+37


@pytest.mark.parametrize(
    ("data", "content_type"),
    [
        ("ranks=8", "application/x-www-form-urlencoded"),
        ("{not json", "application/json"),
        ("", "application/json"),
        ("null", "application/json"),
        ("[1, 2]", "application/json"),
        ('"allreduce"', "application/json"),
    ],
    ids=["form", "broken", "empty", "null", "array", "string"],
)
def test_a_body_that_is_not_a_json_object_is_a_400(client, data, content_type):
    response = client.post("/api/simulate", data=data, content_type=content_type)
    assert response.status_code == 400
    assert response.get_json() == {
        "error": "request body must be a JSON object of simulate parameters"
    }


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"ranks": 65}, "ranks must be an integer in 1..64; got 65"),
        ({"ranks": "8"}, 'ranks must be an integer in 1..64; got "8"'),
        ({"ranks": False}, "ranks must be an integer in 1..64; got false"),
        ({"elements": 4097, "ranks": 64}, "elements must be an integer in 1..4096"),
        ({"algorithm": "fastest"}, "algorithm must be one of"),
        ({"interval_ms": 5001}, "interval_ms must be an integer in 0..5000"),
        ({"inputs": [[1]]}, 'unknown parameter "inputs"'),
    ],
)
def test_a_bad_field_is_a_400_naming_it(client, changes, message):
    response = client.post("/api/simulate", json={**RING8, **changes})
    assert response.status_code == 400
    assert message in response.get_json()["error"]


def test_a_lab_limit_above_the_engines_gives_way_to_the_engines():
    # The memory budget, sized for 64 ranks, would refuse 300 first: 0 turns it off.
    app = create_app({"TESTING": True, "LAB_MAX_RANKS": 300, "LAB_MEMORY_BUDGET_MB": 0})
    response = app.test_client().post("/api/simulate", json={**RING8, "ranks": 300, "elements": 1})
    assert response.status_code == 400
    assert response.get_json() == {"error": "ranks must be an integer in 1..256; got 300"}


def test_an_oversized_body_is_refused_as_json(client):
    body = json.dumps({**RING8, "seed": 1, "pad": "x" * 300_000})
    response = client.post("/api/simulate", data=body, content_type="application/json")
    assert response.status_code == 413
    assert "error" in response.get_json()


def test_the_cost_estimate_is_for_infiniband_ndr_and_matches_the_bytes_sent(client):
    body = client.post("/api/simulate", json=RING8).get_json()
    cost = body["cost"]
    assert cost["steps"] == 14 and cost["message_bytes"] == 256
    assert cost["inputs"]["bandwidth_gbs"] == 50.0 and "NDR" in cost["link"]
    assert cost["formula"] and cost["time_s"] > 0
    assert body["expected_bytes_per_rank"] == [448.0] * 8 == body["bytes_sent"]


def test_hierarchical_cost_uses_nvswitch_inside_a_node(client):
    params = {**RING8, "algorithm": "hierarchical", "ranks_per_node": 4}
    cost = client.post("/api/simulate", json=params).get_json()["cost"]
    assert cost["inputs"]["intra_bandwidth_gbs"] == 450.0 and cost["inputs"]["ranks_per_node"] == 4


@pytest.mark.parametrize("root", [0, 2, 5])
def test_rooted_per_rank_bytes_follow_the_root(client, root):
    params = {"collective": "reduce", "algorithm": "binomial_tree", "ranks": 6, "elements": 12}
    body = client.post("/api/simulate", json={**params, "root": root}).get_json()
    assert body["expected_bytes_per_rank"] == body["bytes_sent"]
    assert body["bytes_sent"][root] == 0  # the root of a reduce only receives
    assert body["cost"]["inputs"]["root"] == root
    assert body["cost"]["steps"] == body["total_steps"]


@pytest.mark.parametrize("entry", catalog(), ids=lambda e: f"{e['collective']}-{e['algorithm']}")
def test_every_algorithm_sends_what_its_formula_says(client, entry):
    params = {"collective": entry["collective"], "algorithm": entry["algorithm"]}
    params.update(ranks=6, elements=24)
    if entry["needs_ranks_per_node"]:
        params["ranks_per_node"] = 3
    body = client.post("/api/simulate", json=params).get_json()
    assert body["verified"] is True
    assert body["cost"]["steps"] == body["total_steps"]
    assert body["expected_bytes_per_rank"] == body["bytes_sent"]


@pytest.mark.parametrize(
    ("collective", "algorithm"),
    [("sendrecv", "pipeline"), ("broadcast", "pipelined_ring"), ("reduce", "ring")],
)
def test_pipelined_estimates_use_the_engines_segment_count(client, collective, algorithm):
    # Fewer elements than ranks: the engine cuts fewer (or empty) segments than p.
    params = {"collective": collective, "algorithm": algorithm, "ranks": 8, "elements": 5}
    body = client.post("/api/simulate", json=params).get_json()
    assert body["cost"]["steps"] == body["total_steps"]
    assert body["expected_bytes_per_rank"] == body["bytes_sent"]


@pytest.mark.parametrize(
    "entry", [e for e in catalog() if e["collective"] in ("allreduce", "reduce", "all_to_all")][:6]
)
def test_the_document_is_start_steps_outputs_expected_and_done_in_one_object(app, entry):
    from app.web import serialize
    from app.web.api import simulate as api

    ranks_per_node = 2 if entry["needs_ranks_per_node"] else None
    trace = simulate(
        entry["collective"], entry["algorithm"], ranks=4, elements=8, ranks_per_node=ranks_per_node
    )

    def vector(v, dtype):
        return None if v is None else serialize.numbers(v, dtype)

    with app.app_context():
        text = serialize.document_json(trace, api.compact_json)
        whole = api.compact_json(
            {
                **serialize.start(trace),
                "steps": [
                    serialize.step(trace, s, text)
                    for s, text in zip(trace.steps, serialize.narrations(trace), strict=True)
                ],
                "outputs": [vector(v, trace.dtype) for v in trace.outputs],
                "expected": [vector(v, trace.dtype) for v in trace.expected],
                **serialize.done(trace),
            }
        )
    assert text == whole  # the same text as encoding the whole tree at once
