"""Lessons: Markdown files with front matter, checked against course.yaml and rendered to HTML.

`app.course` reads and checks the course and its lesson files, `render` turns Markdown into
safe HTML, `directives` and `diagrams` make the pages alive, `selfcheck` shows a lesson's
questions, and `library` serves the loaded course to the site. Nothing here imports Flask.
"""

from __future__ import annotations

from app.course import Course, Lesson, LessonError, Source, load_course, load_lesson, load_lessons

from .library import Library, SearchHit
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
