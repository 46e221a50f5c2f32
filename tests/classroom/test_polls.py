"""Polls over both stores: one draw for all, graded on the server, tallied, revealed once."""

from __future__ import annotations

import pytest

from app.classroom import polls
from app.classroom.checks import english
from app.classroom.store import Tally
from app.quiz import StaleQuestion, current_bank, grade
from app.quiz.present import option_ids
from tests.classroom.test_rooms import RING4, SECRET, accept, classroom, refused


@pytest.fixture
def lab(store):
    return classroom(store)


@pytest.fixture
def room(lab):
    code, token = lab.create()
    lab.join("t1", code, None, token, "member-teacher")
    return code, token


def bank_question(kind: str, **where):
    return next(
        q
        for q in current_bank().questions
        if q.kind == kind and all(getattr(q, k) == v for k, v in where.items())
    )


def students(lab, code, n=3):
    return [lab.join(f"s{i}", code, f"Student {i}", None, f"member-{i:04d}") for i in range(n)]


def test_a_single_choice_poll_from_open_to_reveal(lab, room):
    code, token = room
    q = bank_question("single")
    record = lab.open_poll(code, token, q.id)
    public = polls.public_poll(record)
    assert set(public) == {"poll_id", "question"}
    assert "correct" not in repr(public) and "why" not in repr(public)
    ids = [o["id"] for o in public["question"]["options"]]
    right = record["key"]["correct"]
    wrong = next(i for i in ids if i != right)
    ada, bob, cy = students(lab, code)
    assert lab.answer(ada, record["poll_id"], right) == Tally({right: 1}, 1, 1, seq=1)
    lab.answer(bob, record["poll_id"], right)
    lab.answer(cy, record["poll_id"], wrong)
    tally = lab.answer(ada, record["poll_id"], wrong)  # Ada changes her mind
    assert tally == Tally({right: 1, wrong: 2}, answered=3, right=1, seq=4)
    result = lab.reveal(code, token, record["poll_id"])["en"]
    assert result["correct"] == right and result["counts"] == {right: 1, wrong: 2}
    assert (result["answered"], result["right"]) == (3, 1)
    assert result["why"]  # the right option's explanation
    assert [o["correct"] for o in result["detail"]["options"]].count(True) == 1
    refused("poll_id", lab.answer, bob, record["poll_id"], wrong)  # closed by the reveal


def test_the_answer_key_matches_the_bank(lab, room):
    code, token = room
    q = bank_question("single")
    record = lab.open_poll(code, token, q.id)
    right_text = next(o.text for o in q.options if o.correct)
    shown = {o["id"]: o["html"] for o in record["question"]["options"]}
    assert right_text[:20] in shown[record["key"]["correct"]]


def test_every_student_gets_the_same_draw_of_a_numeric_question(lab, room):
    code, token = room
    q = bank_question("numeric")
    record = lab.open_poll(code, token, q.id)
    seen = [lab.snapshot(code, m.member_id)["poll"]["question"] for m in students(lab, code)]
    assert all(s == record["question"] for s in seen)
    ada = lab.join("s9", code, None, None, "member-9999")
    expected = record["key"]["correct"]
    lab.answer(ada, record["poll_id"], expected)
    result = lab.reveal(code, token, record["poll_id"])["en"]
    assert result["right"] == 1 and result["counts"] == {f"{float(expected):.4g}": 1}
    assert result["detail"]["expected_text"].startswith(f"{expected:.4g}"[:3])


@pytest.mark.parametrize("kind", ["multiple", "order", "match"])
def test_other_kinds_are_polled_and_graded(lab, room, kind):
    code, token = room
    record = lab.open_poll(code, token, bank_question(kind).id)
    (ada,) = students(lab, code, 1)
    correct = record["key"]["correct"]
    lab.answer(ada, record["poll_id"], correct)
    result = lab.reveal(code, token, record["poll_id"])["en"]
    assert result["right"] == 1 and result["answered"] == 1
    if kind == "multiple":
        assert result["counts"] == dict.fromkeys(correct, 1)
    else:
        assert result["counts"] == {"right": 1}


def test_explain_and_unknown_questions_are_refused(lab, room):
    code, token = room
    message = refused("question_id", lab.open_poll, code, token, bank_question("explain").id)
    assert "explain questions cannot be polled" in message
    assert "no question" in refused("question_id", lab.open_poll, code, token, "nope")
    refused("question_id", lab.open_poll, code, token, 7)
    assert lab.snapshot(code, "m") == {"state": None, "seq": 0}  # nothing was opened


def test_only_the_teacher_opens_and_reveals(lab, room):
    code, token = room
    q = bank_question("single")
    refused("teacher_token", lab.open_poll, code, None, q.id)
    record = lab.open_poll(code, token, q.id)
    refused("teacher_token", lab.reveal, code, "guess", record["poll_id"])
    assert "result" not in lab.snapshot(code, "m")["poll"]


def test_teachers_do_not_answer_and_bad_answers_are_named(lab, room):
    code, token = room
    record = lab.open_poll(code, token, bank_question("single").id)
    teacher = lab.join("t2", code, None, token, None)
    refused("role", lab.answer, teacher, record["poll_id"], "x")
    (ada,) = students(lab, code, 1)
    assert "not an option" in refused("answer", lab.answer, ada, record["poll_id"], "o-forged")
    refused("answer", lab.answer, ada, record["poll_id"], ["a", "list"])
    refused("poll_id", lab.answer, ada, "p000000000000", "x")
    refused("poll_id", lab.answer, ada, "<script>", "x")
    assert lab.store.tally(code) == Tally()


def test_a_new_poll_closes_the_last(lab, room):
    code, token = room
    first = lab.open_poll(code, token, bank_question("single").id)
    second = lab.open_poll(code, token, bank_question("numeric").id)
    (ada,) = students(lab, code, 1)
    message = refused("poll_id", lab.answer, ada, first["poll_id"], "x")
    assert message.endswith(f"the open poll is {second['poll_id']}")


def test_a_late_joiner_lands_on_the_open_poll_with_their_answer(lab, room):
    code, token = room
    record = lab.open_poll(code, token, bank_question("single").id)
    (ada,) = students(lab, code, 1)
    lab.answer(ada, record["poll_id"], record["key"]["correct"])
    view = lab.snapshot(code, ada.member_id)["poll"]
    assert view == {**polls.public_poll(record), "my_answer": record["key"]["correct"]}
    late = lab.snapshot(code, "member-late")["poll"]
    assert late["my_answer"] is None and "result" not in late
    lab.reveal(code, token, record["poll_id"])
    after = lab.snapshot(code, "member-late")["poll"]
    assert after["result"]["correct"] == record["key"]["correct"]
    assert after["result"]["counts"] == {record["key"]["correct"]: 1}


def test_a_polls_ids_and_draw_are_not_gradable_by_the_quiz(lab, room):
    code, token = room
    record = lab.open_poll(code, token, bank_question("single").id)
    body = {"id": record["question_id"], "answer": record["key"]["correct"]}
    with pytest.raises(StaleQuestion):
        grade(current_bank(), body, SECRET)
    q = current_bank().by_id[record["question_id"]]
    assert record["key"]["correct"] not in option_ids(SECRET, q, "option", len(q.options))


def test_predict_next_step_asks_about_the_run_on_screen(lab, room):
    code, token = room
    lab.drive(code, token, RING4, accept)  # ring allreduce on 4 ranks, step 1 shown
    record = lab.open_poll(code, token, "predict-next-step")
    assert record["question_id"].startswith("predict-ring-allreduce")
    params = record["question"]["params"]
    assert (params["ranks"], params["step"]) == (4, 1)
    assert english(record["note"]) == "about step 2 of the run on screen"
    assert record["question"]["figure"]["steps_done"] == 1


def test_predict_next_step_falls_back_to_a_size_the_bank_draws(lab, room):
    code, token = room
    lab.drive(code, token, {**RING4, "ranks": 32, "elements": 64}, accept)
    record = lab.open_poll(code, token, "predict-next-step")
    assert record["question_id"].startswith("predict-ring-allreduce")
    assert record["question"]["params"]["ranks"] in (4, 5, 6)
    assert "do not draw step 2 of this run (32 ranks)" in english(record["note"])


def test_predict_next_step_needs_a_run_with_predict_questions(lab, room):
    code, token = room
    assert "drive first" in refused("question_id", lab.open_poll, code, token, "predict-next-step")
    lab.drive(code, token, {**RING4, "collective": "gather", "algorithm": "direct"}, accept)
    message = refused("question_id", lab.open_poll, code, token, "predict-next-step")
    assert message.startswith("question_id: no predict question in the bank is about direct")
