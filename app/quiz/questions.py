"""A quiz question as the bank holds it: its kind, its text, and what it takes to answer it.

`schema` builds these from the YAML of lessons/quizzes/*.yaml; everything else reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .generators import NumericSpec, PredictSpec

KINDS = ("single", "multiple", "numeric", "predict", "order", "match", "explain")
DIFFICULTIES = ("warm-up", "interview", "deep-dive")


@dataclass(frozen=True)
class Option:
    """A choice: its text, whether it is right, and why."""

    text: str
    correct: bool
    why: str


@dataclass(frozen=True)
class Pair:
    """A match question's left item and the right item it goes with."""

    left: str
    right: str
    why: str = ""


@dataclass(frozen=True)
class Translation:
    """A question's text in another language: the same fields, shapes and numbers as the English.

    Options, items, pairs and checklist keep the English order, so ids, the right options and
    grading are the English question's; only what a learner reads changes.
    """

    prompt: str
    explanation: str = ""
    options: tuple[tuple[str, str], ...] = ()  # (text, why)
    items: tuple[str, ...] = ()
    pairs: tuple[tuple[str, str, str], ...] = ()  # (left, right, why)
    distractors: tuple[str, ...] = ()
    model_answer: str = ""
    checklist: tuple[str, ...] = ()


@dataclass(frozen=True)
class Question:
    """One checked question; the kind's own fields are filled, the others left empty."""

    id: str
    kind: str
    difficulty: str
    tags: tuple[str, ...]
    seed_questions: tuple[str, ...]
    prompt: str
    lesson: str  # slug
    anchor: str | None
    file: str  # e.g. "lessons/quizzes/bank-numeric.yaml"
    explanation: str = ""
    options: tuple[Option, ...] = ()
    items: tuple[str, ...] = ()
    pairs: tuple[Pair, ...] = ()
    distractors: tuple[str, ...] = ()
    model_answer: str = ""
    checklist: tuple[str, ...] = ()
    numeric: NumericSpec | None = field(default=None, compare=False)
    predict: PredictSpec | None = field(default=None, compare=False)
    translations: dict[str, Translation] = field(default_factory=dict, compare=False)

    @property
    def topic(self) -> str:
        """The lesson this question belongs to on the results chart."""
        return self.lesson

    @property
    def lesson_url(self) -> str:
        return f"/lessons/{self.lesson}" + (f"#{self.anchor}" if self.anchor else "")


def in_language(q: Question, lang: str) -> Question:
    """Return `q` as a learner reading `lang` sees it (the English when it has no translation)."""
    tr = q.translations.get(lang)
    if tr is None:
        return q
    return replace(
        q,
        prompt=tr.prompt,
        explanation=tr.explanation or q.explanation,
        options=tuple(
            Option(text, o.correct, why)
            for o, (text, why) in zip(q.options, tr.options, strict=True)
        ),
        items=tr.items or q.items,
        pairs=tuple(Pair(*p) for p in tr.pairs) or q.pairs,
        distractors=tr.distractors or q.distractors,
        model_answer=tr.model_answer or q.model_answer,
        checklist=tr.checklist or q.checklist,
        translations={},
    )
