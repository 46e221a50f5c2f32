"""The race API: a race and a sweep as JSON, the topology list, and 400s naming the field."""

from __future__ import annotations

import json

import pytest

from app.collectives.names import algorithm_name

RACE = (
    "/api/race?collective=allreduce&algorithms=ring,recursive_doubling&ranks=16&bytes=16e6"
    "&topology=fat_tree&preset=dgx_h100&nodes=2&gpus_per_node=8&spines=4&oversubscription=2"
)


def strict_json(response) -> object:
    def refuse(token: str):
        raise ValueError(f"not JSON: {token}")

    return json.loads(response.get_data(as_text=True), parse_constant=refuse)


def test_a_race_answers_per_step_times_the_order_and_a_verdict(client):
    response = client.get(RACE)
    assert response.status_code == 200
    body = strict_json(response)
    runs = {run["algorithm"]: run for run in body["runs"]}
    assert body["order"] == sorted(runs, key=lambda n: runs[n]["time_s"])
    assert algorithm_name(body["order"][0]) in body["verdict"]
    # The ring on a 2:1 fat-tree: 30 steps of 2.7 µs + 40 µs (tests/fabric/test_fat_tree.py).
    ring = runs["ring"]
    assert len(ring["steps"]) == 30
    assert ring["time_s"] == pytest.approx(30 * 42.7e-6)
    step = ring["steps"][0]
    assert step["bottleneck"]["spine"] and "spine" in step["bottleneck"]["name"]
    links = body["topology"]["links"]
    assert len(step["links"]) == len(step["bytes"]) == len(step["utilisation"])
    assert all(0 <= i < len(links) for i in step["links"])
    assert max(step["utilisation"]) == pytest.approx(40 / 42.7, abs=1e-4)  # 4 digits
    assert len(body["placement"]) == 16


def test_a_sweep_answers_both_clocks_crossovers(client):
    query = RACE.replace("/api/race?", "/api/race/sweep?").replace("&bytes=16e6", "")
    body = strict_json(client.get(query + "&low_bytes=1024&high_bytes=1073741824"))
    assert body["sizes_bytes"][0] == 1024 and body["sizes_bytes"][-1] == 1 << 30
    for side in ("clock", "model"):
        assert set(body[side]["times_s"]) == {"ring", "recursive_doubling"}
        assert len(body[side]["times_s"]["ring"]) == len(body["sizes_bytes"])


def test_the_topologies_list_their_parameters(client):
    body = strict_json(client.get("/api/topologies"))
    names = {t["name"]: t for t in body["topologies"]}
    assert {"flat", "nvswitch", "pcie", "nvl72", "fat_tree", "torus2d", "torus3d"} <= set(names)
    params = {p["name"]: p for p in names["fat_tree"]["params"]}
    assert params["oversubscription"]["low"] == 1 and "dgx_h100" in names["fat_tree"]["presets"]
    assert body["mappings"] == ["fill", "round_robin"]
    assert body["min_algorithms"] == 2 and body["max_algorithms"] == 4


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ("algorithms=ring", "algorithms"),
        ("algorithms=ring,recursive_doubling,rabenseifner,direct,binary_tree", "algorithms"),
        ("ranks=65", "ranks"),
        ("ranks=²", "ranks"),
        ("bytes=0", "bytes"),
        ("bytes=lots", "bytes"),
        ("oversubscription=0.5", "oversubscription"),
        ("nodes=1", "ranks"),  # 1 node × 8 GPUs cannot hold 16 ranks
        ("mapping=scatter", "mapping"),
        ("preset=ib_ndr", "preset"),
        ("topology=moon", "topology"),
        ("max_ranks=1000", "max_ranks is not a field"),  # a keyword of race(), not of the query
        ("message_bytes=5", "message_bytes is not a field"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client, change, field):
    name = change.split("=")[0]
    parts = [part for part in RACE.split("?")[1].split("&") if part.split("=")[0] != name]
    response = client.get("/api/race?" + "&".join([*parts, change]))
    assert response.status_code == 400, response.get_data(as_text=True)[:300]
    assert field in response.get_json()["error"]
