"""A lesson's self-check: check lessons/quizzes/<slug>.yaml and place the graded quiz for it.

The questions are shown and graded by the quiz (app/quiz, static/js/quiz.js), so the page holds
no question text and no answer; this module checks the file when the lesson renders, against
the quiz bank's one schema (app/quiz/schema.py), so a broken quiz file is a render error naming
it, the question and the field.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from app.course import Course, LessonError
from app.i18n.catalog import translate
from app.quiz.questions import Question
from app.quiz.schema import display, read_quiz_file


def load_quiz(path: Path, course: Course) -> list[Question]:
    """Read and check one quiz file; a problem raises LessonError naming file and question."""
    if not path.is_file():
        raise LessonError(f"{display(path)}: no such quiz file")
    questions, problems = read_quiz_file(path, course)
    if problems:
        raise LessonError("; ".join(problems))
    if not questions:
        raise LessonError(f"{display(path)}: expected a non-empty list of questions")
    return questions


def render_self_check(slug: str, questions: list[Question], language: str = "en") -> str:
    """Show the self-check as a server-graded quiz: no question text and no answer in the page.

    static/js/quiz.js (the /quiz runner, see docs/quiz.md) fetches N questions as long as the
    file (GET /api/quiz/questions?mode=lesson&lesson=<slug>&count=N): some of the file's own,
    the rest drawn from the whole bank on the lesson's topic, fresh numbers and predicted steps
    first, leaving out whatever needs a later lesson (app/quiz/fit.py). Every answer is graded at
    POST /api/quiz/answer. Without the script the section links to the quiz page for this
    lesson.
    """
    count = len(questions)
    link = f'<a href="/quiz?topics={escape(slug)}">'
    fallback = translate(
        language,
        "%(count)s self-check questions on this lesson: %(link)sanswer them on the quiz "
        "page%(end)s, graded on the server, with an explanation for every option.",
        count=count,
        link=link,
        end="</a>",
    )
    label = translate(language, "Self-check questions")
    return (
        f'<section class="self-check quiz-embed" data-quiz="{escape(slug)}" '
        f'data-quiz-lesson="{escape(slug)}" data-quiz-count="{count}" '
        f'aria-label="{escape(label)}">'
        f'<p class="quiz-embed-fallback">{fallback}</p></section>'
    )
