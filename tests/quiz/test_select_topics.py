"""A topic filter and the results agree: each question names the chosen topic that selected it,
the draw is shared among the chosen topics, and the page says what a topic selects."""

from __future__ import annotations

from collections import Counter

import pytest

from app import create_app
from app.quiz.select import candidates, topic_counts, topics_of
from tests.conftest import TEST_CONFIG

CHOSEN = ["ring-allreduce", "how-nccl-chooses"]


@pytest.fixture(scope="module")
def client():
    return create_app(TEST_CONFIG).test_client()


def fetch(client, query: str) -> list[dict]:
    r = client.get(f"/api/quiz/questions?{query}")
    assert r.status_code == 200, r.get_json()
    return r.get_json()["questions"]


def test_each_question_names_the_chosen_topic_that_selected_it(client, bank):
    for _ in range(10):
        for shown in fetch(client, f"topics={','.join(CHOSEN)}&count=10"):
            q = bank.by_id[shown["id"]]
            assert shown["chosen_topic"] in CHOSEN, shown["id"]
            assert shown["chosen_topic"] in topics_of(bank, q)
            if q.topic in CHOSEN:
                assert shown["chosen_topic"] == q.topic
            assert shown["chosen_topic_title"] == bank.course.titles[shown["chosen_topic"]]
            assert shown["topic"] == q.topic  # its own lesson stays, for "Read the lesson"


def test_the_draw_is_shared_among_the_chosen_topics(client):
    for query in (f"topics={','.join(CHOSEN)}&count=10", f"topics={','.join(CHOSEN)}&mode=mock"):
        counts = Counter(shown["chosen_topic"] for shown in fetch(client, query))
        assert set(counts) == set(CHOSEN), (query, counts)
        if "mock" not in query:
            assert counts[CHOSEN[0]] == counts[CHOSEN[1]] == 5


def test_practising_again_by_id_keeps_the_chosen_topics(client):
    first = fetch(client, f"topics={','.join(CHOSEN)}&count=5")
    ids = ",".join(shown["id"] for shown in first)
    again = fetch(client, f"ids={ids}&count=5&topics={','.join(CHOSEN)}")
    assert {s["id"]: s["chosen_topic"] for s in again} == {
        s["id"]: s["chosen_topic"] for s in first
    }


def test_without_a_filter_a_question_counts_for_its_own_lesson(client, bank):
    for shown in fetch(client, "count=20"):
        assert shown["chosen_topic"] == bank.by_id[shown["id"]].topic
    for shown in fetch(client, "mode=lesson&lesson=ring-allreduce&count=8"):
        assert shown["chosen_topic"] == "ring-allreduce"


def test_the_page_says_what_a_topic_selects_and_counts_it(client, bank):
    html = client.get("/quiz").get_data(as_text=True)
    assert "A topic selects its lesson's own questions and the questions" in html
    own, tagged = topic_counts(bank)["ring-allreduce"]
    assert own + tagged == len(candidates(bank, topics=["ring-allreduce"]))
    assert tagged > 0
    assert f'title="{own} from this lesson, {tagged} tagged from others">{own + tagged}<' in html
