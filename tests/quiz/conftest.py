"""Fixtures for the quiz tests: the real bank, and a scratch lessons directory for bad banks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.course import LESSONS_DIR
from app.quiz import load_bank


@pytest.fixture(scope="session")
def bank():
    """The real question bank, loaded and checked once."""
    return load_bank()


@pytest.fixture
def scratch_lessons(tmp_path: Path) -> Path:
    """A lessons directory with the real course.yaml and an empty quizzes/ folder."""
    root = tmp_path / "lessons"
    (root / "quizzes").mkdir(parents=True)
    shutil.copy(LESSONS_DIR / "course.yaml", root / "course.yaml")
    return root
