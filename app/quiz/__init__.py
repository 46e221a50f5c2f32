"""The interview-prep quiz: one question bank, graded on the server, with generated questions.

- `questions`: the question model; `schema`: the one schema every quiz file is checked against.
- `bank`: every lessons/quizzes/*.yaml of the course, checked (`load_bank`, `current_bank`).
- `generators`: numeric templates answered by `app.costs`; predict questions drawn from the engine.
- `present`: a question's public form, with no answer in it.
- `grading`: grade a submission and explain it.
- `select`: pick the questions of one quiz or mock interview.
- `tokens`: sign drawn parameters and make opaque option ids (HMAC with SECRET_KEY, which the
  web layer keeps stable across restarts and processes).

Pure Python over `app.costs` and `app.collectives`; nothing here imports Flask.
"""

from app.course import SEED_TOPICS

from .bank import Bank, BankError, current_bank, load_bank
from .grading import AlreadyGraded, StaleQuestion, SubmissionError, grade
from .present import public
from .questions import DIFFICULTIES, KINDS, Question

__all__ = [
    "AlreadyGraded",
    "DIFFICULTIES",
    "KINDS",
    "SEED_TOPICS",
    "Bank",
    "BankError",
    "Question",
    "StaleQuestion",
    "SubmissionError",
    "current_bank",
    "grade",
    "load_bank",
    "public",
]
