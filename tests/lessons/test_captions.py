"""Every live element has a job (issue 16): each @lab and @calc caption asks the reader
something, a lesson does not embed one animation twice, and the ring allreduce animation
appears at most RING_EMBEDS_IN_COURSE times in the course.

The real-course test fails, listing every offender at once, until the lessons are rewritten;
lessons keep rendering meanwhile (this is a check, not a render error).
"""

from __future__ import annotations

import pytest

from app.course import current_course
from app.lessons.inventory import RING_EMBEDS_IN_COURSE, caption_problems


@pytest.fixture(scope="module")
def real_course():
    return current_course()


def test_every_embed_in_the_course_asks_something_and_none_repeats(real_course):
    problems = caption_problems(list(real_course.lessons.values()))
    assert not problems, f"{len(problems)} embed(s) break the caption rule:\n" + "\n".join(problems)


def test_a_caption_without_a_question_is_named_with_its_line(write_lesson):
    lesson = write_lesson(
        "## A\n\n"
        '@lab allreduce/ring ranks=4 caption="Watch rank 0: how many chunks leave it?"\n\n'
        '@calc compare collective=allreduce ranks=8 caption="Two phases."\n\n'
        "@calc crossover\n\n"
        '```\n@lab allreduce/ring caption="in a code block: not an embed"\n```\n'
    )
    problems = caption_problems([lesson])
    assert len(problems) == 2, problems
    assert all(p.startswith("lessons/ring-basics.md:") for p in problems)
    lines = [p.split(":")[1] for p in problems]
    body_line = lesson.body_line
    assert lines == [str(body_line + 4), str(body_line + 6)]
    assert "'Two phases.'" in problems[0] and "''" in problems[1]


def test_the_same_animation_twice_in_a_lesson_is_named(write_lesson):
    ask = 'caption="What moves?"'
    lesson = write_lesson(
        f"## A\n\n@lab allreduce/ring ranks=4 {ask}\n\n"
        f"@lab allreduce/ring ranks=8 {ask}\n\n"  # another size: another view
        f"@lab allreduce/ring ranks=4 speed=2 {ask}\n\n"  # the same animation again
        f"@lab allgather/ring {ask}\n\n@lab allgather/ring ranks=8 {ask}\n"  # 8 is the default
    )
    problems = caption_problems([lesson])
    assert len(problems) == 2, problems
    assert "allreduce/ring ranks=4 again" in problems[0]
    assert "allgather/ring ranks=8 again" in problems[1]


def test_instructor_only_embeds_are_not_the_learners(write_lesson):
    lesson = write_lesson("## A\n\n::: instructor\n@lab allreduce/ring ranks=4\n:::\n")
    assert caption_problems([lesson]) == []


def test_more_ring_allreduce_embeds_than_the_course_allows_are_listed(write_lesson):
    ask = 'caption="What moves?"'
    sizes = range(2, 2 + RING_EMBEDS_IN_COURSE)
    allowed = "".join(f"@lab allreduce/ring ranks={n} {ask}\n\n" for n in sizes)
    assert caption_problems([write_lesson(f"## A\n\n{allowed}")]) == []
    extra = f"@lab allreduce/ring ranks=12 {ask}\n"
    problems = caption_problems([write_lesson(f"## A\n\n{allowed}{extra}")])
    assert len(problems) == 1
    assert problems[0].startswith(f"the course embeds allreduce/ring {RING_EMBEDS_IN_COURSE + 1} ")
    assert problems[0].count("lessons/ring-basics.md:") == RING_EMBEDS_IN_COURSE + 1
