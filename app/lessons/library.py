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

    def as_json(self) -> dict:
        return {
            "slug": self.slug,
            "title": self.title,
            "url": f"/lessons/{self.slug}",
            "section": self.section,
            "summary": self.summary,
            "tags": list(self.tags),
            "headings": [
                {"id": hid, "text": text, "url": f"/lessons/{self.slug}#{hid}"}
                for hid, text in self.headings
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

    def search(self, query: str, limit: int = 20) -> list[SearchHit]:
        """Find lessons whose title, tags, headings or summary contain every word of `query`.

        Ranked by where the words appear: title above tags above headings above summary.
        """
        terms = query.lower().split()[:10]
        if not terms:
            return []
        hits = []
        for lesson in self.lessons.values():
            toc = self.rendered(lesson.slug).toc
            title, summary = lesson.title.lower(), lesson.summary.lower()
            tags = [t.lower() for t in lesson.tags]
            score, matched = 0, []
            for term in terms:
                in_title = term in title
                in_tags = any(term in t for t in tags)
                heads = [h for h in toc if term in h.text.lower()]
                in_summary = term in summary
                if not (in_title or in_tags or heads or in_summary):
                    break
                score += 8 * in_title + 4 * in_tags + 2 * bool(heads) + in_summary
                matched += [h for h in heads if h not in matched]
            else:
                hits.append(
                    SearchHit(
                        lesson.slug,
                        lesson.title,
                        lesson.section,
                        lesson.summary,
                        lesson.tags,
                        tuple((h.id, h.text) for h in matched[:5]),
                        score,
                    )
                )
        hits.sort(key=lambda h: (-h.score, self.lessons[h.slug].order))
        return hits[:limit]
