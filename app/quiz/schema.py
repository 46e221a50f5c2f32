"""The one question schema: every quiz file (a lesson's self-check or the interview bank) is
checked here, and a problem names the file, the question id and the field.

A quiz file is a YAML list of questions (or a mapping with a `questions` list). Every question has:

    id:             unique across the bank (letters, digits, - _ .)
    kind:           single | multiple | numeric | predict | order | match | explain
    difficulty:     warm-up | interview | deep-dive
    tags:           tags from lessons/course.yaml (at least one)
    seed_questions: seed topics it covers: 1..50 or "47b" (may be empty)
    prompt:         Markdown; numeric and predict prompts may use {placeholders}
    lesson:         optional "slug" or "slug#anchor" for the "read the lesson" link
                    (default: the file's lesson for <slug>.yaml, else the first tag's lesson)
    explanation:    optional Markdown shown after answering (required for order)

and, by kind:

    single, multiple: options: [{text, correct, why}]   (single: exactly one correct)
    numeric:   parameters, answer {function, args, result}, divide_by?, unit, tolerance?
               (see app/quiz/generators/ and docs/quiz.md)
    predict:   predict: {ask, cases: [{collective, algorithm, ranks, root?, ranks_per_node?}]}
    order:     items: [...]  in the right order
    match:     pairs: [{left, right, why?}], distractors?: [extra right-hand items]
    explain:   model_answer, checklist: [...]   (self-assessed, not auto-graded)
"""

from __future__ import annotations

import random
import re
from dataclasses import replace
from pathlib import Path

import yaml

from app import yamlload
from app.costs import CostError
from app.course import Course, seed_label

from . import generators
from .generators import NumericSpec, TemplateError
from .questions import DIFFICULTIES, KINDS, Option, Pair, Question
from .text import TextError, render
from .translation import read_translations

ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")
LESSON_REF = re.compile(r"^([a-z0-9]+(?:-[a-z0-9]+)*)(?:#([A-Za-z0-9_-]+))?$")
MAX_TEXT = 4000

COMMON = {
    "id",
    "kind",
    "difficulty",
    "tags",
    "seed_questions",
    "prompt",
    "lesson",
    "explanation",
    "zh",
}
BY_KIND = {
    "single": {"options"},
    "multiple": {"options"},
    "numeric": {"parameters", "answer", "divide_by", "plus", "scale", "unit", "tolerance"},
    "predict": {"predict"},
    "order": {"items"},
    "match": {"pairs", "distractors"},
    "explain": {"model_answer", "checklist"},
}


def display(path: Path) -> str:
    """Name a quiz file for messages, e.g. "lessons/quizzes/ring-allreduce.yaml"."""
    return f"{path.parent.parent.name}/{path.parent.name}/{path.name}"


def read_quiz_file(
    path: Path, course: Course, seen: dict[str, str] | None = None
) -> tuple[list[Question], list[str]]:
    """Check one quiz file: its good questions, and each problem as "file: question id: what".

    `seen` maps the ids already used (by other files of the bank) to their file.
    """
    label = display(path)
    seen = {} if seen is None else seen
    try:
        raw_questions = _read(path)
    except (OSError, yaml.YAMLError, _Problem) as exc:
        return [], [f"{label}: {exc}"]
    file_lesson = path.stem if path.stem in course.entries else None
    questions, problems = [], []
    for n, raw in enumerate(raw_questions, start=1):
        qid = raw.get("id") if isinstance(raw, dict) else None
        if not isinstance(qid, str) or not ID.match(qid):
            problems.append(
                f"{label}: question {n}: field 'id': must be letters, digits, - _ . "
                f"(at most 96), got {qid!r}"
            )
            continue
        if qid in seen:
            problems.append(f"{label}: question {qid}: field 'id': already used in {seen[qid]}")
            continue
        seen[qid] = label
        try:
            questions.append(_question(raw, label, file_lesson, course))
        except _Problem as exc:
            problems.append(f"{label}: question {qid}: {exc}")
    return questions, problems


def _read(path: Path) -> list:
    data = yamlload.safe_load(path.read_text(encoding="utf-8"))
    if isinstance(data, dict) and "questions" in data:
        data = data["questions"]
    if not isinstance(data, list):
        raise _Problem("expected a YAML list of questions (or a mapping with 'questions')")
    return data


class _Problem(Exception):
    """One problem with one question; collected, not raised to the caller."""


class _Fields:
    """Read one question's fields, failing with the field's name."""

    def __init__(self, raw: dict) -> None:
        self.raw = raw

    def fail(self, name: str, problem: str):
        raise _Problem(f"field '{name}': {problem}")

    def text(self, name: str, required: bool = True, raw=None) -> str:
        value = self.raw.get(name) if raw is None else raw
        if value is None and not required:
            return ""
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            self.fail(name, "must be a non-empty string")
        value = str(value).strip()
        if not value and required:
            self.fail(name, "must be a non-empty string")
        if len(value) > MAX_TEXT:
            self.fail(name, f"is longer than {MAX_TEXT} characters")
        try:
            render(value)
        except TextError as exc:
            self.fail(name, str(exc))
        return value

    def texts(self, name: str, low: int, high: int) -> tuple[str, ...]:
        value = self.raw.get(name)
        if not isinstance(value, list) or not low <= len(value) <= high:
            self.fail(name, f"must be a list of {low} to {high} strings")
        out = tuple(self.text(f"{name}[{i}]", raw=v) for i, v in enumerate(value, start=1))
        if len(set(out)) != len(out):
            self.fail(name, "has the same text twice")
        return out


def _question(raw, file: str, file_lesson: str | None, course: Course) -> Question:
    if not isinstance(raw, dict):
        raise _Problem("must be a mapping of fields")
    f = _Fields(raw)
    kind = raw.get("kind")
    if kind not in KINDS:
        f.fail("kind", f"must be one of {', '.join(KINDS)}, got {kind!r}")
    unknown = set(raw) - COMMON - BY_KIND[kind]
    if unknown:
        f.fail(", ".join(sorted(map(str, unknown))), f"not a field of a {kind} question")
    difficulty = raw.get("difficulty")
    if difficulty not in DIFFICULTIES:
        f.fail("difficulty", f"must be one of {', '.join(DIFFICULTIES)}, got {difficulty!r}")
    tags = raw.get("tags")
    if not isinstance(tags, list) or not tags or not all(isinstance(t, str) for t in tags):
        f.fail("tags", "must be a non-empty list of tags from lessons/course.yaml")
    unknown_tags = [t for t in tags if t not in course.tags]
    if unknown_tags:
        f.fail("tags", f"{unknown_tags!r} not in course.yaml's tag vocabulary")
    seeds = raw.get("seed_questions") or []
    if not isinstance(seeds, list):
        f.fail("seed_questions", 'must be a list of seed topics (1..50 or "47b")')
    try:
        seed_labels = tuple(dict.fromkeys(seed_label(s) for s in seeds))
    except ValueError as exc:
        f.fail("seed_questions", str(exc))
    lesson, anchor = _lesson(f, raw.get("lesson"), file_lesson, tags, course)
    common = dict(
        id=str(raw["id"]),
        kind=kind,
        difficulty=difficulty,
        tags=tuple(tags),
        seed_questions=seed_labels,
        prompt=f.text("prompt"),
        lesson=lesson,
        anchor=anchor,
        file=file,
        explanation=f.text("explanation", required=kind == "order"),
    )
    try:
        question = Question(**common, **_by_kind(f, kind, raw))
    except TemplateError as exc:
        raise _Problem(str(exc)) from None
    return replace(question, translations=read_translations(question, raw, f.text, f.fail))


def _lesson(f: _Fields, value, file_lesson, tags, course: Course) -> tuple[str, str | None]:
    if value is None:
        return (file_lesson or course.tags[tags[0]]), None
    match = LESSON_REF.match(value) if isinstance(value, str) else None
    if not match:
        f.fail("lesson", f"must be a lesson slug or slug#anchor, got {value!r}")
    if match.group(1) not in course.slugs:
        f.fail("lesson", f"{match.group(1)!r} is not a lesson slug in course.yaml")
    return match.group(1), match.group(2)


def _by_kind(f: _Fields, kind: str, raw: dict) -> dict:
    if kind in ("single", "multiple"):
        return {"options": _options(f, kind, raw.get("options"))}
    if kind == "order":
        return {"items": f.texts("items", 3, 8)}
    if kind == "match":
        return _match(f, raw)
    if kind == "explain":
        return {
            "model_answer": f.text("model_answer"),
            "checklist": f.texts("checklist", 2, 10),
        }
    if kind == "numeric":
        spec = generators.parse_numeric(raw)
        generators.check_placeholders(raw["prompt"], spec.names, "prompt")
        if raw.get("explanation"):
            generators.check_placeholders(raw["explanation"], spec.names, "explanation")
        _check_numeric_draws(spec)
        return {"numeric": spec}
    spec = generators.parse_predict(raw.get("predict"))
    generators.check_placeholders(raw["prompt"], generators.PREDICT_NAMES, "prompt")
    return {"predict": spec}


def _options(f: _Fields, kind: str, raw) -> tuple[Option, ...]:
    if not isinstance(raw, list) or not 2 <= len(raw) <= 8:
        f.fail("options", "must list 2 to 8 options")
    options = []
    for i, opt in enumerate(raw, start=1):
        name = f"options[{i}]"
        if not isinstance(opt, dict):
            f.fail(name, "must be a mapping with text, correct, why")
        extra = set(opt) - {"text", "correct", "why"}
        if extra:
            f.fail(name, f"unknown keys {sorted(extra)}")
        if not isinstance(opt.get("correct"), bool):
            f.fail(f"{name}.correct", "must be true or false")
        options.append(
            Option(
                f.text(f"{name}.text", raw=opt.get("text")),
                opt["correct"],
                f.text(f"{name}.why", raw=opt.get("why")),
            )
        )
    if len({o.text for o in options}) != len(options):
        f.fail("options", "two options have the same text")
    right = sum(o.correct for o in options)
    if kind == "single" and right != 1:
        f.fail("options", f"a single-choice question needs exactly one correct option, has {right}")
    if kind == "multiple" and right < 1:
        f.fail("options", "a multiple-choice question needs at least one correct option")
    return tuple(options)


def _match(f: _Fields, raw: dict) -> dict:
    pairs = raw.get("pairs")
    if not isinstance(pairs, list) or not 3 <= len(pairs) <= 8:
        f.fail("pairs", "must list 3 to 8 {left, right, why} pairs")
    out = []
    for i, pair in enumerate(pairs, start=1):
        name = f"pairs[{i}]"
        if not isinstance(pair, dict) or set(pair) - {"left", "right", "why"}:
            f.fail(name, "must be a mapping with left, right and an optional why")
        out.append(
            Pair(
                f.text(f"{name}.left", raw=pair.get("left")),
                f.text(f"{name}.right", raw=pair.get("right")),
                f.text(f"{name}.why", required=False, raw=pair.get("why")),
            )
        )
    distractors = f.texts("distractors", 1, 4) if raw.get("distractors") is not None else ()
    rights = [p.right for p in out] + list(distractors)
    if len(set(rights)) != len(rights) or len({p.left for p in out}) != len(out):
        f.fail("pairs", "left items, and right items with distractors, must all differ")
    return {"pairs": tuple(out), "distractors": distractors}


def _check_numeric_draws(spec: NumericSpec) -> None:
    """Solve many draws now, so a template that can fail is caught at load time."""
    rng = random.Random(0)
    for values in generators.all_draws(spec.params, 64, rng):
        try:
            result = generators.solve(spec, values)
        except (CostError, ArithmeticError, TypeError, ValueError, AttributeError) as exc:
            raise TemplateError(f"field 'answer': fails for parameters {values}: {exc}") from None
        if not result.value > 0 or result.value != result.value:
            raise TemplateError(
                f"field 'answer': gives {result.value} for parameters {values}; "
                "answers must be positive numbers"
            )
