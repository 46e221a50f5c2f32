"""Reading and practice time apart (issue 16): practice counted from what a lesson asks."""

from __future__ import annotations

import pytest

from app.lessons.inventory import take_inventory
from app.lessons.pacing import NO_TIME, PRACTICE_MINUTES, hours, lesson_pacing

from .conftest import FIXTURES

BODY = """## Try it

::: predict
How many chunks leave rank 0?
::: answer
Six.
:::
:::

@lab allreduce/ring ranks=4 caption="What moves?"

@calc crossover

@calc compare collective=allreduce ranks=8

::: challenge
Why?
::: solution
Because.
:::
:::

::: predict Try it
And on 8 ranks?
:::

::: instructor
@lab allgather/ring ranks=4

::: challenge
Not the learner's.
:::
:::

```markdown
@lab allreduce/tree
```

@quiz ring-basics count=1
"""


def test_practice_counts_what_the_learner_is_asked_to_do(write_lesson, course):
    lesson = write_lesson(BODY, minutes=5)
    pacing = lesson_pacing(lesson, course, FIXTURES / "quizzes")
    # instructor notes and code blocks hold no practice; count=1 asks one question of two
    counts = {"lab": 1, "calc": 2, "challenge": 1, "predict": 2, "question": 1}
    assert pacing.counts == counts
    assert pacing.practice == sum(PRACTICE_MINUTES[k] * n for k, n in counts.items())
    assert pacing.reading == 5


def test_a_self_check_without_count_asks_its_whole_file(write_lesson, course):
    lesson = write_lesson("## A\n\n@quiz ring-basics\n")
    questions = (FIXTURES / "quizzes" / "ring-basics.yaml").read_text().count("- id:")
    pacing = lesson_pacing(lesson, course, FIXTURES / "quizzes")
    assert pacing.counts["question"] == questions > 1
    assert pacing.practice == questions * PRACTICE_MINUTES["question"]


def test_a_broken_quiz_file_counts_no_question_and_does_not_raise(write_lesson, course, tmp_path):
    lesson = write_lesson("## A\n\n@quiz tree-basics\n")  # tree-basics has no quiz file
    assert lesson_pacing(lesson, course, FIXTURES / "quizzes").practice == 0


def test_the_course_total_adds_up(course):
    total = sum(
        (lesson_pacing(lesson, course, FIXTURES / "quizzes") for lesson in course.lessons.values()),
        NO_TIME,
    )
    each = [
        lesson_pacing(lesson, course, FIXTURES / "quizzes") for lesson in course.lessons.values()
    ]
    assert total.reading == sum(p.reading for p in each)
    assert total.practice == sum(p.practice for p in each) > 0


def test_instructor_notes_are_seen_only_in_the_notes(write_lesson):
    assert take_inventory(write_lesson(BODY)).has_instructor_notes
    assert not take_inventory(write_lesson("## A\n\nText.\n")).has_instructor_notes


@pytest.mark.parametrize(
    ("minutes", "said"),
    [(0, "0 min"), (45, "45 min"), (60, "1 h"), (90, "1.5 h"), (234, "3.9 h"), (727, "12 h")],
)
def test_hours_reads_like_a_plan(minutes, said):
    assert hours(minutes) == said
