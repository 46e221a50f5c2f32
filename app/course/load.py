"""Load the whole course from a lessons folder, and keep one loaded copy per folder.

`current_course` is the one cache of the course files: it reloads when course.yaml, a lesson
file or a quiz file changes (names, sizes, modification times), so an author sees an edit on
the next page load, and whatever is built from a course (the quiz bank, rendered pages) is
kept on that course with `Course.memo` and dropped with it.
"""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

from app.i18n import LANGUAGES

from .lesson import Lesson, load_lesson
from .outline import Course, LessonError, load_outline

ROOT = Path(__file__).resolve().parents[2]
LESSONS_DIR = ROOT / "lessons"


def load_lessons(
    directory: Path, course: Course, errors: dict[str, str] | None = None
) -> dict[str, Lesson]:
    """Load every lessons/*.md in course order; a file that fails raises LessonError, or, when
    `errors` is given, has its message kept there (by file stem) and is left out."""
    lessons = []
    for path in sorted(directory.glob("*.md")):
        try:
            lessons.append(load_lesson(path, course))
        except LessonError as exc:
            if errors is None:
                raise
            errors[path.stem] = str(exc)
    return {lesson.slug: lesson for lesson in sorted(lessons, key=lambda x: x.order)}


def load_course(path: Path) -> Course:
    """Read course.yaml and the lesson files beside it; a lesson that fails is kept as an error."""
    outline = load_outline(path)
    errors: dict[str, str] = {}
    lessons = load_lessons(path.parent, outline, errors)
    translations = {}
    for lang in LANGUAGES[1:]:
        mine: dict[str, str] = {}
        found = load_lessons(path.parent / lang, outline, mine)
        errors.update({f"{lang}/{stem}": message for stem, message in mine.items()})
        titles = {s.title: s.title_in(lang) for s in outline.sections}
        translations[lang] = {
            slug: dataclasses.replace(lesson, section=titles[lesson.section])
            for slug, lesson in found.items()
        }
    return dataclasses.replace(outline, lessons=lessons, errors=errors, translations=translations)


_lock = threading.Lock()
_cached: dict[Path, tuple[tuple, Course]] = {}


def _signature(directory: Path) -> tuple:
    paths = [
        directory / "course.yaml",
        directory / "glossary.yaml",
        *directory.glob("*.md"),
        *(p for lang in LANGUAGES[1:] for p in directory.glob(f"{lang}/*.md")),
        *directory.glob("quizzes/*.yaml"),
    ]
    out = []
    for path in sorted(paths):
        try:
            stat = path.stat()
        except FileNotFoundError:
            continue
        out.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(out)


def current_course(directory: Path = LESSONS_DIR) -> Course:
    """Return the course in `directory`, reloaded when any of its files changed."""
    directory = Path(directory)
    signature = _signature(directory)
    with _lock:
        hit = _cached.get(directory)
        if hit and hit[0] == signature:
            return hit[1]
        course = load_course(directory / "course.yaml")
        _cached[directory] = (signature, course)
        return course
