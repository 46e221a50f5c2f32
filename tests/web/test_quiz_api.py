"""The quiz over HTTP: no answer leaves before submission, grading at POST /api/quiz/answer,
bad input gets 400 naming the field (never a 500), fresh numbers on every fetch."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app import create_app
from app.quiz import current_bank
from app.quiz.fit import self_check_pool
from app.quiz.text import render
from app.web import settings as app_settings
from tests.quiz.answers import right_answer

ANSWER_KEYS = {
    "correct",
    "why",
    "why_html",
    "explanation",
    "explanation_html",
    "model_answer",
    "model_answer_html",
    "checklist",
    "pairs",
    "expected",
    "formula",
    "steps",
    "positions_right",
    "truth",
}


@pytest.fixture(scope="module")
def bank():
    return current_bank()


@pytest.fixture
def client():
    """A client of an app whose API rate limit does not get in the way of walking the bank."""
    app = create_app({"TESTING": True, "API_RATE_PER_S": 1e6, "API_BURST": 1_000_000})
    return app.test_client()


def keys_in(data) -> set[str]:
    if isinstance(data, dict):
        return set(data) | {k for v in data.values() for k in keys_in(v)}
    if isinstance(data, list):
        return {k for v in data for k in keys_in(v)}
    return set()


def fetch_all(client, bank) -> list[dict]:
    ids = [q.id for q in bank.questions]
    out = []
    for start in range(0, len(ids), 50):
        chunk = ids[start : start + 50]
        r = client.get(f"/api/quiz/questions?ids={','.join(chunk)}&count={len(chunk)}")
        assert r.status_code == 200
        out += r.get_json()["questions"]
    assert {q["id"] for q in out} == set(ids)
    return out


def secrets_of(q) -> list[str]:
    """Everything about a question that only the feedback may show."""
    texts = [o.why for o in q.options] + [q.explanation, q.model_answer, *q.checklist]
    texts += [p.why for p in q.pairs]
    return [render(t, inline=True) for t in texts if t and len(t) > 12]


def test_question_json_carries_no_answer(client, bank):
    for shown in fetch_all(client, bank):
        q = bank.by_id[shown["id"]]
        assert not keys_in(shown) & ANSWER_KEYS, q.id
        assert "order" not in shown  # the right order of an ordering question
        raw = json.dumps(shown, ensure_ascii=False)
        for secret in secrets_of(q):
            assert secret not in raw, (q.id, secret)
        if q.kind in ("single", "multiple"):
            assert all(set(o) == {"id", "html"} for o in shown["options"])
            # Every correct option is shown exactly once, unmarked, among the others.
            for o in q.options:
                assert [x["html"] for x in shown["options"]].count(render(o.text, inline=True)) == 1
        if q.kind == "match":
            assert [x["html"] for x in shown["left"]] == [
                render(p.left, inline=True) for p in q.pairs
            ]
            assert "pairs" not in shown


def test_option_order_and_ids_do_not_reveal_the_right_option(client, bank):
    q = bank.by_id["choice-ring-step-count"]  # its right option is first in the file
    firsts = set()
    for _ in range(30):
        shown = client.get(f"/api/quiz/questions?ids={q.id}").get_json()["questions"][0]
        firsts.add(shown["options"][0]["html"])
        assert not any(o["id"].endswith(("0", "1")) and len(o["id"]) < 4 for o in shown["options"])
    assert len(firsts) > 1


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False
        self._json = False

    def handle_starttag(self, tag, attrs):
        # Data blocks (the page's config, the palette) are JSON, not code; the answer check
        # reads the whole HTML, so an answer cannot hide in them either.
        self._in_script = tag == "script"
        self._json = dict(attrs).get("type") == "application/json"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script and not self._json:
            self.scripts.append(data)
        elif not self._in_script:
            self.parts.append(data)


def test_the_quiz_page_holds_no_question_and_no_answer(client, bank):
    r = client.get("/quiz")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    parser = _Text()
    parser.feed(html)
    assert all(not s.strip() for s in parser.scripts), "no inline script code"
    text = " ".join(" ".join(parser.parts).split())
    for q in bank.questions:
        for o in q.options:
            if o.correct and len(o.text) > 20:
                assert o.text not in html and o.text not in text, q.id
        for secret in [o.why for o in q.options] + [q.model_answer, q.explanation]:
            if secret and len(secret) > 20:
                assert secret not in text, q.id
    for word in ('"correct"', "data-correct", "data-answer=", "Show answer"):
        assert word not in html


def test_the_quiz_page_offers_topics_difficulty_length_and_mock(client, bank):
    html = client.get("/quiz").get_data(as_text=True)
    for topic in bank.topics():
        if topic["count"]:
            assert f'value="{topic["slug"]}"' in html
    for label in (
        "Warm-up",
        "Interview",
        "Deep-dive",
        "5 questions",
        "20 questions",
        "Mock interview: 10 questions, 15 minutes",
        "Clear history",
    ):
        assert label in html
    assert "/static/js/quiz.js" in html and "plotly-cartesian-4.1.1.min.js" in html


def test_lesson_tag_links_preselect_their_lesson(client):
    html = client.get("/quiz?tags=hierarchical").get_data(as_text=True)
    assert 'value="hierarchical-allreduce" checked' in html
    assert 'name="all" checked' not in html


def test_topics_lists_every_lesson_in_course_order(client, bank):
    data = client.get("/api/quiz/topics").get_json()
    assert [t["slug"] for t in data["topics"]] == bank.course.slugs
    assert data["total"] == len(bank.questions)
    assert sum(t["count"] for t in data["topics"]) == len(bank.questions)


def test_questions_follow_the_filters(client, bank):
    r = client.get(
        "/api/quiz/questions?topics=ring-allreduce,gradient-compression"
        "&difficulty=interview&count=20"
    )
    data = r.get_json()
    assert data["questions"]
    for shown in data["questions"]:
        q = bank.by_id[shown["id"]]
        assert q.difficulty == "interview"
        lessons = {q.topic} | {bank.course.tags[t] for t in q.tags}
        assert lessons & {"ring-allreduce", "gradient-compression"}
    kinds = client.get("/api/quiz/questions?kinds=numeric,predict&count=12").get_json()
    assert {q["kind"] for q in kinds["questions"]} <= {"numeric", "predict"}


def test_a_mock_interview_is_ten_mixed_questions_with_a_time_limit(client):
    data = client.get("/api/quiz/questions?mode=mock").get_json()
    assert data["count"] == 10 and data["time_limit_s"] == 15 * 60
    kinds = [q["kind"] for q in data["questions"]]
    assert kinds.count("numeric") >= 2 and "predict" in kinds and "explain" in kinds
    assert {"order", "match"} & set(kinds)
    assert kinds[-1] == "explain"


def test_numeric_questions_get_fresh_numbers(client):
    seen = set()
    for _ in range(12):
        shown = client.get("/api/quiz/questions?ids=num-ring-allreduce-time").get_json()
        seen.add(json.dumps(shown["questions"][0]["params"], sort_keys=True))
    assert len(seen) > 1


def test_a_lesson_self_check_mixes_its_own_questions_with_fresh_draws_from_the_bank(client, bank):
    own, extra = self_check_pool(bank, "ring-allreduce")
    seen_extra, prompts = set(), set()
    for _ in range(8):
        url = "/api/quiz/questions?mode=lesson&lesson=ring-allreduce&count=4"
        shown = client.get(url).get_json()["questions"]
        assert len(shown) == 4
        ids = [q["id"] for q in shown]
        mine = [i for i in ids if i in {q.id for q in own}]
        assert ids[: len(mine)] == [q.id for q in own if q.id in mine]  # own first, in file order
        assert set(ids[len(mine) :]) <= {q.id for q in extra}
        assert any(q["kind"] in ("numeric", "predict") for q in shown)  # fresh on every attempt
        seen_extra |= set(ids[len(mine) :])
        prompts |= {q["prompt_html"] for q in shown if q["kind"] == "predict"}
    assert len(seen_extra) > 1 and len(prompts) > 1  # a repeat meets other questions and draws


def test_review_serves_the_listed_questions_and_reports_ids_the_bank_lost(client, bank):
    listed = ["num-ring-allreduce-time", "gone-question", "choice-ring-step-count"]
    r = client.get(f"/api/quiz/review?ids={','.join(listed)}")
    assert r.status_code == 200
    data = r.get_json()
    assert data["mode"] == "review"
    assert [q["id"] for q in data["questions"]] == [listed[0], listed[2]]
    assert data["unknown"] == ["gone-question"]
    numeric = data["questions"][0]
    assert numeric["params"] and numeric["token"]  # the template's id, fresh numbers
    assert not keys_in(data["questions"]) & ANSWER_KEYS
    empty = client.get("/api/quiz/review").get_json()
    assert empty["questions"] == [] and empty["unknown"] == []


@pytest.mark.parametrize(
    ("query", "needle"),
    [
        ("ids=" + ",".join(f"q{i}" for i in range(51)), "at most 50 question ids, got 51"),
        ("ids=ok-id,bad id!", "'bad id!' is not a question id"),
        ("ids=-starts-with-dash", "is not a question id"),
        ("ids=" + "a" * 97, "at most 96 characters"),
    ],
)
def test_bad_review_ids_get_400_naming_ids_and_the_limit(client, query, needle):
    r = client.get(f"/api/quiz/review?{query}")
    assert r.status_code == 400
    error = r.get_json()["error"]
    assert error.startswith("ids: ") and needle in error, error


def test_every_question_can_be_answered_right_over_http(client, bank):
    for shown in fetch_all(client, bank):
        r = client.post("/api/quiz/answer", json=right_answer(shown))
        assert r.status_code == 200, r.get_json()
        result = r.get_json()
        q = bank.by_id[shown["id"]]
        assert result["correct"] is (None if q.kind == "explain" else True), q.id
        assert result["lesson_url"].startswith(f"/lessons/{q.lesson}")
        if q.kind == "numeric":
            assert result["formula"] and result["expected_text"].endswith(q.numeric.unit)


def post(client, body, **kw):
    return client.post(
        "/api/quiz/answer",
        data=body if isinstance(body, str | bytes) else json.dumps(body),
        content_type="application/json",
        **kw,
    )


BAD = [
    ({"id": "no-such-question", "answer": "x"}, "id: unknown question id"),
    ({"id": 12, "answer": "x"}, "id: must be a question id"),
    ({"answer": "x"}, "id: must be a question id"),
    ({"id": "choice-ring-step-count", "answer": 3}, "answer: must be one option id"),
    ({"id": "choice-zero2-volume", "answer": "x"}, "answer: must be a list of option ids"),
    ({"id": "choice-zero2-volume", "answer": [{}]}, "answer: must be a list of option ids"),
    ({"id": "num-ring-allreduce-time", "answer": "fast"}, "params: must be the object"),
    ({"id": "choice-ring-step-count", "answer": "x", "hack": True}, "hack: unknown field"),
    ({"id": "explain-rdma", "answer": 42}, "answer: must be your explanation"),
    ([1, 2, 3], "body: must be a JSON object"),
]


@pytest.mark.parametrize(("body", "message"), BAD)
def test_bad_submissions_get_400_naming_the_field(client, body, message):
    r = post(client, body)
    assert r.status_code == 400
    assert message in r.get_json()["error"]


def test_invalid_json_and_huge_payloads_get_400(client):
    r = post(client, "{not json")
    assert r.status_code == 400 and r.get_json()["error"].startswith("body:")
    huge = json.dumps({"id": "explain-rdma", "answer": "x" * 20_000})
    r = post(client, huge)
    assert r.status_code == 400 and "at most" in r.get_json()["error"]
    enormous = json.dumps({"id": "explain-rdma", "answer": "x" * 400_000})
    r = post(client, enormous)  # beyond MAX_CONTENT_LENGTH too: still a 400, not a 413
    assert r.status_code == 400 and "at most" in r.get_json()["error"]


def test_forged_numeric_parameters_get_400(client):
    shown = client.get("/api/quiz/questions?ids=num-ring-allreduce-time").get_json()
    shown = shown["questions"][0]
    forged = dict(shown["params"], ranks=4 if shown["params"]["ranks"] != 4 else 8)
    r = post(client, {"id": shown["id"], "params": forged, "token": shown["token"], "answer": 1})
    assert r.status_code == 400 and r.get_json()["error"].startswith("params:")
    r = post(client, {"id": shown["id"], "params": shown["params"], "token": "x" * 43, "answer": 1})
    assert r.status_code == 400


def test_a_token_from_another_server_key_is_rejected():
    one = create_app({"TESTING": True, "SECRET_KEY": "one"}).test_client()
    two = create_app({"TESTING": True, "SECRET_KEY": "two"}).test_client()
    assert one.application.config["SECRET_KEY"] != two.application.config["SECRET_KEY"]
    shown = one.get("/api/quiz/questions?ids=num-ring-allreduce-time").get_json()["questions"][0]
    body = {"id": shown["id"], "params": shown["params"], "token": shown["token"], "answer": 1}
    assert post(one, body).status_code == 200
    assert post(two, body).status_code == 400


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("count=0", "count"),
        ("count=abc", "count"),
        ("count=51", "count"),
        ("difficulty=hard", "difficulty"),
        ("topics=no-such-lesson", "topics"),
        ("kinds=essay", "kinds"),
        ("mode=exam", "mode"),
        ("ids=no-such-question", "ids"),
        ("mode=lesson", "lesson"),
        ("ids=" + ",".join(["a"] * 60), "ids"),
    ],
)
def test_bad_question_queries_get_400_naming_the_parameter(client, query, field):
    r = client.get(f"/api/quiz/questions?{query}")
    assert r.status_code == 400
    assert r.get_json()["error"].startswith(f"{field}:")


def test_the_secret_key_setting_is_documented():
    (setting,) = [s for s in app_settings.SETTINGS if s.name == "SECRET_KEY"]
    assert "quiz" in setting.help and "instance folder" in setting.help
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "quiz.md").read_text(encoding="utf-8")
    assert "SECRET_KEY" in doc and "COLLECTIVE_LAB_SECRET_KEY" in doc


def json_containers(inner):
    """Lists and objects of `inner` (a named function: hypothesis reads it to see it recurses)."""
    return st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=30),
    json_containers,
    max_leaves=12,
)
IDS = st.sampled_from(
    [
        "choice-ring-step-count",
        "choice-zero2-volume",
        "num-ring-allreduce-time",
        "predict-ring-allreduce-sends",
        "order-moe-layer",
        "match-primitive-use",
        "explain-rdma",
        "nope",
    ]
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(qid=IDS, answer=JSON, params=JSON, token=st.none() | st.text(max_size=50))
def test_no_submission_causes_a_server_error(client, qid, answer, params, token):
    body = {"id": qid, "answer": answer}
    if params is not None:
        body["params"] = params
    if token is not None:
        body["token"] = token
    r = post(client, body)
    assert r.status_code in (200, 400), r.get_data(as_text=True)[:300]


# -- one grading per drawn question ---------------------------------------------------------------


def draw(client, qid: str) -> dict:
    """Fetch a fresh copy of question `qid` as the page would."""
    r = client.get(f"/api/quiz/questions?ids={qid}")
    assert r.status_code == 200, r.get_json()
    return r.get_json()["questions"][0]


def signed_body(shown: dict, answer) -> dict:
    return {"id": shown["id"], "params": shown["params"], "token": shown["token"], "answer": answer}


def check_refused_as_graded(response) -> None:
    """Assert a resubmission is refused with 409, says why, and reveals nothing."""
    assert response.status_code == 409, response.get_data(as_text=True)[:300]
    data = response.get_json()
    assert data["error"].startswith("token: ")
    assert "already graded" in data["error"] and "draw a new question" in data["error"]
    assert keys_in(data) & ANSWER_KEYS == set(), data


def test_a_wrong_numeric_answer_shows_the_value_once_and_it_cannot_be_resubmitted(client):
    shown = draw(client, "num-ring-allreduce-time")
    wrong = post(client, signed_body(shown, -1.0))
    assert wrong.status_code == 200
    result = wrong.get_json()
    assert result["correct"] is False
    revealed = result["expected_text"]
    again = post(client, signed_body(shown, result["expected"]))
    check_refused_as_graded(again)
    assert revealed not in again.get_data(as_text=True)
    # A fresh draw of the same question is a new question: it is graded.
    fresh = post(client, signed_body(draw(client, "num-ring-allreduce-time"), 1.0))
    assert fresh.status_code == 200 and "expected" in fresh.get_json()


def test_a_predict_question_is_graded_once(client, bank):
    from app.quiz import generators

    shown = draw(client, "predict-ring-allreduce-sends")
    assert post(client, signed_body(shown, [])).status_code == 200
    truth = sorted(generators.predict_truth(bank.by_id[shown["id"]].predict, shown["params"]))
    check_refused_as_graded(post(client, signed_body(shown, truth)))


def test_a_resubmission_is_refused_in_the_pages_language(client):
    shown = draw(client, "num-ring-allreduce-time")
    assert post(client, signed_body(shown, 1.0)).status_code == 200
    again = client.post(
        "/api/quiz/answer?lang=zh",
        data=json.dumps(signed_body(shown, 1.0)),
        content_type="application/json",
    )
    assert again.status_code == 409
    assert again.get_json()["error"] == "token：这道题的答案已经评判过；请抽一道新题再试"


def test_a_malformed_answer_does_not_use_up_the_question(client):
    shown = draw(client, "num-ring-allreduce-time")
    assert post(client, signed_body(shown, "fast")).status_code == 400
    assert post(client, signed_body(shown, 1.0)).status_code == 200
    check_refused_as_graded(post(client, signed_body(shown, 2.0)))


def test_the_same_numbers_drawn_twice_are_two_questions(client):
    from app.quiz import tokens

    shown = draw(client, "num-ring-allreduce-time")
    secret = client.application.config["SECRET_KEY"]
    again = {**shown, "token": tokens.sign(secret, shown["id"], shown["params"])}
    assert again["token"] != shown["token"]
    assert post(client, signed_body(shown, 1.0)).status_code == 200
    assert post(client, signed_body(again, 1.0)).status_code == 200
    check_refused_as_graded(post(client, signed_body(again, 1.0)))


def test_a_question_older_than_its_token_lifetime_is_stale(client):
    import time

    from app.quiz import tokens

    shown = draw(client, "num-ring-allreduce-time")
    secret = client.application.config["SECRET_KEY"]
    drawn_at = time.time() - tokens.LIFETIME_S - 60
    old = {**shown, "token": tokens.sign(secret, shown["id"], shown["params"], drawn_at=drawn_at)}
    r = post(client, signed_body(old, 1.0))
    assert r.status_code == 400 and r.get_json()["stale"] is True
    assert r.get_json()["error"].startswith("token: ")


def test_a_bank_that_does_not_load_is_a_503_naming_its_problems(tmp_path):
    import shutil

    from app import create_app
    from tests.conftest import TEST_CONFIG

    lessons = tmp_path / "lessons"
    shutil.copytree("lessons", lessons)
    broken = sorted((lessons / "quizzes").glob("*.yaml"))[0]
    broken.write_text(broken.read_text() + "\n- id: [not, a, question\n")
    client = create_app({**TEST_CONFIG, "LESSONS_DIR": str(lessons)}).test_client()
    for url in ("/api/quiz/topics", "/api/quiz/questions?count=3"):
        response = client.get(url)
        assert response.status_code == 503
        body = response.get_json()
        assert body["error"] == "the question bank does not load"
        assert any(broken.name in problem for problem in body["problems"])
    assert client.get("/quiz").status_code == 503


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        (
            '{"id": "num-ring-allreduce-time", "answer": 1, '
            '"params": {"\\ud800": []}, "token": "t"}',
            "params.\\ud800",
        ),
        ('{"id": "num-ring-allreduce-time", "answer": 1, "\\udfff": 1}', "\\udfff"),
    ],
    ids=["params key", "body key"],
)
def test_a_lone_surrogate_in_a_field_name_is_a_400_naming_it_escaped(client, raw, field):
    r = post(client, raw)  # the JSON escape decodes to a lone surrogate, which UTF-8 cannot carry
    assert r.status_code == 400
    assert r.get_json()["error"].startswith(f"{field}: ")
