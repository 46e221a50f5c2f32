"""Fixtures for the lesson tests: the two-lesson fixture course and lessons written on the fly."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from app.lessons import load_course, load_lesson

FIXTURES = Path(__file__).parent / "fixtures"

FRONT = {
    "title": "Ring basics",
    "slug": "ring-basics",
    "summary": "A test lesson.",
    "prerequisites": [],
    "tags": ["ring-allreduce"],
    "sources": [],
}


@pytest.fixture
def course():
    return load_course(FIXTURES / "course.yaml")


@pytest.fixture
def lesson_dir(tmp_path):
    """A copy of the fixture course (course.yaml, lessons, quizzes) that a test may change."""
    target = tmp_path / "lessons"
    shutil.copytree(FIXTURES, target)
    return target


@pytest.fixture
def write_lesson(lesson_dir):
    """Write lessons/<slug>.md from front-matter overrides and a body; return the Lesson."""

    def write(body="Text.\n", raw_front=None, filename="ring-basics.md", **changes):
        front = {**FRONT, **changes}
        front = {k: v for k, v in front.items() if v is not _DROP}
        text = raw_front if raw_front is not None else yaml.safe_dump(front, sort_keys=False)
        path = lesson_dir / filename
        path.write_text(f"---\n{text}---\n{body}", encoding="utf-8")
        return load_lesson(path, load_course(lesson_dir / "course.yaml"))

    return write


class _Drop:
    def __repr__(self) -> str:
        return "DROP"


_DROP = _Drop()


@pytest.fixture
def drop():
    """A marker: pass field=drop to write_lesson to leave that field out."""
    return _DROP
