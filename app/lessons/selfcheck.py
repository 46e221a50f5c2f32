"""A lesson's self-check: check lessons/quizzes/<slug>.yaml and place the graded quiz for it.

The questions are shown and graded by the quiz (app/quiz, static/js/quiz.js), so the page holds
no question text and no answer; this module checks the file when the lesson renders, so a
broken quiz file is a render error naming it. The file is a YAML list of questions:

    - id: ring-steps
      kind: single            # or multiple
      prompt: How many steps does ring allreduce take on p ranks?
      options:
        - {text: "$2(p-1)$", correct: true, why: "p-1 to reduce-scatter, p-1 to allgather."}
        - {text: "$\\log_2 p$", correct: false, why: "That is recursive doubling."}
      tags: [ring-allreduce]
      seed_questions: [3]
      difficulty: warm-up     # warm-up | interview | deep-dive
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path

import yaml

from app import yamlload

from .loader import Course, LessonError, seed_label

KINDS = ("single", "multiple")
DIFFICULTIES = ("warm-up", "interview", "deep-dive")


@dataclass(frozen=True)
class Option:
    text: str
    correct: bool
    why: str = ""


@dataclass(frozen=True)
class Question:
    id: str
    kind: str
    prompt: str
    options: tuple[Option, ...]
    tags: tuple[str, ...] = ()
    seed_questions: tuple[str, ...] = ()
    difficulty: str | None = None


def load_quiz(path: Path, course: Course) -> list[Question]:
    """Read and check one quiz file; a problem raises LessonError naming file and question."""
    where = f"{path.parent.parent.name}/{path.parent.name}/{path.name}"
    try:
        data = yamlload.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LessonError(f"{where}: no such quiz file") from None
    except yaml.YAMLError as exc:
        raise LessonError(f"{where}: not valid YAML: {exc}") from None
    if isinstance(data, dict):
        data = data.get("questions")
    if not isinstance(data, list) or not data:
        raise LessonError(f"{where}: expected a non-empty list of questions")
    questions, seen = [], set()
    for n, raw in enumerate(data, start=1):
        question = _question(raw, f"{where}: question {n}", course)
        if question.id in seen:
            raise LessonError(f"{where}: question {n}: id {question.id!r} is used twice")
        seen.add(question.id)
        questions.append(question)
    return questions


def _question(raw: object, where: str, course: Course) -> Question:
    if not isinstance(raw, dict):
        raise LessonError(f"{where}: must be a mapping")
    qid = raw.get("id")
    if not isinstance(qid, str | int) or isinstance(qid, bool) or not str(qid).strip():
        raise LessonError(f"{where}: field 'id' must be a string, got {qid!r}")
    where = f"{where} ({qid})"
    kind = raw.get("kind")
    if kind not in KINDS:
        raise LessonError(f"{where}: field 'kind' must be single or multiple, got {kind!r}")
    prompt = raw.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise LessonError(f"{where}: field 'prompt' must be a non-empty string")
    raw_options = raw.get("options")
    if not isinstance(raw_options, list) or len(raw_options) < 2:
        raise LessonError(f"{where}: field 'options' must list at least two options")
    options = []
    for i, opt in enumerate(raw_options, start=1):
        if not isinstance(opt, dict) or not isinstance(opt.get("text"), str | int | float):
            raise LessonError(f"{where}: option {i} needs a 'text'")
        if not isinstance(opt.get("correct"), bool):
            raise LessonError(f"{where}: option {i}: 'correct' must be true or false")
        why = opt.get("why", "")
        if not isinstance(why, str):
            raise LessonError(f"{where}: option {i}: 'why' must be a string")
        options.append(Option(str(opt["text"]), opt["correct"], why.strip()))
    right = sum(o.correct for o in options)
    if kind == "single" and right != 1:
        raise LessonError(
            f"{where}: a 'single' question needs exactly one correct option, has {right}"
        )
    if kind == "multiple" and right < 1:
        raise LessonError(f"{where}: a 'multiple' question needs at least one correct option")
    tags = raw.get("tags") or []
    unknown = [t for t in tags if t not in course.tags] if isinstance(tags, list) else tags
    if unknown:
        raise LessonError(f"{where}: field 'tags': {unknown!r} not in course.yaml's vocabulary")
    try:
        seeds = tuple(seed_label(q) for q in raw.get("seed_questions") or [])
    except ValueError as exc:
        raise LessonError(f"{where}: field 'seed_questions': {exc}") from None
    difficulty = raw.get("difficulty")
    if difficulty is not None and difficulty not in DIFFICULTIES:
        raise LessonError(f"{where}: field 'difficulty' must be one of {', '.join(DIFFICULTIES)}")
    return Question(str(qid), kind, prompt, tuple(options), tuple(tags), seeds, difficulty)


def render_self_check(slug: str, questions: list[Question]) -> str:
    """Show the self-check as a server-graded quiz: no question text and no answer in the page.

    static/js/quiz.js (the /quiz runner, see docs/quiz.md) fetches this lesson's questions from
    the quiz bank (GET /api/quiz/questions?mode=lesson&lesson=<slug>&count=N, the file's own
    questions first and in order) and grades every answer at POST /api/quiz/answer. Without the
    script the section links to the quiz page for this lesson.
    """
    count = len(questions)
    plural = "s" if count != 1 else ""
    return (
        f'<section class="self-check quiz-embed" data-quiz="{escape(slug)}" '
        f'data-quiz-lesson="{escape(slug)}" data-quiz-count="{count}" '
        f'aria-label="Self-check questions">'
        f'<p class="quiz-embed-fallback">{count} self-check question{plural} on this lesson: '
        f'<a href="/quiz?topics={escape(slug)}">answer them on the quiz page</a>, graded on the '
        f"server, with an explanation for every option.</p></section>"
    )
