"""The real course: every lessons/*.md is valid and alive, and the seed questions are covered.

Parametrized over the files present, so each lesson a writer adds is checked automatically.
The coverage test fails while a lesson named in course.yaml has no file: that is the point.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.course import COURSE_FIELDS, REQUIRED_FIELDS, split_front_matter
from app.lessons import load_course, load_lesson, render_lesson
from app.yamlload import safe_load

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "lessons"
FILES = sorted(LESSONS.glob("*.md"))
SEED_QUESTIONS = {str(n) for n in range(1, 51)} | {"47b"}


@pytest.fixture(scope="module")
def course():
    return load_course(LESSONS / "course.yaml")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_lesson_parses_with_the_required_front_matter(path, course):
    front, _, _ = split_front_matter(path.read_text(encoding="utf-8"), path.name)
    lesson = load_lesson(path, course)  # raises LessonError naming file and field
    for field in REQUIRED_FIELDS:
        assert f"{field}:" in front, field
    assert lesson.slug == path.stem and lesson.title and lesson.summary


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_course_yaml_alone_places_the_lesson(path, course):
    front, _, _ = split_front_matter(path.read_text(encoding="utf-8"), path.name)
    assert not set(COURSE_FIELDS) & set(safe_load(front)), f"{path.name}: {COURSE_FIELDS}"
    lesson = load_lesson(path, course)
    entry = course.entries[lesson.slug]
    assert (lesson.order, lesson.section) == (entry.position, entry.section)
    assert lesson.seed_questions == entry.seed_questions


def test_course_yaml_lists_exactly_the_lesson_files(course):
    unlisted = sorted(path.name for path in FILES if path.stem not in course.entries)
    unwritten = [f"{slug}.md" for slug in course.slugs if not (LESSONS / f"{slug}.md").exists()]
    assert unlisted == [], f"lesson files not listed in course.yaml: {unlisted}"
    assert unwritten == [], f"lessons listed in course.yaml without a file: {unwritten}"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_lesson_renders_cleanly_with_a_live_element(path, course):
    lesson = load_lesson(path, course)
    page = render_lesson(lesson, course, quiz_dir=LESSONS / "quizzes")  # strict: any problem fails
    assert any(item.startswith(("lab:", "calc:")) for item in page.live), (
        f"{lesson.where} has no @lab or @calc directive"
    )
    assert page.toc, f"{lesson.where} has no ## headings"


def test_every_seed_question_maps_to_a_lesson_in_the_outline(course):
    covered = {q for entry in course.entries.values() for q in entry.seed_questions}
    assert sorted(SEED_QUESTIONS - covered, key=lambda q: (len(q), q)) == []


def test_every_seed_question_is_answered_by_a_written_lesson(course):
    missing_files = [slug for slug in course.slugs if not (LESSONS / f"{slug}.md").exists()]
    assert missing_files == [], f"lessons named in course.yaml without a file: {missing_files}"
    covered = set()
    for slug in course.slugs:
        covered |= set(load_lesson(LESSONS / f"{slug}.md", course).seed_questions)
    assert sorted(SEED_QUESTIONS - covered, key=lambda q: (len(q), q)) == []
