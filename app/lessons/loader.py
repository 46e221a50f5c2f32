"""Read the course outline and the lesson files, and check each against the other.

`lessons/course.yaml` is the one place that fixes the order of the course, its sections, which
seed questions each lesson answers, and the tag vocabulary. A lesson file
`lessons/<slug>.md` starts with YAML front matter between `---` lines; every field is checked
here, and a problem raises `LessonError` naming the file and the field.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import yaml

from app import yamlload

WORDS_PER_MINUTE = 200  # a steady reading pace for technical prose with formulas
SEED_QUESTION = re.compile(r"^[1-9][0-9]*[a-z]?$")
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

REQUIRED_FIELDS = (
    "title",
    "slug",
    "order",
    "section",
    "summary",
    "prerequisites",
    "tags",
    "sources",
    "seed_questions",
)
OPTIONAL_FIELDS = ("minutes", "objectives", "key_points")


class LessonError(ValueError):
    """A lesson file or the course outline is malformed; the message names file and field."""


# -- the course outline ------------------------------------------------------------------------


@dataclass(frozen=True)
class CourseEntry:
    """One lesson's place in the course."""

    slug: str
    section: str
    position: int  # 1-based, across the whole course
    seed_questions: tuple[str, ...]


@dataclass(frozen=True)
class Section:
    title: str
    slugs: tuple[str, ...]


@dataclass(frozen=True)
class Course:
    """The course outline from course.yaml."""

    path: Path
    sections: tuple[Section, ...]
    entries: dict[str, CourseEntry]
    tags: dict[str, str]  # tag -> the slug of the lesson that teaches it

    @property
    def slugs(self) -> list[str]:
        """List every lesson slug in course order."""
        return [slug for section in self.sections for slug in section.slugs]


def seed_label(value: Any) -> str:
    """Return a seed question number as a string ("3", "47b"), or raise ValueError."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f'{value!r} is not a question number like 3 or "47b"')
    label = str(value).strip()
    if not SEED_QUESTION.match(label):
        raise ValueError(f'{value!r} is not a question number like 3 or "47b"')
    return label


def load_course(path: Path) -> Course:
    """Read course.yaml and check its shape: sections of unique slugs, and a tag vocabulary."""
    where = _display(path)
    data = _read_yaml(path)
    if not isinstance(data, dict) or not isinstance(data.get("sections"), list):
        raise LessonError(f"{where}: expected a mapping with a 'sections' list")
    sections, entries = [], {}
    for s, raw in enumerate(data["sections"], start=1):
        if not isinstance(raw, dict) or not isinstance(raw.get("title"), str):
            raise LessonError(f"{where}: section {s} needs a 'title'")
        slugs = []
        for item in raw.get("lessons") or []:
            slug = item.get("slug") if isinstance(item, dict) else None
            if not isinstance(slug, str) or not SLUG.match(slug):
                raise LessonError(f"{where}: section {raw['title']!r}: bad lesson entry {item!r}")
            if slug in entries:
                raise LessonError(f"{where}: lesson {slug!r} is listed twice")
            try:
                seeds = tuple(seed_label(q) for q in item.get("seed_questions") or [])
            except ValueError as exc:
                raise LessonError(f"{where}: lesson {slug!r}: seed_questions: {exc}") from None
            entries[slug] = CourseEntry(slug, raw["title"], len(entries) + 1, seeds)
            slugs.append(slug)
        sections.append(Section(raw["title"], tuple(slugs)))
    tags = data.get("tags") or {}
    if not isinstance(tags, dict):
        raise LessonError(f"{where}: 'tags' must map each tag to the lesson that teaches it")
    for tag, slug in tags.items():
        if slug not in entries:
            raise LessonError(f"{where}: tag {tag!r} points at unknown lesson {slug!r}")
    return Course(path, tuple(sections), entries, {str(t): s for t, s in tags.items()})


# -- one lesson file ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """A "Further reading" entry."""

    title: str
    url: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class Lesson:
    """A lesson's checked front matter and its Markdown body."""

    path: Path
    title: str
    slug: str
    order: int
    section: str
    summary: str
    minutes: int
    prerequisites: tuple[str, ...]
    tags: tuple[str, ...]
    sources: tuple[Source, ...]
    seed_questions: tuple[str, ...]
    objectives: tuple[str, ...] = ()
    key_points: tuple[str, ...] = ()
    body: str = ""
    body_line: int = 1  # the file's line number of the body's first line
    words: int = field(default=0, compare=False)

    @property
    def where(self) -> str:
        """Name the file for messages, e.g. "lessons/ring-allreduce.md"."""
        return _display(self.path)


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
    where = _display(path)
    text = path.read_text(encoding="utf-8")
    front, body, body_line = split_front_matter(text, where)
    try:
        meta = yamlload.safe_load(front)
    except yaml.YAMLError as exc:
        raise LessonError(f"{where}: the front matter is not valid YAML: {exc}") from None
    if not isinstance(meta, dict):
        raise LessonError(f"{where}: the front matter must be a YAML mapping of fields")
    check = _FieldChecker(where, meta)
    unknown = sorted(set(meta) - set(REQUIRED_FIELDS) - set(OPTIONAL_FIELDS))
    if unknown:
        raise LessonError(
            f"{where}: unknown field(s) {', '.join(map(repr, unknown))}; the fields are "
            f"{', '.join(REQUIRED_FIELDS + OPTIONAL_FIELDS)}"
        )
    for name in REQUIRED_FIELDS:
        if name not in meta:
            raise LessonError(f"{where}: missing required field '{name}'")

    slug = check.text("slug")
    if slug != path.stem:
        check.fail("slug", f"{slug!r} must match the file name {path.stem!r}")
    entry = course.entries.get(slug)
    if entry is None:
        check.fail("slug", f"{slug!r} is not a lesson in {_display(course.path)}")
    order = check.integer("order", low=1)
    if order != entry.position:
        check.fail(
            "order",
            f"{order}, but {_display(course.path)} puts {slug!r} at position {entry.position} "
            "(course.yaml fixes the order)",
        )
    section = check.text("section")
    if section != entry.section:
        check.fail("section", f"{section!r}, but course.yaml puts {slug!r} in {entry.section!r}")

    tags = check.strings("tags", nonempty=True)
    for tag in tags:
        if tag not in course.tags:
            check.fail("tags", f"{tag!r} is not in course.yaml's tag vocabulary")
    prerequisites = check.strings("prerequisites")
    for prereq in prerequisites:
        if prereq not in course.entries:
            check.fail("prerequisites", f"{prereq!r} is not a lesson slug in course.yaml")
        if course.entries[prereq].position >= entry.position:
            check.fail("prerequisites", f"{prereq!r} comes after {slug!r} in the course")
    seeds = check.seed_questions()
    missing = [q for q in entry.seed_questions if q not in seeds]
    if missing:
        check.fail("seed_questions", f"course.yaml assigns {missing} to {slug!r}; list them too")

    words = count_words(body)
    minutes = check.integer("minutes", low=1, high=240) if "minutes" in meta else None
    return Lesson(
        path=path,
        title=check.text("title"),
        slug=slug,
        order=order,
        section=section,
        summary=check.text("summary"),
        minutes=minutes or max(1, math.ceil(words / WORDS_PER_MINUTE)),
        prerequisites=tuple(prerequisites),
        tags=tuple(tags),
        sources=check.sources(),
        seed_questions=tuple(seeds),
        objectives=tuple(check.strings("objectives")) if "objectives" in meta else (),
        key_points=tuple(check.strings("key_points")) if "key_points" in meta else (),
        body=body,
        body_line=body_line,
        words=words,
    )


def load_lessons(directory: Path, course: Course) -> dict[str, Lesson]:
    """Load every lessons/*.md that exists, in course order (files outside the course fail)."""
    lessons = [load_lesson(path, course) for path in sorted(directory.glob("*.md"))]
    return {lesson.slug: lesson for lesson in sorted(lessons, key=lambda x: x.order)}


# -- helpers -----------------------------------------------------------------------------------


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

    def integer(self, name: str, low: int, high: int | None = None) -> int:
        value = self.meta.get(name)
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(name, f"must be an integer, got {value!r}")
        if value < low or (high is not None and value > high):
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

    def seed_questions(self) -> list[str]:
        value = self.meta.get("seed_questions")
        if not isinstance(value, list):
            self.fail("seed_questions", f'must be a list like [3, 4, "47b"], got {value!r}')
        try:
            return [seed_label(q) for q in value]
        except ValueError as exc:
            self.fail("seed_questions", str(exc))

    def sources(self) -> tuple[Source, ...]:
        value = self.meta.get("sources")
        if not isinstance(value, list):
            self.fail("sources", f"must be a list of {{title, url?, note?}}, got {value!r}")
        out = []
        for i, item in enumerate(value, start=1):
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
            out.append(Source(item["title"].strip(), url, note.strip() if note else None))
        return tuple(out)


def _read_yaml(path: Path) -> Any:
    try:
        return yamlload.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LessonError(f"{_display(path)}: file not found") from None
    except yaml.YAMLError as exc:
        raise LessonError(f"{_display(path)}: not valid YAML: {exc}") from None


def _display(path: Path) -> str:
    """Name a file by its folder and name, e.g. "lessons/ring-allreduce.md"."""
    return f"{path.parent.name}/{path.name}"
