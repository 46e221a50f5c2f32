"""Every drawn predict question can be answered from the page: when no chunk is the right
answer (often, for `complete` questions), the form offers an explicit "none" option and the
server grades it right."""

from __future__ import annotations

import random

import pytest

from app.quiz import grade, public
from app.quiz.generators import predict_truth

SECRET = "test-secret"
COMPLETE = ["predict-ring-allreduce-complete", "predict-hierarchical-complete"]


def draws(bank, qid: str, count: int):
    """Yield `count` public forms of a question, one per seed."""
    q = bank.by_id[qid]
    for seed in range(count):
        yield q, public(bank, q, SECRET, random.Random(seed))


def graded(bank, shown: dict, answer: list[str]) -> bool | None:
    body = {"id": shown["id"], "params": shown["params"], "token": shown["token"]}
    return grade(bank, {**body, "answer": answer}, SECRET)["correct"]


@pytest.mark.parametrize("qid", COMPLETE)
def test_when_no_chunk_is_complete_the_none_option_is_the_right_answer(bank, qid):
    nothing_complete = 0
    for q, shown in draws(bank, qid, 200):
        shown_ids = [o["id"] for o in shown["options"]]
        assert "none" in shown_ids  # on every draw, so it gives nothing away
        truth = sorted(predict_truth(q.predict, shown["params"]))
        if truth:
            assert graded(bank, shown, truth) is True
            assert graded(bank, shown, ["none"]) is False
            assert graded(bank, shown, [*truth, "none"]) is False
        else:
            nothing_complete += 1
            assert graded(bank, shown, ["none"]) is True
            assert graded(bank, shown, ["none", shown_ids[0]]) is False
    assert nothing_complete >= 200 * 0.2  # about 37% of draws: the case is really exercised


def test_every_drawn_predict_question_has_a_right_answer_the_form_can_send(bank):
    """The page refuses to submit nothing ("Pick an option first"): a right answer must be
    a non-empty set of the options shown."""
    for q in bank.questions:
        if q.kind != "predict":
            continue
        for _, shown in draws(bank, q.id, 60):
            shown_ids = [o["id"] for o in shown["options"]]
            right = sorted(predict_truth(q.predict, shown["params"])) or ["none"]
            assert set(right) <= set(shown_ids), (q.id, shown["params"])
            assert graded(bank, shown, right) is True, (q.id, shown["params"])


def test_the_none_option_is_marked_exclusive_and_comes_last(bank):
    for _, shown in draws(bank, COMPLETE[0], 5):
        last = shown["options"][-1]
        assert last["id"] == "none" and last.get("exclusive") is True
        assert "no chunk" in last["html"]
        assert not any(o.get("exclusive") for o in shown["options"][:-1])
