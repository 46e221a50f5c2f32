"""The course as the site serves it: lessons loaded, rendered once, searched, kept fresh.

`Library` watches the lessons folder (file names, sizes and modification times) and reloads
when anything changes, so an author sees an edit on the next page load. A lesson file that
fails its checks is left out of the course and its error kept for the author; the other
lessons stay up.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from .loader import Course, Lesson, LessonError, Section, load_course, load_lesson
from .render import RenderedLesson, render_lesson
from .search import SearchIndex, Snippet

MAX_QUERY = 200


@dataclass(frozen=True)
class SearchHit:
    slug: str
    title: str
    section: str
    summary: str
    tags: tuple[str, ...]
    headings: tuple[tuple[str, str], ...]  # (anchor id, text) of the headings that matched
    score: int
    snippets: tuple[Snippet, ...] = ()  # the sentences that matched, under their headings

    def url(self, anchor: str | None = None) -> str:
        return f"/lessons/{self.slug}" + (f"#{anchor}" if anchor else "")

    def as_json(self) -> dict:
        return {
            "slug": self.slug,
            "title": self.title,
            "url": self.url(),
            "section": self.section,
            "summary": self.summary,
            "tags": list(self.tags),
            "headings": [
                {"id": hid, "text": text, "url": self.url(hid)} for hid, text in self.headings
            ],
            "matches": [
                {
                    "text": s.text,
                    "marks": [list(mark) for mark in s.marks],
                    "heading": s.heading
                    and {"id": s.heading[0], "text": s.heading[1], "url": self.url(s.heading[0])},
                }
                for s in self.snippets
            ],
            "score": self.score,
        }


class Library:
    """Every lesson in `directory` (with its course.yaml and quizzes/), ready to serve."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self._lock = threading.RLock()
        self._signature: tuple | None = None
        self.course: Course | None = None
        self.lessons: dict[str, Lesson] = {}
        self.errors: dict[str, str] = {}  # slug or file stem -> the loader's message
        self._rendered: dict[tuple[str, bool], RenderedLesson] = {}
        self._index: SearchIndex | None = None

    @property
    def quiz_dir(self) -> Path:
        return self.directory / "quizzes"

    def _current_signature(self) -> tuple:
        files = [self.directory / "course.yaml", *self.directory.glob("*.md")]
        files += self.quiz_dir.glob("*.yaml") if self.quiz_dir.is_dir() else []
        out = []
        for path in sorted(files):
            try:
                stat = path.stat()
            except FileNotFoundError:
                continue
            out.append((str(path), stat.st_mtime_ns, stat.st_size))
        return tuple(out)

    def refresh(self) -> Library:
        """Reload everything if any file changed since the last look."""
        with self._lock:
            signature = self._current_signature()
            if signature == self._signature:
                return self
            course = load_course(self.directory / "course.yaml")
            lessons, errors = {}, {}
            for path in sorted(self.directory.glob("*.md")):
                try:
                    lesson = load_lesson(path, course)
                except LessonError as exc:
                    errors[path.stem] = str(exc)
                    continue
                lessons[lesson.slug] = lesson
            self.course = course
            self.lessons = dict(sorted(lessons.items(), key=lambda item: item[1].order))
            self.errors = errors
            self._rendered = {}
            self._index = None  # rebuilt from these lessons on the next search
            self._signature = signature
            return self

    # -- reading the course ----------------------------------------------------------------------

    def lesson(self, slug: str) -> Lesson | None:
        return self.lessons.get(slug)

    def sections(self) -> list[tuple[Section, list[Lesson]]]:
        """Pair every section of course.yaml with its lessons that exist, in course order."""
        return [
            (section, [self.lessons[s] for s in section.slugs if s in self.lessons])
            for section in self.course.sections
        ]

    def neighbours(self, slug: str) -> tuple[Lesson | None, Lesson | None]:
        """Return the previous and next existing lessons in course order."""
        order = list(self.lessons)
        i = order.index(slug)
        previous = self.lessons[order[i - 1]] if i > 0 else None
        following = self.lessons[order[i + 1]] if i + 1 < len(order) else None
        return previous, following

    def rendered(self, slug: str, instructor: bool = False) -> RenderedLesson:
        """Render a lesson once per (slug, view) and keep it until a file changes."""
        key = (slug, instructor)
        with self._lock:
            if key not in self._rendered:
                self._rendered[key] = render_lesson(
                    self.lessons[slug],
                    self.course,
                    quiz_dir=self.quiz_dir,
                    instructor=instructor,
                    strict=False,
                )
            return self._rendered[key]

    # -- search ----------------------------------------------------------------------------------

    def search_index(self) -> SearchIndex:
        """The full-text index of the lessons loaded now, built on the first search after a load."""
        with self._lock:
            if self._index is None:
                self._index = SearchIndex(self.lessons.values())
            return self._index

    def search(self, query: str, limit: int = 20) -> list[SearchHit]:
        """Find the lessons holding every word of `query` in their full text, best first.

        Ranked by where the words appear: title above tags above headings above the text;
        each hit carries its matching headings and sentences (see app/lessons/search.py).
        """
        hits = []
        for match in self.search_index().search(query, limit):
            lesson = self.lessons[match.slug]
            hits.append(
                SearchHit(
                    lesson.slug,
                    lesson.title,
                    lesson.section,
                    lesson.summary,
                    lesson.tags,
                    match.headings,
                    match.score,
                    match.snippets,
                )
            )
        return hits
