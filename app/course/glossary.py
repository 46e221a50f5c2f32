"""The course glossary (lessons/glossary.yaml): each term, the lesson that defines it, and the
check that keeps the course in order: no lesson uses a term before the lesson that defines it.

A *use* is a match of one of the term's patterns in what a learner reads of a lesson (title,
summary, objectives, key points, the body without instructor notes, and the captions of its
live elements), or a @lab of one of the term's algorithms. The defining lesson must write the
term in bold (`**…**`) somewhere: that is where a reader meets its definition.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path

from app import yamlload
from app.i18n import LANGUAGES, twins

from .lesson import Lesson
from .outline import Course, LessonError, display

CONTAINER = re.compile(r"^\s*:{3,}\s*(\S*)")
DIRECTIVE = re.compile(r"^\s*@([a-z]+)\s+(\S+)(.*)$")
BOLD = re.compile(r"\*\*(.+?)\*\*")


@dataclass(frozen=True)
class Term:
    term: str
    lesson: str  # the slug of the lesson that defines it
    patterns: tuple[re.Pattern, ...]
    algorithms: tuple[str, ...]
    definition: str
    # Other languages' (term, definition), from the entry's `zh: {term, definition}`.
    translations: dict[str, tuple[str, str]] = field(default_factory=dict, compare=False)
    english: str = ""  # the English term, set on a translated copy (anchors stay the same)

    @property
    def key(self) -> str:
        """The English term, whatever the language: what links and anchors are made from."""
        return self.english or self.term

    def in_language(self, lang: str) -> Term:
        """This term as a reader of `lang` sees it: its translation, else the English."""
        if lang not in self.translations:
            return self
        term, definition = self.translations[lang]
        return replace(self, term=term, definition=definition, english=self.key)

    def used_in(self, text: str) -> re.Match | None:
        """Return the first use of the term in `text`, if any."""
        hits = [m for p in self.patterns if (m := p.search(text))]
        return min(hits, key=lambda m: m.start()) if hits else None


@dataclass(frozen=True)
class EarlyUse:
    """A lesson that uses a term before the lesson that defines it."""

    lesson: str
    term: str
    defined_in: str
    where: str  # the line or the live element

    def __str__(self) -> str:
        later = f"(defined later, in {self.defined_in})"
        return f"{self.lesson} uses {self.term!r} {later}: {self.where}"


def load_glossary(path: Path, course: Course) -> list[Term]:
    """Read the glossary; a term naming no lesson of the course raises LessonError."""
    data = yamlload.safe_load(path.read_text(encoding="utf-8")) or {}
    terms = []
    for i, item in enumerate(data.get("terms") or [], start=1):
        if not isinstance(item, dict) or not {"term", "lesson", "patterns"} <= set(item):
            raise LessonError(f"{display(path)}: term {i} needs term, lesson and patterns")
        if item["lesson"] not in course.entries:
            raise LessonError(f"{display(path)}: {item['term']!r}: no lesson {item['lesson']!r}")
        flags = 0 if item.get("case") else re.IGNORECASE
        terms.append(
            Term(
                term=item["term"],
                lesson=item["lesson"],
                patterns=tuple(re.compile(p, flags) for p in item["patterns"]),
                algorithms=tuple(item.get("algorithms") or ()),
                definition=item.get("definition", ""),
                translations=_translations(item, f"{display(path)}: {item['term']!r}"),
            )
        )
    return terms


def _translations(item: dict, where: str) -> dict[str, tuple[str, str]]:
    """Read a term's `<lang>: {term, definition}` blocks: both non-empty texts, with the
    English's numbers (`app.i18n.twins`); a problem names the term and the field."""
    out = {}
    for lang in LANGUAGES[1:]:
        block = item.get(lang)
        if block is None:
            continue
        if not isinstance(block, dict) or set(block) != {"term", "definition"}:
            raise LessonError(f"{where}: {lang}: must be a mapping of term and definition")
        english = {"term": str(item["term"]), "definition": str(item.get("definition", ""))}
        for name in ("term", "definition"):
            value = block[name]
            if not isinstance(value, str) or not value.strip():
                raise LessonError(f"{where}: {lang}.{name}: must be a non-empty text")
            problems = twins.differences(english[name], value)
            if problems:
                raise LessonError(f"{where}: {lang}.{name}: {'; '.join(problems)}")
        out[lang] = (block["term"].strip(), block["definition"].strip())
    return out


def learner_lines(lesson: Lesson) -> list[str]:
    """Return what a learner reads of a lesson, a line at a time (instructor notes left out;
    a live element reads as its caption)."""
    lines = [lesson.title, lesson.summary, *lesson.objectives, *lesson.key_points]
    skipping = 0  # depth inside an instructor container
    for line in lesson.body.splitlines():
        container = CONTAINER.match(line)
        if container:
            opening = bool(container.group(1))
            if skipping:
                skipping += 1 if opening else -1
                continue
            if container.group(1) == "instructor":
                skipping = 1
            continue
        if skipping:
            continue
        directive = DIRECTIVE.match(line)
        if directive:
            lines.append(_caption(directive.group(3)))
            continue
        lines.append(line)
    return lines


def _caption(params: str) -> str:
    try:
        words = shlex.split(params)
    except ValueError:
        return ""
    return next((w.partition("=")[2] for w in words if w.startswith("caption=")), "")


def lab_algorithms(lesson: Lesson) -> list[tuple[str, str]]:
    """Return (algorithm, directive line) for each @lab in the lesson's learner text."""
    out = []
    for line in lesson.body.splitlines():
        directive = DIRECTIVE.match(line)
        if directive and directive.group(1) == "lab":
            out.append((directive.group(2).partition("/")[2], line.strip()))
    return out


def early_uses(course: Course, terms: list[Term]) -> list[EarlyUse]:
    """Every use of a term in a lesson that comes before the term's defining lesson."""
    found = []
    for lesson in course.lessons.values():
        later = [t for t in terms if course.entries[t.lesson].position > lesson.order]
        if not later:
            continue
        lines = learner_lines(lesson)
        labs = lab_algorithms(lesson)
        for term in later:
            line = next((ln for ln in lines if term.used_in(ln)), None)
            lab = next((ln for alg, ln in labs if alg in term.algorithms), None)
            if line is not None or lab is not None:
                where = lab if line is None else line.strip()
                found.append(EarlyUse(lesson.slug, term.term, term.lesson, where[:160]))
    return found


def undefined_terms(course: Course, terms: list[Term]) -> list[str]:
    """The terms whose defining lesson does not write them in bold."""
    missing = []
    for term in terms:
        lesson = course.lessons.get(term.lesson)
        bold = BOLD.findall("\n".join(learner_lines(lesson))) if lesson else []
        if not any(term.used_in(b) for b in bold):
            missing.append(f"{term.term!r} is not written in bold in {term.lesson}")
    return missing
