"""The question bank: every lessons/quizzes/*.yaml file, checked against one schema at load time.

One bank serves the /quiz page and every lesson's self-check. Lesson writers keep 3-5
questions per lesson in `<slug>.yaml`; the interview bank adds `bank-*.yaml`. The schema is in
`schema`; `load_bank` reports every problem at once, each naming the file, the question id and
the field. The bank is built from the loaded course (`app.course`) and kept with it, so it
reloads when a quiz file, a lesson or course.yaml changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from app.course import LESSONS_DIR, Course, LessonError, current_course, load_course

from .questions import DIFFICULTIES, KINDS, Question, in_language
from .schema import read_quiz_file


class BankError(ValueError):
    """The bank does not load; `problems` lists each one as "file: question id: field: what"."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        shown = "\n".join(f"- {p}" for p in problems[:50])
        more = f"\n- ... and {len(problems) - 50} more" if len(problems) > 50 else ""
        super().__init__(f"the question bank has {len(problems)} problem(s):\n{shown}{more}")


@dataclass(frozen=True)
class Bank:
    """Every question of the course's quiz files, and the course they belong to."""

    questions: tuple[Question, ...]
    course: Course
    files: tuple[str, ...]
    language: str = "en"
    by_id: dict[str, Question] = field(init=False, compare=False)
    _languages: dict[str, Bank] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_id", {q.id: q for q in self.questions})
        object.__setattr__(self, "_languages", {self.language: self})

    def in_language(self, lang: str) -> Bank:
        """The same bank as a learner reading `lang` sees it: same ids, order and answers."""
        if lang not in self._languages:
            questions = tuple(in_language(q, lang) for q in self.questions)
            self._languages[lang] = Bank(questions, self.course, self.files, lang)
        return self._languages[lang]

    @cached_property
    def titles(self) -> dict[str, str]:
        """Map every slug to its lesson's title in this bank's language (the English where the
        lesson has no translation; the slug where it is not written yet)."""
        lessons = self.course.lessons_in(self.language)
        return {s: lessons[s].title if s in lessons else s for s in self.course.slugs}

    def section_title(self, slug: str) -> str:
        """The title of the section lesson `slug` belongs to, in this bank's language."""
        section = self.course.entries[slug].section
        found = next((s for s in self.course.sections if s.title == section), None)
        return found.title_in(self.language) if found else section

    def topics(self) -> list[dict]:
        """List every lesson in course order with its title, section and question counts."""
        titles = self.titles
        out = []
        for slug in self.course.slugs:
            mine = [q for q in self.questions if q.topic == slug]
            kinds = {k: sum(q.kind == k for q in mine) for k in KINDS}
            out.append(
                {
                    "slug": slug,
                    "title": titles[slug],
                    "section": self.section_title(slug),
                    "count": len(mine),
                    "kinds": {k: n for k, n in kinds.items() if n},
                    "difficulties": {d: sum(q.difficulty == d for q in mine) for d in DIFFICULTIES},
                }
            )
        return out


def bank_of(course: Course) -> Bank:
    """Check every quiz file of `course`; raise BankError listing every problem found."""
    quiz_dir = course.path.parent / "quizzes"
    problems: list[str] = []
    questions: list[Question] = []
    seen: dict[str, str] = {}
    # A lesson's own file first, so its questions come before the interview bank's.
    files = sorted(quiz_dir.glob("*.yaml"), key=lambda p: (p.name.startswith("bank-"), p.name))
    for path in files:
        found, wrong = read_quiz_file(path, course, seen)
        questions += found
        problems += wrong
    if not files:
        problems.append(f"{quiz_dir}: no quiz files (*.yaml)")
    if problems:
        raise BankError(problems)
    return Bank(tuple(questions), course, tuple(f"lessons/quizzes/{p.name}" for p in files))


def load_bank(lessons_dir: Path = LESSONS_DIR) -> Bank:
    """Load the course in `lessons_dir` and check every quiz file, without the cache."""
    try:
        course = load_course(Path(lessons_dir) / "course.yaml")
    except LessonError as exc:
        raise BankError([str(exc)]) from None
    return bank_of(course)


def current_bank(lessons_dir: Path = LESSONS_DIR) -> Bank:
    """Return the bank of the current course, rebuilt when any course or quiz file changed."""
    try:
        course = current_course(Path(lessons_dir))
    except LessonError as exc:
        raise BankError([str(exc)]) from None
    return course.memo("quiz bank", bank_of)
