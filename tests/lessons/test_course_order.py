"""The course teaches in order: no lesson uses a glossary term before the lesson that defines
it, and each defining lesson writes its terms in bold (lessons/glossary.yaml)."""

from __future__ import annotations

import pytest

from app.course import LessonError, current_course, load_lesson
from app.course.glossary import early_uses, load_glossary, undefined_terms
from app.course.load import LESSONS_DIR


@pytest.fixture(scope="module")
def course():
    return current_course()


@pytest.fixture(scope="module")
def terms(course):
    return load_glossary(LESSONS_DIR / "glossary.yaml", course)


def test_no_lesson_uses_a_term_before_the_lesson_that_defines_it(course, terms):
    early = early_uses(course, terms)
    assert not early, "\n".join(map(str, early))


def test_every_term_is_written_in_bold_where_it_is_defined(course, terms):
    missing = undefined_terms(course, terms)
    assert not missing, "\n".join(missing)


def test_the_check_finds_a_term_used_early_in_a_caption_or_a_lab(course, terms, tmp_path):
    first = next(iter(course.lessons.values()))
    path = tmp_path / f"{first.slug}.md"
    text = first.path.read_text(encoding="utf-8")
    path.write_text(
        text + '\n@lab allgather/bruck ranks=4 caption="Count the Rabenseifner steps?"\n',
        encoding="utf-8",
    )
    changed = load_lesson(path, course)
    lessons = {**course.lessons, first.slug: changed}
    import dataclasses

    found = early_uses(dataclasses.replace(course, lessons=lessons), terms)
    mine = {(u.lesson, u.term) for u in found if u.lesson == first.slug}
    assert {(first.slug, "Rabenseifner"), (first.slug, "Bruck")} <= mine


def test_a_glossary_term_must_name_a_lesson_of_the_course(course, tmp_path):
    bad = tmp_path / "glossary.yaml"
    bad.write_text("terms:\n  - {term: x, lesson: nowhere, patterns: ['x']}\n", encoding="utf-8")
    with pytest.raises(LessonError, match="nowhere"):
        load_glossary(bad, course)
