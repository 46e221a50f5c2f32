"""The quiz's JSON API: questions go out without answers; grading is here.

- `GET /api/quiz/topics` — lessons with their question counts.
- `GET /api/quiz/questions?topics=&difficulty=&kinds=&count=&mode=&ids=&lesson=` — fresh
  questions (numeric and predict ones drawn anew, signed with SECRET_KEY), each with the
  chosen topic it was selected for.
- `GET /api/quiz/review?ids=` — fresh copies of the questions a learner's browser scheduled for
  review (spaced repetition, kept in localStorage); ids no longer in the bank come back in
  `unknown` rather than as an error, since a stored list may outlive a question.
- `POST /api/quiz/answer` — `{id, answer, params?, token?}` → the verdict and why; ids or a
  token made with another key, or a draw past its lifetime, get 400 with `stale: true` (the
  page offers a fresh question); a drawn question answered a second time gets 409.

Bad input gets 400 with `{"error": "..."}` naming the field; a bank that does not load gets 503
with the bank's problems (an authoring error, fixed in lessons/quizzes/).
"""

from __future__ import annotations

import random
from functools import partial
from pathlib import Path

from flask import Blueprint, current_app, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from app.i18n.errors import translate_error
from app.quiz import (
    DIFFICULTIES,
    KINDS,
    AlreadyGraded,
    BankError,
    StaleQuestion,
    SubmissionError,
    current_bank,
    grade,
    public,
)
from app.quiz.fit import draw_self_check
from app.quiz.schema import ID
from app.quiz.select import (
    MOCK_SECONDS,
    balanced,
    candidates,
    chosen_topic,
    mock_interview,
)
from app.quiz.tokens import GradedDraws

from ..errors import InputError
from ..i18n import page_language

bp = Blueprint("quiz_api", __name__)

MAX_BODY = 16 * 1024  # an answer is a few ids, a number or a paragraph
MAX_COUNT = 50
MAX_IDS = 50
MODES = ("practice", "mock", "lesson")
MAX_REVIEW = 50  # the review page asks for the due questions, oldest first, 50 at most


def _secret() -> str:
    """Return the signing key: configured, or kept in the instance folder (app/web/factory.py)."""
    return current_app.config["SECRET_KEY"]


def _graded() -> GradedDraws:
    """Return this app's record of graded draws (per process: see docs/quiz.md)."""
    graded = current_app.extensions.get("quiz_graded_draws")
    if graded is None:
        graded = current_app.extensions.setdefault("quiz_graded_draws", GradedDraws())
    return graded


def app_bank():
    """Return the quiz bank of this app's lessons folder (LESSONS_DIR, default ./lessons), in
    the request's language: the same questions, ids and answers, in the reader's words."""
    directory = current_app.config.get("LESSONS_DIR")
    bank = current_bank(Path(directory)) if directory else current_bank()
    return bank.in_language(page_language())


@bp.errorhandler(BankError)
def bank_unavailable(exc: BankError):
    """Answer 503 with the bank's problems: an authoring error, fixed in lessons/quizzes/."""
    return jsonify(error="the question bank does not load", problems=exc.problems), 503


@bp.get("/api/quiz/topics")
def topics():
    """List every lesson with how many questions of each kind and difficulty it has."""
    bank = app_bank()
    return jsonify(
        topics=bank.topics(),
        difficulties=list(DIFFICULTIES),
        kinds=list(KINDS),
        total=len(bank.questions),
    )


def split_list(value: str) -> list[str]:
    return [v for v in (part.strip() for part in value.split(",")) if v]


def _list_arg(name: str, allowed, limit: int = MAX_IDS) -> list[str]:
    values = [v for raw in request.args.getlist(name) for v in split_list(raw)]
    if len(values) > limit:
        raise InputError(f"{name}: at most {limit} values")
    unknown = [v for v in values if v not in allowed]
    if unknown:
        shown = ", ".join(list(allowed)[:60])
        raise InputError(f"{name}: unknown value {unknown[0][:60]!r}; allowed: {shown}")
    return list(dict.fromkeys(values))


def _count() -> int:
    raw = request.args.get("count", "10")
    # ASCII digits only: str.isdigit() also accepts "²" and "①", which int() refuses.
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 4) or not 1 <= int(raw) <= MAX_COUNT:
        raise InputError(f"count: must be an integer in 1..{MAX_COUNT}, got {raw[:20]!r}")
    return int(raw)


@bp.get("/api/quiz/questions")
def questions():
    """Return fresh questions for the filters, without answers."""
    bank = app_bank()
    rng = random.Random()
    mode = request.args.get("mode", "practice")
    if mode not in MODES:
        raise InputError(f"mode: must be one of {', '.join(MODES)}, got {mode[:20]!r}")
    topics = _list_arg("topics", bank.course.slugs)
    kinds = _list_arg("kinds", KINDS)
    difficulty = request.args.get("difficulty") or None
    if difficulty is not None and difficulty not in DIFFICULTIES:
        raise InputError(
            f"difficulty: must be one of {', '.join(DIFFICULTIES)}, got {difficulty[:20]!r}"
        )
    ids = _list_arg("ids", bank.by_id)
    count = _count()
    if mode == "lesson":
        lesson = request.args.get("lesson", "")
        if lesson not in bank.course.slugs:
            raise InputError(f"lesson: {lesson[:60]!r} is not a lesson slug in course.yaml")
        topics = [lesson]
    # Each question counts for the chosen topic that selected it (results say so).
    topic_of = partial(chosen_topic, bank, topics=topics)
    if mode == "lesson":
        chosen = draw_self_check(bank, topics[0], count, rng)
    elif ids:
        chosen = [bank.by_id[i] for i in ids]
        rng.shuffle(chosen)
    else:
        pool = candidates(bank, topics=topics, difficulty=difficulty, kinds=kinds)
        if mode == "mock":
            chosen = mock_interview(bank, pool, rng, topic_of)
        else:
            chosen = balanced(pool, count, rng, topic_of)
    return jsonify(
        mode=mode,
        count=len(chosen),
        time_limit_s=MOCK_SECONDS if mode == "mock" else None,
        questions=[public(bank, q, _secret(), rng, chosen_for=topic_of(q)) for q in chosen],
    )


@bp.get("/api/quiz/review")
def review():
    """Return fresh copies of the questions due for review; report ids the bank no longer has."""
    bank = app_bank()
    ids = list(dict.fromkeys(split_list(",".join(request.args.getlist("ids")))))
    if len(ids) > MAX_REVIEW:
        raise InputError(f"ids: at most {MAX_REVIEW} question ids, got {len(ids)}")
    malformed = next((i for i in ids if not ID.fullmatch(i)), None)
    if malformed is not None:
        raise InputError(
            f"ids: {malformed[:60]!r} is not a question id (a letter or digit, then letters, "
            "digits, '-', '_' or '.'; at most 96 characters)"
        )
    rng = random.Random()
    chosen = [bank.by_id[i] for i in ids if i in bank.by_id]
    return jsonify(
        mode="review",
        count=len(chosen),
        time_limit_s=None,
        questions=[public(bank, q, _secret(), rng) for q in chosen],
        unknown=[i for i in ids if i not in bank.by_id],
    )


@bp.post("/api/quiz/answer")
def answer():
    """Grade one answer and say why it is right or wrong."""
    length = request.content_length
    if length is not None and length > MAX_BODY:
        raise InputError(f"body: at most {MAX_BODY} bytes, got {length}")
    try:
        raw = request.get_data(cache=True)
    except RequestEntityTooLarge:
        raise InputError(f"body: at most {MAX_BODY} bytes") from None
    if len(raw) > MAX_BODY:
        raise InputError(f"body: at most {MAX_BODY} bytes, got {len(raw)}")
    try:
        body = request.get_json(force=True, silent=True)
    except RecursionError:  # thousands of nested brackets: not an answer
        body = None
    if body is None:
        raise InputError("body: must be a JSON object with id and answer")
    bank = app_bank()
    try:
        return jsonify(grade(bank, body, _secret(), _graded()))
    except AlreadyGraded as exc:
        # Nothing of the verdict again: it may show the answer.
        return jsonify(error=translate_error(page_language(), str(exc))), 409
    except StaleQuestion as exc:
        # Not the learner's mistake: the page says why and offers a fresh question.
        return jsonify(error=str(exc), stale=True), 400
    except SubmissionError as exc:
        raise InputError(str(exc)) from None


@bp.errorhandler(RequestEntityTooLarge)
def body_too_large(exc: RequestEntityTooLarge):
    """Name the field when a body is past MAX_CONTENT_LENGTH, as for one past MAX_BODY."""
    return jsonify(error=f"body: at most {MAX_BODY} bytes"), 400
