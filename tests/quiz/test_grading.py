"""Grading every kind on the server, and the checks that reject malformed submissions."""

from __future__ import annotations

import random

import pytest

from app.quiz import SubmissionError, grade, public, tokens

SECRET = "test-secret"


def first(bank, kind):
    return next(q for q in bank.questions if q.kind == kind)


def ids_by_text(shown, key="options"):
    return {o["html"]: o["id"] for o in shown[key]}


def test_single_choice_right_and_wrong_with_every_why(bank):
    q = first(bank, "single")
    shown = public(bank, q, SECRET, random.Random(0))
    right = next(o for o in q.options if o.correct)
    wrong = next(o for o in q.options if not o.correct)
    by_index = {o["html"]: o["id"] for o in shown["options"]}
    from app.quiz.text import render

    ok = grade(bank, {"id": q.id, "answer": by_index[render(right.text, inline=True)]}, SECRET)
    assert ok["correct"] is True and ok["score"] == 1.0
    assert {o["why_html"] for o in ok["options"]} == {render(o.why, inline=True) for o in q.options}
    bad = grade(bank, {"id": q.id, "answer": by_index[render(wrong.text, inline=True)]}, SECRET)
    assert bad["correct"] is False and bad["score"] == 0.0
    assert [o["chosen"] for o in bad["options"]].count(True) == 1


def test_multiple_choice_needs_exactly_the_right_set(bank):
    from app.quiz.text import render

    q = next(
        q
        for q in bank.questions
        if q.kind == "multiple" and 0 < sum(o.correct for o in q.options) < len(q.options) - 0
    )
    shown = public(bank, q, SECRET, random.Random(0))
    by_text = ids_by_text(shown)
    right = [by_text[render(o.text, inline=True)] for o in q.options if o.correct]
    assert grade(bank, {"id": q.id, "answer": right}, SECRET)["correct"] is True
    assert grade(bank, {"id": q.id, "answer": right[:-1]}, SECRET)["correct"] is (len(right) == 0)
    extra = right + [i for i in by_text.values() if i not in right][:1]
    assert grade(bank, {"id": q.id, "answer": extra}, SECRET)["correct"] is False


def test_order_is_right_only_in_the_bank_order(bank):
    q = first(bank, "order")
    shown = public(bank, q, SECRET, random.Random(0))
    assert [i["html"] for i in shown["items"]] != list(q.items)  # never shown already solved
    from app.quiz.present import option_ids

    truth = option_ids(SECRET, q, "item", len(q.items))
    result = grade(bank, {"id": q.id, "answer": truth}, SECRET)
    assert result["correct"] is True and result["positions_right"] == len(q.items)
    swapped = [truth[1], truth[0], *truth[2:]]
    result = grade(bank, {"id": q.id, "answer": swapped}, SECRET)
    assert result["correct"] is False and result["positions_right"] == len(q.items) - 2
    assert "explanation_html" in result


def test_match_grades_each_pair(bank):
    q = next(q for q in bank.questions if q.kind == "match" and q.distractors)
    from app.quiz.present import option_ids

    rights = option_ids(SECRET, q, "right", len(q.pairs) + len(q.distractors))
    answer = {f"l{i}": rights[i] for i in range(len(q.pairs))}
    assert grade(bank, {"id": q.id, "answer": answer}, SECRET)["correct"] is True
    answer["l0"] = rights[-1]  # a distractor
    result = grade(bank, {"id": q.id, "answer": answer}, SECRET)
    assert result["correct"] is False
    assert [p["correct"] for p in result["pairs"]] == [False] + [True] * (len(q.pairs) - 1)


def test_explain_returns_the_model_answer_and_checklist_and_no_score(bank):
    q = first(bank, "explain")
    result = grade(bank, {"id": q.id, "answer": "My answer."}, SECRET)
    assert result["correct"] is None and result["score"] is None
    assert result["self_assessed"] is True
    assert len(result["checklist"]) == len(q.checklist)
    assert result["model_answer_html"]


BAD = [
    ([], "body"),
    ({"answer": "x"}, "id"),
    ({"id": 7, "answer": "x"}, "id"),
    ({"id": "no-such-question", "answer": "x"}, "id"),
    ({"id": "choice-ring-step-count"}, "answer"),
    ({"id": "choice-ring-step-count", "answer": 1}, "answer"),
    ({"id": "choice-ring-step-count", "answer": "nope"}, "answer"),
    ({"id": "choice-ring-step-count", "answer": "x", "extra": 1}, "extra"),
    ({"id": "choice-ring-step-count", "answer": "x", "params": {}}, "params"),
    ({"id": "choice-zero2-volume", "answer": "x"}, "answer"),
    ({"id": "choice-zero2-volume", "answer": [1, 2]}, "answer"),
    ({"id": "num-ring-allreduce-time", "answer": 1.0}, "params"),
    ({"id": "num-ring-allreduce-time", "answer": 1.0, "params": {"ranks": 8}}, "token"),
    ({"id": "explain-rdma", "answer": ["a"]}, "answer"),
    ({"id": "explain-rdma", "answer": "x" * 5000}, "answer"),
    ({"id": "order-moe-layer", "answer": ["a", "b"]}, "answer"),
    ({"id": "match-primitive-use", "answer": {"l0": "x"}}, "answer"),
]


@pytest.mark.parametrize(("body", "field"), BAD)
def test_a_malformed_submission_names_the_field(bank, body, field):
    with pytest.raises(SubmissionError) as info:
        grade(bank, body, SECRET)
    assert info.value.field.split(".")[0] == field


def test_numeric_answer_must_be_a_finite_number(bank):
    q = bank.by_id["num-ring-allreduce-time"]
    values = {"ranks": 8, "mib": 64, "link": "ib_ndr"}
    body = {"id": q.id, "params": values, "token": tokens.sign(SECRET, q.id, values)}
    for answer in ("12", True, None, float("nan"), float("inf"), [1], 10**400):
        with pytest.raises(SubmissionError, match="answer"):
            grade(bank, {**body, "answer": answer}, SECRET)


def test_forged_parameters_are_rejected(bank):
    q = bank.by_id["num-ring-allreduce-time"]
    values = {"ranks": 8, "mib": 64, "link": "ib_ndr"}
    token = tokens.sign(SECRET, q.id, values)
    forged = {**values, "mib": 16}
    with pytest.raises(SubmissionError, match="do not match their token"):
        grade(bank, {"id": q.id, "params": forged, "token": token, "answer": 1}, SECRET)
    with pytest.raises(SubmissionError, match="do not match their token"):
        grade(bank, {"id": q.id, "params": values, "token": token, "answer": 1}, "other-key")
    # Even with a valid signature, values outside the template's draws are refused.
    odd = {**values, "ranks": 3}
    with pytest.raises(SubmissionError, match="params.ranks"):
        grade(
            bank,
            {"id": q.id, "params": odd, "token": tokens.sign(SECRET, q.id, odd), "answer": 1},
            SECRET,
        )
