"""Read lessons/course.yaml: the sections in order, each lesson's seed questions, the tags.

`course.yaml` is the one place that fixes a lesson's position, its section and the seed
questions it answers; a lesson file does not repeat them, so adding a lesson is one line there.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import yaml

from app import yamlload

if TYPE_CHECKING:
    from .lesson import Lesson

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# The seed list's questions: 1..50, and "47b" for the second question numbered 47.
SEED_TOPICS = tuple(str(n) for n in range(1, 48)) + ("47b", "48", "49", "50")

T = TypeVar("T")


class LessonError(ValueError):
    """A lesson file or the course outline is malformed; the message names file and field."""


@dataclass(frozen=True)
class CourseEntry:
    """One lesson's place in the course."""

    slug: str
    section: str
    position: int  # 1-based, across the whole course
    seed_questions: tuple[str, ...]


@dataclass(frozen=True)
class Section:
    """A section of the course: its title, its lessons' slugs in order, and its title in the
    other languages (course.yaml's `title_zh`)."""

    title: str
    slugs: tuple[str, ...]
    translated_titles: dict[str, str] = field(default_factory=dict, compare=False)

    def title_in(self, lang: str) -> str:
        return self.translated_titles.get(lang, self.title)


@dataclass(frozen=True)
class Course:
    """The course: course.yaml's outline, and the lesson files that load against it.

    `lessons` holds the lessons that load, in course order; `errors` the loader's message for
    each file that does not (by file stem). `load_outline` alone leaves both empty.
    """

    path: Path
    sections: tuple[Section, ...]
    entries: dict[str, CourseEntry]
    tags: dict[str, str]  # tag -> the slug of the lesson that teaches it
    lessons: dict[str, Lesson] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    # lessons/<lang>/<slug>.md: each language's lessons that load, by slug; errors by "zh/slug"
    translations: dict[str, dict[str, Lesson]] = field(default_factory=dict)
    _memo: dict = field(default_factory=dict, compare=False, repr=False)
    _building: dict = field(default_factory=dict, compare=False, repr=False)  # key -> its lock
    _guard: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    @property
    def slugs(self) -> list[str]:
        """List every lesson slug in course order."""
        return [slug for section in self.sections for slug in section.slugs]

    @property
    def titles(self) -> dict[str, str]:
        """Map every slug to its lesson's title as written; a lesson not written yet, its slug."""
        return {s: self.lessons[s].title if s in self.lessons else s for s in self.slugs}

    def lessons_in(self, lang: str) -> dict[str, Lesson]:
        """The lessons as a reader of `lang` gets them: each one's translation where it loads,
        else the English, in course order."""
        mine = self.translations.get(lang, {})
        return {slug: mine.get(slug, lesson) for slug, lesson in self.lessons.items()}

    def memo(self, key: object, build: Callable[[Course], T]) -> T:
        """Return build(self), built once for this loaded course (the bank, a rendered page).

        Once even when many threads ask at once: the others wait for the one building. Without
        it, 100 students answering a poll on a process that had not loaded the quiz bank yet
        each built the bank, all at once under one GIL: no answer was acked within 20 s.
        """
        if key in self._memo:
            return self._memo[key]
        with self._guard:
            lock = self._building.setdefault(key, threading.Lock())
        with lock:
            if key not in self._memo:
                self._memo[key] = build(self)
        return self._memo[key]


def seed_label(value: Any) -> str:
    """Return a seed question as its label ("3", "47b"), or raise ValueError."""
    label = str(value).strip() if isinstance(value, int | str) else None
    if isinstance(value, bool) or label not in SEED_TOPICS:
        raise ValueError(f'{value!r} is not a question number of the seed list (1..50 or "47b")')
    return label


def load_outline(path: Path) -> Course:
    """Read course.yaml and check its shape: sections of unique slugs, and a tag vocabulary."""
    where = display(path)
    data = _read_yaml(path)
    if not isinstance(data, dict) or not isinstance(data.get("sections"), list):
        raise LessonError(f"{where}: expected a mapping with a 'sections' list")
    sections, entries = [], {}
    for s, raw in enumerate(data["sections"], start=1):
        if not isinstance(raw, dict) or not isinstance(raw.get("title"), str):
            raise LessonError(f"{where}: section {s} needs a 'title'")
        slugs = []
        for item in raw.get("lessons") or []:
            entry = _entry(item, raw["title"], len(entries) + 1, where)
            if entry.slug in entries:
                raise LessonError(f"{where}: lesson {entry.slug!r} is listed twice")
            entries[entry.slug] = entry
            slugs.append(entry.slug)
        titles = {k[len("title_") :]: v for k, v in raw.items() if k.startswith("title_")}
        if not all(isinstance(v, str) and v.strip() for v in titles.values()):
            raise LessonError(f"{where}: section {s}: every title_<language> must be a text")
        sections.append(Section(raw["title"], tuple(slugs), titles))
    tags = data.get("tags") or {}
    if not isinstance(tags, dict):
        raise LessonError(f"{where}: 'tags' must map each tag to the lesson that teaches it")
    for tag, slug in tags.items():
        if slug not in entries:
            raise LessonError(f"{where}: tag {tag!r} points at unknown lesson {slug!r}")
    return Course(path, tuple(sections), entries, {str(t): s for t, s in tags.items()})


def _entry(item: Any, section: str, position: int, where: str) -> CourseEntry:
    """Check one `{slug, seed_questions}` line of a section."""
    slug = item.get("slug") if isinstance(item, dict) else None
    if not isinstance(slug, str) or not SLUG.match(slug):
        raise LessonError(f"{where}: section {section!r}: bad lesson entry {item!r}")
    try:
        seeds = tuple(seed_label(q) for q in item.get("seed_questions") or [])
    except ValueError as exc:
        raise LessonError(f"{where}: lesson {slug!r}: seed_questions: {exc}") from None
    return CourseEntry(slug, section, position, seeds)


def _read_yaml(path: Path) -> Any:
    try:
        return yamlload.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LessonError(f"{display(path)}: file not found") from None
    except yaml.YAMLError as exc:
        raise LessonError(f"{display(path)}: not valid YAML: {exc}") from None


def display(path: Path) -> str:
    """Name a file by its folder and name, e.g. "lessons/ring-allreduce.md"."""
    return f"{path.parent.name}/{path.name}"
