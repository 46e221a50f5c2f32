"""The course as the site serves it: lessons loaded, rendered once, searched, kept fresh.

`Library` serves the course `app.course.current_course` keeps loaded, which reloads when a
file changes, so an author sees an edit on the next page load; rendered pages and the search
index are kept on that loaded course and go with it. A lesson file that fails its checks is
left out of the course and its error kept for the author; the other lessons stay up.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from pathlib import Path

from app.collectives import Limits
from app.course import Course, Lesson, LessonError, Section, current_course
from app.course.glossary import Term, load_glossary
from app.i18n import DEFAULT

from .directives import LESSON_LAB_LIMITS
from .inventory import take_inventory
from .pacing import NO_TIME, Pacing, lesson_pacing
from .render import RenderedLesson, heading_anchors, render_lesson
from .search import MAX_TERMS, SearchIndex, Snippet, words

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
    """Every lesson in `directory` (with its course.yaml and quizzes/), ready to serve, in one
    language: `in_language` gives the same library as a reader of another language sees it
    (each lesson's translation in lessons/<lang>/ where there is one, else the English)."""

    def __init__(self, directory: Path, lab_limits: Limits = LESSON_LAB_LIMITS) -> None:
        self.directory = Path(directory)
        self.lab_limits = lab_limits  # the largest run a @lab may draw: the site's settings
        self.course: Course | None = None
        self.language = DEFAULT

    def in_language(self, lang: str) -> Library:
        """This library (as refreshed now) in `lang`."""
        view = copy.copy(self)
        view.language = lang
        return view

    @property
    def quiz_dir(self) -> Path:
        return self.directory / "quizzes"

    @property
    def lessons(self) -> dict[str, Lesson]:
        """The lessons that load, in course order, in this library's language."""
        if self.language == DEFAULT:
            return self.course.lessons
        lang = self.language
        return self.course.memo(("lessons", lang), lambda course: course.lessons_in(lang))

    def translated(self, slug: str) -> bool:
        """Is lesson `slug` shown in this library's language (not the English fallback)?"""
        return self.language == DEFAULT or slug in self.course.translations[self.language]

    @property
    def errors(self) -> dict[str, str]:
        """The loader's message for each lesson file that does not load, by file stem."""
        return self.course.errors

    def refresh(self) -> Library:
        """Take the current course: reloaded if any file changed since the last look."""
        self.course = current_course(self.directory)
        return self

    # -- reading the course ----------------------------------------------------------------------

    def lesson(self, slug: str) -> Lesson | None:
        return self.lessons.get(slug)

    def sections(self) -> list[tuple[Section, list[Lesson]]]:
        """Pair every section of course.yaml with its lessons that exist, in course order."""
        return [
            (
                replace(section, title=section.title_in(self.language)),
                [self.lessons[s] for s in section.slugs if s in self.lessons],
            )
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
        """Render a lesson once per (slug, view, language) and keep it until a file changes.
        A translation's headings take the English's anchors, so links land alike."""
        lesson, lang = self.lessons[slug], self.language
        anchors = None if lang == DEFAULT else heading_anchors(self.course.lessons[slug].body)
        return self.course.memo(
            ("rendered", slug, instructor, lang),
            lambda course: render_lesson(
                lesson,
                course,
                quiz_dir=self.quiz_dir,
                instructor=instructor,
                strict=False,
                lab_limits=self.lab_limits,
                anchors=anchors,
                language=lang,
            ),
        )

    def pacing(self, slug: str) -> Pacing:
        """A lesson's reading and practice minutes, counted once per loaded course."""
        return self.course.memo(
            ("pacing", slug),
            lambda course: lesson_pacing(course.lessons[slug], course, self.quiz_dir),
        )

    def total_pacing(self) -> Pacing:
        """The whole course's reading and practice minutes (the lessons that exist)."""
        return sum((self.pacing(slug) for slug in self.lessons), NO_TIME)

    def with_instructor_notes(self) -> list[str]:
        """The slugs of the lessons that have notes for teachers, in course order."""
        return self.course.memo(
            "instructor notes",
            lambda course: [
                slug
                for slug, lesson in course.lessons.items()
                if take_inventory(lesson).has_instructor_notes
            ],
        )

    def glossary(self) -> list[Term]:
        """The glossary's terms in course order of their defining lessons (file order within
        a lesson), in this library's language; none when the folder has no glossary.yaml. A bad
        file raises LessonError."""
        path = self.directory / "glossary.yaml"

        def build(course: Course) -> list[Term]:
            terms = load_glossary(path, course) if path.is_file() else []
            return sorted(terms, key=lambda t: course.entries[t.lesson].position)

        terms = self.course.memo("glossary", build)
        if self.language == DEFAULT:
            return terms
        lang = self.language
        return self.course.memo(("glossary", lang), lambda _: [t.in_language(lang) for t in terms])

    def glossary_matches(self, query: str) -> list[Term]:
        """The glossary terms whose name holds every query word, as the lesson search matches
        a word (a query word matches every word it begins); none if the glossary is broken."""
        asked = words(query)[:MAX_TERMS]
        try:
            terms = self.glossary() if asked else []
        except LessonError:  # the glossary page shows the problem
            return []
        return [t for t in terms if all(any(w.startswith(q) for w in words(t.term)) for q in asked)]

    # -- search ----------------------------------------------------------------------------------

    def search_index(self) -> SearchIndex:
        """The full-text index of the lessons loaded now, built on the first search after a load."""
        lessons = self.lessons
        return self.course.memo(
            ("search index", self.language), lambda course: SearchIndex(lessons.values())
        )

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
