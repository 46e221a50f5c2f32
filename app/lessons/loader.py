"""The course loader's names for the lesson modules: the course, a lesson, and its error.

Lessons are read by `app.course`, which the quiz bank shares; this module lets the renderer
and the directives say `from .loader import Course, Lesson, LessonError` inside the package.
"""

from __future__ import annotations

from app.course import Course, Lesson, LessonError

__all__ = ["Course", "Lesson", "LessonError"]
