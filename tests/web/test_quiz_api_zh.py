"""The quiz API in Chinese (?lang=zh): the same questions, ids and grading as in English, in
the reader's words: prompts, generated option labels and feedback, lesson and section titles."""

from __future__ import annotations

import re

from app.course import current_course
from app.quiz import current_bank
from tests.quiz.answers import right_answer

CJK = re.compile(r"[\u4e00-\u9fff]")
PREDICT = "predict-ring-allreduce-sends"
IDS = f"{PREDICT},num-ring-allreduce-time"


def shown(client, lang: str, query: str) -> dict:
    data = client.get(f"/api/quiz/questions?{query}&lang={lang}").get_json()
    return {q["id"]: q for q in data["questions"]}


def zh_titles() -> dict[str, str]:
    return {slug: lesson.title for slug, lesson in current_course().lessons_in("zh").items()}


def test_questions_read_in_chinese_with_the_same_ids(client):
    en, zh = (shown(client, lang, f"ids={IDS}&count=2") for lang in ("en", "zh"))
    assert set(en) == set(zh) == set(IDS.split(","))
    for qid, q in zh.items():
        assert CJK.search(q["prompt_html"]) and not CJK.search(en[qid]["prompt_html"]), qid
        assert q["topic_title"] == zh_titles()[q["topic"]] != en[qid]["topic_title"]
    predict = zh[PREDICT]
    assert "环形算法的全规约（AllReduce）" in predict["prompt_html"]
    assert all(o["html"].startswith("数据块 ") for o in predict["options"])
    assert all(o["html"].startswith("chunk ") for o in en[PREDICT]["options"])


def test_answers_grade_the_same_in_both_languages(client):
    for lang in ("en", "zh"):
        for q in shown(client, lang, f"ids={IDS}&count=2").values():
            body = right_answer(q)
            result = client.post(f"/api/quiz/answer?lang={lang}", json=body).get_json()
            assert result["correct"] is True, (lang, q["id"])
            if q["kind"] == "predict":
                truth = set(body["answer"])
                assert {o["id"] for o in result["options"] if o["correct"]} == truth
                said = {"zh": "第 ", "en": "Step "}[lang]
                assert result["steps"][0].startswith(said), result["steps"]
    # A wrong answer is wrong in Chinese too.
    q = shown(client, "zh", f"ids={PREDICT}&count=1")[PREDICT]
    body = right_answer(q)
    wrong = [o["id"] for o in q["options"] if o["id"] not in body["answer"]][:1]
    result = client.post("/api/quiz/answer?lang=zh", json={**body, "answer": wrong}).get_json()
    assert result["correct"] is False


def test_topics_mock_interviews_and_self_checks_in_chinese(client):
    course = current_course()
    topics = client.get("/api/quiz/topics?lang=zh").get_json()["topics"]
    sections = {s.title_in("zh") for s in course.sections}
    assert {t["slug"]: t["title"] for t in topics} == {
        s: zh_titles().get(s, s) for s in course.slugs
    }
    assert {t["section"] for t in topics} <= sections
    mock = client.get("/api/quiz/questions?mode=mock&lang=zh").get_json()["questions"]
    assert all(q["chosen_topic_title"] == zh_titles()[q["chosen_topic"]] for q in mock)
    lesson = "ring-allreduce"
    check = client.get(f"/api/quiz/questions?mode=lesson&lesson={lesson}&count=5&lang=zh")
    bank = current_bank()
    for q in check.get_json()["questions"]:
        if bank.by_id[q["id"]].translations:
            assert CJK.search(q["prompt_html"]), q["id"]
