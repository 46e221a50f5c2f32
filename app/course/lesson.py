"""Read one lesson file: YAML front matter between `---` lines, then the Markdown body.

The front matter says what the lesson is (title, summary, tags, prerequisites, sources); its
place in the course (position, section, seed questions) comes from course.yaml alone. Every
field is checked here, and a problem raises `LessonError` naming the file and the field.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

import yaml

from app import yamlload

from .outline import Course, CourseEntry, LessonError, display

WORDS_PER_MINUTE = 200  # a steady reading pace for technical prose with formulas

REQUIRED_FIELDS = ("title", "slug", "summary", "prerequisites", "tags", "sources")
OPTIONAL_FIELDS = ("minutes", "objectives", "key_points")
COURSE_FIELDS = ("order", "section", "seed_questions")  # course.yaml's, never the front matter's


@dataclass(frozen=True)
class Source:
    """A "Further reading" entry."""

    title: str
    url: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class Lesson:
    """A lesson's checked front matter, its place in the course, and its Markdown body."""

    path: Path
    title: str
    slug: str
    order: int  # from course.yaml
    section: str  # from course.yaml
    summary: str
    minutes: int
    prerequisites: tuple[str, ...]
    tags: tuple[str, ...]
    sources: tuple[Source, ...]
    seed_questions: tuple[str, ...]  # from course.yaml
    objectives: tuple[str, ...] = ()
    key_points: tuple[str, ...] = ()
    body: str = ""
    body_line: int = 1  # the file's line number of the body's first line
    words: int = field(default=0, compare=False)

    @property
    def where(self) -> str:
        """Name the file for messages, e.g. "lessons/ring-allreduce.md"."""
        return display(self.path)


def split_front_matter(text: str, where: str) -> tuple[str, str, int]:
    """Split a lesson into (front matter, body, the line number the body starts on)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise LessonError(f"{where}: must start with front matter: a line '---', YAML, '---'")
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            return "".join(lines[1:i]), "".join(lines[i + 1 :]), i + 2
    raise LessonError(f"{where}: the front matter has no closing '---' line")


def count_words(markdown: str) -> int:
    """Count the words a reader reads: prose and code, not directive lines or markup."""
    text = "\n".join(ln for ln in markdown.splitlines() if not ln.lstrip().startswith(("@", ":::")))
    return len(re.findall(r"[A-Za-z0-9][\w'’.-]*", text))


def load_lesson(path: Path, course: Course) -> Lesson:
    """Read one lesson file and check its front matter against the course outline."""
    where = display(path)
    entry = course.entries.get(path.stem)
    if entry is None:
        raise LessonError(
            f"{where}: {path.stem!r} is not a lesson in {display(course.path)}; "
            "add it to a section there (course.yaml fixes every lesson's place)"
        )
    meta, body, body_line = _front_matter(path, where)
    check = _FieldChecker(where, meta)
    slug = check.text("slug")
    if slug != path.stem:
        check.fail("slug", f"{slug!r} must match the file name {path.stem!r}")
    words = count_words(body)
    minutes = check.integer("minutes", low=1, high=240) if "minutes" in meta else None
    return Lesson(
        path=path,
        title=check.text("title"),
        slug=slug,
        order=entry.position,
        section=entry.section,
        summary=check.text("summary"),
        minutes=minutes or max(1, math.ceil(words / WORDS_PER_MINUTE)),
        prerequisites=_prerequisites(check, entry, course),
        tags=_tags(check, course),
        sources=check.sources(),
        seed_questions=entry.seed_questions,
        objectives=tuple(check.strings("objectives")) if "objectives" in meta else (),
        key_points=tuple(check.strings("key_points")) if "key_points" in meta else (),
        body=body,
        body_line=body_line,
        words=words,
    )


def _front_matter(path: Path, where: str) -> tuple[dict, str, int]:
    """Parse the front matter and check its field names: (fields, body, body's first line)."""
    front, body, body_line = split_front_matter(path.read_text(encoding="utf-8"), where)
    try:
        meta = yamlload.safe_load(front)
    except yaml.YAMLError as exc:
        raise LessonError(f"{where}: the front matter is not valid YAML: {exc}") from None
    if not isinstance(meta, dict):
        raise LessonError(f"{where}: the front matter must be a YAML mapping of fields")
    for name in COURSE_FIELDS:
        if name in meta:
            raise LessonError(
                f"{where}: field '{name}': course.yaml gives every lesson its {name}; "
                "remove it from the front matter"
            )
    unknown = sorted(set(meta) - set(REQUIRED_FIELDS) - set(OPTIONAL_FIELDS))
    if unknown:
        raise LessonError(
            f"{where}: unknown field(s) {', '.join(map(repr, unknown))}; the fields are "
            f"{', '.join(REQUIRED_FIELDS + OPTIONAL_FIELDS)}"
        )
    for name in REQUIRED_FIELDS:
        if name not in meta:
            raise LessonError(f"{where}: missing required field '{name}'")
    return meta, body, body_line


def _tags(check: _FieldChecker, course: Course) -> tuple[str, ...]:
    tags = check.strings("tags", nonempty=True)
    for tag in tags:
        if tag not in course.tags:
            check.fail("tags", f"{tag!r} is not in course.yaml's tag vocabulary")
    return tuple(tags)


def _prerequisites(check: _FieldChecker, entry: CourseEntry, course: Course) -> tuple[str, ...]:
    prerequisites = check.strings("prerequisites")
    for prereq in prerequisites:
        if prereq not in course.entries:
            check.fail("prerequisites", f"{prereq!r} is not a lesson slug in course.yaml")
        if course.entries[prereq].position >= entry.position:
            check.fail("prerequisites", f"{prereq!r} comes after {entry.slug!r} in the course")
    return tuple(prerequisites)


class _FieldChecker:
    """Type checks for front-matter fields, each failure naming the file and the field."""

    def __init__(self, where: str, meta: dict) -> None:
        self.where = where
        self.meta = meta

    def fail(self, name: str, problem: str) -> NoReturn:
        raise LessonError(f"{self.where}: field '{name}': {problem}")

    def text(self, name: str) -> str:
        value = self.meta.get(name)
        if not isinstance(value, str) or not value.strip():
            self.fail(name, f"must be a non-empty string, got {value!r}")
        return value.strip()

    def integer(self, name: str, low: int, high: int) -> int:
        value = self.meta.get(name)
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(name, f"must be an integer, got {value!r}")
        if not low <= value <= high:
            self.fail(name, f"must be between {low} and {high}, got {value}")
        return value

    def strings(self, name: str, nonempty: bool = False) -> list[str]:
        value = self.meta.get(name)
        if value is None:
            value = []
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            self.fail(name, f"must be a list of non-empty strings, got {value!r}")
        if nonempty and not value:
            self.fail(name, "must list at least one entry")
        if len(set(value)) != len(value):
            self.fail(name, f"lists an entry twice: {value!r}")
        return [v.strip() for v in value]

    def sources(self) -> tuple[Source, ...]:
        value = self.meta.get("sources")
        if not isinstance(value, list):
            self.fail("sources", f"must be a list of {{title, url?, note?}}, got {value!r}")
        return tuple(self._source(i, item) for i, item in enumerate(value, start=1))

    def _source(self, i: int, item: object) -> Source:
        if not isinstance(item, dict) or not isinstance(item.get("title"), str):
            self.fail("sources", f"entry {i} needs a 'title' string, got {item!r}")
        extra = set(item) - {"title", "url", "note"}
        if extra:
            self.fail("sources", f"entry {i} has unknown key(s) {sorted(extra)}")
        url, note = item.get("url"), item.get("note")
        if url is not None and not (isinstance(url, str) and re.match(r"https?://\S+$", url)):
            self.fail("sources", f"entry {i}: url must be an http(s) address, got {url!r}")
        if note is not None and not isinstance(note, str):
            self.fail("sources", f"entry {i}: note must be a string, got {note!r}")
        return Source(item["title"].strip(), url, note.strip() if note else None)
