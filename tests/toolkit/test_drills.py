"""Every drill's steps: the model answer passes, each authored mistake gets its own feedback,
and a wrong answer of a known shape (off by (p−1)/p) gets a sentence that names it."""

from __future__ import annotations

import ast
import random

import pytest

from app.toolkit import drills as d
from app.toolkit.expressions import ExpressionError

STEPS = [(drill.id, i) for drill in d.drills().values() for i in range(len(drill.steps))]
MISTAKES = [
    (drill.id, i, ast.unparse(m.answer), m.feedback)
    for drill in d.drills().values()
    for i, step in enumerate(drill.steps)
    for m in step.mistakes
]


def test_the_three_drills_of_the_issue_exist():
    assert list(d.drills()) == ["ring-allreduce", "allreduce-lower-bound", "hierarchical-allreduce"]


@pytest.mark.parametrize(("drill_id", "step"), STEPS)
def test_the_model_answer_of_every_step_is_right_and_opens_the_next(drill_id, step):
    drill = d.drills()[drill_id]
    out = d.check(drill_id, step, drill.steps[step].answer_text, random.Random(step))
    assert out["correct"] is True
    assert out["next"] == (step + 1 if step + 1 < len(drill.steps) else None)
    assert out["explain"] == drill.steps[step].explain


@pytest.mark.parametrize(("drill_id", "step", "wrong", "feedback"), MISTAKES)
def test_each_authored_mistake_gets_its_feedback_and_the_hint(drill_id, step, wrong, feedback):
    out = d.check(drill_id, step, wrong, random.Random(1))
    assert out["correct"] is False
    assert out["feedback"] == feedback
    assert out["hint"] == d.drills()[drill_id].steps[step].hint
    assert out["next"] == step and "model" not in out


def test_every_drill_links_a_lesson_of_the_course():
    from pathlib import Path

    lessons = Path(__file__).resolve().parents[2] / "lessons"
    for drill in d.drills().values():
        assert (lessons / f"{drill.lesson}.md").is_file(), drill.lesson


def test_every_step_has_at_least_one_authored_mistake():
    assert all(step.mistakes for drill in d.drills().values() for step in drill.steps)


def test_the_ring_cost_in_whiteboard_notation_is_right():
    answer = "2(p−1)α + 2((p−1)/p)Mβ + ((p−1)/p)Mγ"
    assert d.check("ring-allreduce", 6, answer, random.Random(3))["correct"]


def test_missing_the_p_minus_one_over_p_factor_is_named():
    # (p-1)*M/p is the model; M*(p-1)*(p-1)/p**2 is (p-1)/p of it: no authored mistake says so.
    out = d.check("ring-allreduce", 2, "M*(p-1)*(p-1)/p^2", random.Random(2))
    assert out["feedback"].startswith("Off by the (p−1)/p factor")


def test_a_phase_counted_twice_is_named():
    out = d.check("ring-allreduce", 0, "2*M/p", random.Random(2))
    assert out["feedback"] == "Twice the answer: did you count a phase twice?"


def test_hierarchical_accepts_p_as_g_times_n():
    assert d.check("hierarchical-allreduce", 5, "2*(p-1)*alpha_n", random.Random(4))["correct"]
    assert d.check("hierarchical-allreduce", 0, "M/g", random.Random(4))["correct"]
    assert d.check("hierarchical-allreduce", 1, "(g-1)α_l + (g-1)/g·Mβ_l", random.Random(4))[
        "correct"
    ]


def test_a_name_of_another_drill_is_refused():
    with pytest.raises(ExpressionError, match="unknown name 'alpha_n'"):
        d.check("ring-allreduce", 0, "alpha_n", random.Random(1))


@pytest.mark.parametrize("step", [-1, 7, 1.0, "0", True, None])
def test_a_step_that_does_not_exist_is_refused_naming_step(step):
    with pytest.raises(d.DrillError, match="^step: must be an integer from 0 to 6"):
        d.check("ring-allreduce", step, "M/p", random.Random(1))


def test_reveal_gives_the_model_answer_and_the_next_step():
    out = d.reveal("allreduce-lower-bound", 4)
    assert out == {
        "model": "2*(p - 1)*M/p",
        "explain": d.drills()["allreduce-lower-bound"].steps[4].explain,
        "next": 5,
    }


def test_the_public_view_holds_no_model_answer():
    for drill in d.drills().values():
        text = repr(drill.public())
        long_answers = [s.answer_text for s in drill.steps if len(s.answer_text) > 5]
        assert all(answer not in text for answer in long_answers)
