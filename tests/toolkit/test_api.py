"""The toolkit's pages and JSON API: status codes, the fields of each answer, and errors that
name the field and the allowed form."""

from __future__ import annotations

import pytest

CHECK = "/api/toolkit/drills/ring-allreduce/check"


def test_the_pages_answer(client):
    for path in (
        "/toolkit",
        "/toolkit/cheatsheet",
        "/toolkit/drills/ring-allreduce",
        "/toolkit/drills/allreduce-lower-bound",
        "/toolkit/drills/hierarchical-allreduce",
        "/toolkit/design/parallel-layout",
        "/toolkit/design/hierarchical-design",
        "/toolkit/design/hang-triage",
    ):
        assert client.get(path).status_code == 200, path


def test_the_site_header_links_the_toolkit(client):
    html = client.get("/").get_data(as_text=True)
    assert '<a href="/toolkit">Toolkit</a>' in html


def test_a_drill_page_holds_no_model_answer(client):
    html = client.get("/toolkit/drills/ring-allreduce").get_data(as_text=True)
    assert "2*(p - 1)*M/p" not in html and "How many bytes is one chunk?" in html
    assert 'href="/lessons/ring-allreduce"' in html


def test_a_design_page_holds_no_model_answer_until_asked(client):
    html = client.get("/toolkit/design/hang-triage").get_data(as_text=True)
    assert "took a branch the others did not" not in html
    answer = client.get("/api/toolkit/design/hang-triage/answer").get_json()
    assert answer["culprit"] == 2 and answer["cause"] == "mismatch"
    assert "took a branch the others did not" in answer["model_answer"][0]


def test_the_layout_prompts_answer_carries_its_checked_layout(client):
    answer = client.get("/api/toolkit/design/parallel-layout/answer").get_json()
    assert answer["model_layout"]["layout"] == {"tp": 1, "pp": 1, "dp": 128, "zero": 1}
    assert all(c["ok"] for c in answer["model_layout"]["criteria"])


@pytest.mark.parametrize("path", ["/toolkit/drills/nope", "/toolkit/design/nope"])
def test_an_unknown_drill_or_prompt_page_is_a_404_naming_what_exists(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert "ring-allreduce" in response.get_data(as_text=True) or "parallel-layout" in (
        response.get_data(as_text=True)
    )


def test_a_right_step_answer(client):
    response = client.post(CHECK, json={"step": 0, "answer": "M/p"})
    assert response.status_code == 200
    assert response.get_json() | {"explain": ""} == {
        "correct": True,
        "feedback": "Right.",
        "explain": "",
        "model": "M/p",
        "next": 1,
    }


def test_a_wrong_step_answer_names_the_mistake(client):
    data = client.post(CHECK, json={"step": 4, "answer": "2M"}).get_json()
    assert data["correct"] is False and data["next"] == 4
    assert data["feedback"].startswith("Off by the (p − 1)/p factor")
    assert data["hint"] == "Both phases send one chunk per step."


def test_reveal(client):
    data = client.post("/api/toolkit/drills/ring-allreduce/reveal", json={"step": 6}).get_json()
    assert data["next"] is None and data["model"].startswith("2*(p - 1)*alpha")


@pytest.mark.parametrize(
    ("body", "starts"),
    [
        ({"step": 0, "answer": "exec('x')"}, "answer: "),
        ({"step": 0, "answer": "p**p"}, "answer: an exponent must be"),
        ({"step": 0, "answer": 5}, "answer: must be a formula as text"),
        ({"step": 0}, "answer: must be a formula as text"),
        ({"step": 99, "answer": "M/p"}, "step: must be an integer from 0 to 6"),
        ({"step": "0", "answer": "M/p"}, "step: must be an integer"),
        ({"step": 0, "answer": "M/p", "zz": 1}, "unknown field 'zz'; allowed: step, answer"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client, body, starts):
    response = client.post(CHECK, json=body)
    assert response.status_code == 400
    assert response.get_json()["error"].startswith(starts)


@pytest.mark.parametrize("raw", [b"", b"[1]", b"{", b"\xff", b"[" * 5000, b" " * 5000])
def test_a_body_that_is_no_json_object_is_a_400_naming_the_body(client, raw):
    response = client.post(CHECK, data=raw, content_type="application/json")
    assert response.status_code == 400
    assert response.get_json()["error"].startswith("body: ")


def test_an_unknown_drill_is_a_404_in_json_naming_the_drills(client):
    response = client.post("/api/toolkit/drills/nope/check", json={"step": 0, "answer": "M"})
    assert response.status_code == 404
    error = response.get_json()["error"]
    assert error.startswith("drill: no drill 'nope'; there are ring-allreduce")


def test_layout_and_triage_checks(client):
    good = client.post("/api/toolkit/layout/check", json={"tp": 1, "pp": 1, "dp": 128, "zero": 1})
    assert good.status_code == 200
    assert good.get_json()["memory_gb"] == pytest.approx(28.66, abs=0.01)
    bad = client.post("/api/toolkit/layout/check", json={"tp": 1, "pp": 1, "dp": "128", "zero": 1})
    assert bad.status_code == 400 and bad.get_json()["error"].startswith("dp: must be an integer")
    graded = client.post("/api/toolkit/triage/check", json={"rank": 2, "cause": "mismatch"})
    assert graded.get_json()["correct"] is True
    wrong = client.post("/api/toolkit/triage/check", json={"rank": 9, "cause": "mismatch"})
    assert wrong.status_code == 400 and wrong.get_json()["error"].startswith("rank: ")


def test_get_on_a_check_endpoint_is_a_405_in_json(client):
    response = client.get(CHECK)
    assert response.status_code == 405 and "use POST" in response.get_json()["error"]
