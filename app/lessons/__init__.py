"""Lessons: Markdown files with front matter, checked against course.yaml and rendered to HTML.

`loader` reads and checks, `render` turns Markdown into safe HTML, `directives` and `diagrams`
make the pages alive, `selfcheck` shows a lesson's questions, and `library` keeps the whole
course loaded for the site. Nothing here imports Flask.
"""

from __future__ import annotations

from .library import Library, SearchHit
from .loader import Course, Lesson, LessonError, Source, load_course, load_lesson, load_lessons
from .render import LessonRenderError, RenderedLesson, render_lesson, sanitize

__all__ = [
    "Course",
    "Lesson",
    "LessonError",
    "LessonRenderError",
    "Library",
    "RenderedLesson",
    "SearchHit",
    "Source",
    "load_course",
    "load_lesson",
    "load_lessons",
    "render_lesson",
    "sanitize",
]
