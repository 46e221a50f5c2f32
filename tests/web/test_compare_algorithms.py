"""compare's algorithms= input over HTTP (issue 16): a lesson compares only NCCL's algorithms;
a name outside the collective's catalog is a 400 that names the field, and the widget shows the
list in a text box."""

from __future__ import annotations

import re


def test_the_api_compares_only_the_algorithms_asked_for(client):
    query = "collective=allreduce&ranks=128&hardware=ib_ndr&algorithms=ring,double_binary_tree"
    body = client.get(f"/api/calc/compare?{query}").get_json()
    assert sorted(row[0] for row in body["table"]["rows"]) == ["double_binary_tree", "ring"]
    assert body["inputs"]["algorithms"] == "ring,double_binary_tree"


def test_an_algorithm_of_another_collective_is_a_400_naming_the_field(client):
    response = client.get("/api/calc/compare?collective=allreduce&algorithms=bruck")
    assert response.status_code == 400
    assert response.get_json()["error"].startswith("algorithms: 'bruck' is not an algorithm")


def test_the_widget_shows_the_list_in_a_text_box(client):
    html = client.get("/embed/calc/compare?algorithms=ring,rabenseifner").get_data(as_text=True)
    assert re.search(r'type="text" id="[^"]+" name="algorithms" value="ring,rabenseifner"', html)
