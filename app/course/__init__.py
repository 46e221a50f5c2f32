"""The course: lessons/course.yaml, the lesson files' front matter, one loaded copy per folder.

`outline` reads course.yaml (sections, each lesson's place and seed questions, the tag
vocabulary), `lesson` reads one lesson file's front matter and body, and `load` loads a whole
lessons folder and keeps it fresh (`current_course`). Both `app.lessons` (the pages) and
`app.quiz` (the question bank) read the course through here. Nothing here imports Flask.
"""

from __future__ import annotations

from .lesson import (
    COURSE_FIELDS,
    OPTIONAL_FIELDS,
    REQUIRED_FIELDS,
    WORDS_PER_MINUTE,
    Lesson,
    Source,
    load_lesson,
    split_front_matter,
)
from .load import LESSONS_DIR, ROOT, current_course, load_course, load_lessons
from .outline import (
    SEED_TOPICS,
    Course,
    CourseEntry,
    LessonError,
    Section,
    load_outline,
    seed_label,
)

__all__ = [
    "COURSE_FIELDS",
    "LESSONS_DIR",
    "OPTIONAL_FIELDS",
    "REQUIRED_FIELDS",
    "ROOT",
    "SEED_TOPICS",
    "WORDS_PER_MINUTE",
    "Course",
    "CourseEntry",
    "Lesson",
    "LessonError",
    "Section",
    "Source",
    "current_course",
    "load_course",
    "load_lesson",
    "load_lessons",
    "load_outline",
    "seed_label",
    "split_front_matter",
]
