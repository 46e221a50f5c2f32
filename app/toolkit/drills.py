"""Whiteboard derivation drills: steps answered one at a time with a formula, checked here.

The drills are data (lessons/toolkit/drills.yaml). A step's answer is right when it equals the
model formula at random points (app/toolkit/expressions.py). A wrong one gets the feedback of
the authored mistake it equals, or else a sentence from its ratio to the model answer, so that
"off by the (p−1)/p factor" is said wherever it happens, and always the step's hint.
Each drill and step carries its Chinese beside the English (`zh:`, app/toolkit/translation.py);
`lang` picks the text and the feedback sentences (the UI catalog), never the grading.
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from app.i18n import DEFAULT
from app.i18n.catalog import translate
from app.yamlload import safe_load

from . import expressions as ex
from .translation import TEXT, Entry, check_entries, each, in_language

DRILLS_FILE = Path(__file__).resolve().parents[2] / "lessons" / "toolkit" / "drills.yaml"
POINTS = 8  # random points per comparison: a false match needs a root at all of them
INTEGER_NAMES = ("p", "g", "N")  # counts of ranks, GPUs and nodes: drawn as whole numbers
DRILL_TEXT = {"title": TEXT, "summary": TEXT, "legend": TEXT, "setup": TEXT}
STEP_TEXT = {"prompt": TEXT, "hint": TEXT, "explain": TEXT, "mistakes": each("feedback")}


class DrillError(ValueError):
    """A request names no drill or step of it; the message says what exists."""


@dataclass(frozen=True)
class Mistake:
    """A wrong answer people often give, and what it misses."""

    answer: ast.expr
    feedback: str


@dataclass(frozen=True)
class Step:
    """One question of a drill: prompt, model answer, hint, explanation, known mistakes."""

    prompt: str
    answer_text: str
    answer: ast.expr
    hint: str
    explain: str
    mistakes: tuple[Mistake, ...]


@dataclass(frozen=True)
class Drill:
    """A derivation split into steps, over named variables."""

    id: str
    title: str
    summary: str
    lesson: str  # the slug of the lesson that teaches it
    setup: str
    legend: str
    variables: tuple[str, ...]
    derived: dict[str, str]
    steps: tuple[Step, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """Every name an answer may use: the variables and the derived ones (p = g·N)."""
        return self.variables + tuple(self.derived)

    def points(self, rng: random.Random) -> list[dict[str, float]]:
        """Draw POINTS assignments of every name, derived names computed from the others."""
        derived = {k: ex.parse(v, self.variables, k) for k, v in self.derived.items()}
        out = []
        for _ in range(POINTS):
            point = {
                name: float(rng.randint(2, 97)) if name in INTEGER_NAMES else rng.uniform(0.3, 9)
                for name in self.variables
            }
            point.update({k: ex.evaluate(tree, point) for k, tree in derived.items()})
            out.append(point)
        return out

    def public(self) -> dict:
        """Return what a page shows before any answer: no model answers."""
        return {
            "id": self.id,
            "title": self.title,
            "summary": self.summary,
            "lesson": self.lesson,
            "setup": self.setup,
            "legend": self.legend,
            "variables": list(self.names),
            "steps": [s.prompt for s in self.steps],
        }


def _step(raw: dict, names: tuple[str, ...]) -> Step:
    mistakes = tuple(
        Mistake(ex.parse(m["answer"], names, "mistake"), m["feedback"])
        for m in raw.get("mistakes", ())
    )
    return Step(
        prompt=raw["prompt"],
        answer_text=raw["answer"],
        answer=ex.parse(raw["answer"], names, "answer"),
        hint=raw["hint"],
        explain=raw["explain"],
        mistakes=mistakes,
    )


def entries(data: dict) -> list[Entry]:
    """Every translatable entry of a drills file: each drill, then each of its steps."""
    out = []
    for raw in data["drills"]:
        where = f"drills.yaml: drill {raw['id']!r}"
        out.append(Entry(where, raw, DRILL_TEXT))
        out += [
            Entry(f"{where} step {i}", step, STEP_TEXT)
            for i, step in enumerate(raw["steps"], start=1)
        ]
    return out


def load(data: dict, lang: str = DEFAULT) -> dict[str, Drill]:
    """Build every drill of a parsed drills file in `lang`, by id, after checking every
    translation block (TranslationError names the entry and the field)."""
    check_entries(entries(data))
    out = {}
    for raw in data["drills"]:
        text = in_language(Entry("", raw, DRILL_TEXT), lang)
        variables = tuple(raw["variables"])
        derived = dict(raw.get("derived", {}))
        names = variables + tuple(derived)
        steps = [in_language(Entry("", s, STEP_TEXT), lang) for s in raw["steps"]]
        out[raw["id"]] = Drill(
            id=raw["id"],
            title=text["title"],
            summary=text["summary"],
            lesson=raw["lesson"],
            setup=text["setup"],
            legend=text["legend"],
            variables=variables,
            derived=derived,
            steps=tuple(_step(s, names) for s in steps),
        )
    return out


@cache
def source() -> dict:
    """lessons/toolkit/drills.yaml, parsed."""
    return safe_load(DRILLS_FILE.read_text(encoding="utf-8"))


@cache
def drills(lang: str = DEFAULT) -> dict[str, Drill]:
    """Every drill of lessons/toolkit/drills.yaml in `lang`, in file order, by id."""
    return load(source(), lang)


def find(drill_id: str, step: object, lang: str = DEFAULT) -> tuple[Drill, int]:
    """Return the drill and the step index, or raise DrillError naming the field."""
    drill = drills(lang).get(drill_id)
    if drill is None:
        raise DrillError(f"drill: no drill {drill_id[:60]!r}; there are {', '.join(drills())}")
    last = len(drill.steps) - 1
    if type(step) is not int or not 0 <= step <= last:
        raise DrillError(f"step: must be an integer from 0 to {last}, got {str(step)[:40]!r}")
    return drill, step


def check(
    drill_id: str, step: object, answer: object, rng: random.Random, lang: str = DEFAULT
) -> dict:
    """Check one answer: {correct, feedback, hint, explain?, model?, next}.

    `next` is the index of the following step, or None after the last one. The model answer
    and explanation come back only when the answer is right (reveal gives them otherwise).
    Every language grades alike: only the text of the feedback, hint and explanation differs.
    """
    drill, index = find(drill_id, step, lang)
    current = drill.steps[index]
    tree = ex.parse(answer, drill.names, "answer")  # ExpressionError: a 400 naming `answer`
    points = drill.points(rng)
    following = index + 1 if index + 1 < len(drill.steps) else None
    if ex.same(tree, current.answer, points):
        return {
            "correct": True,
            "feedback": translate(lang, "Right."),
            "explain": current.explain,
            "model": current.answer_text,
            "next": following,
        }
    return {
        "correct": False,
        "feedback": _diagnose(drill, current, tree, points, lang),
        "hint": current.hint,
        "next": index,
    }


def reveal(drill_id: str, step: object, lang: str = DEFAULT) -> dict:
    """Return the step's model answer and explanation, and the next step."""
    drill, index = find(drill_id, step, lang)
    current = drill.steps[index]
    following = index + 1 if index + 1 < len(drill.steps) else None
    return {"model": current.answer_text, "explain": current.explain, "next": following}


def _diagnose(drill: Drill, step: Step, tree: ast.expr, points: list[dict], lang: str) -> str:
    """Name the likely mistake: an authored one, else what the ratio to the model says."""
    for mistake in step.mistakes:
        if ex.same(tree, mistake.answer, points):
            return mistake.feedback
    ratios = ex.ratio(tree, step.answer, points)
    for factor, sentence in _factors(drill, lang):
        expected = ex.values_at([factor], points)
        pairs = [
            (r, row[0])
            for r, row in zip(ratios, expected, strict=False)
            if row is not None and row[0] != 0
        ]
        if len(pairs) == len(ratios) and ratios and all(ex.close(r, f) for r, f in pairs):
            return sentence
    if ratios and all(ex.close(r, ratios[0]) for r in ratios):
        return translate(
            lang,
            "Your formula is %(ratio)s × the model answer: check the count of phases or steps.",
            ratio=f"{ratios[0]:.4g}",
        )
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    needed = {n.id for n in ast.walk(step.answer) if isinstance(n, ast.Name)}
    if needed - used:
        names = ", ".join(sorted(needed - used))
        return translate(lang, "Not yet: the answer depends on %(names)s too.", names=names)
    if used - needed:
        names = ", ".join(sorted(used - needed))
        return translate(lang, "Not yet: the answer does not depend on %(names)s.", names=names)
    return translate(lang, "Not equivalent to the model answer.")


def _factors(drill: Drill, lang: str) -> list[tuple[ast.expr, str]]:
    """The ratios (your answer ÷ the model's) that name a mistake, for each count in the drill."""
    out = []
    for v in (n for n in drill.names if n in INTEGER_NAMES):
        out += [
            (
                f"({v}-1)/{v}",
                translate(
                    lang,
                    "Off by the (%(v)s−1)/%(v)s factor: yours is (%(v)s−1)/%(v)s of the answer.",
                    v=v,
                ),
            ),
            (
                f"{v}/({v}-1)",
                translate(
                    lang, "Off by the (%(v)s−1)/%(v)s factor: multiply by (%(v)s−1)/%(v)s.", v=v
                ),
            ),
            (
                f"{v}",
                translate(lang, "Off by a factor of %(v)s: per chunk (÷%(v)s) or per rank?", v=v),
            ),
            (
                f"1/{v}",
                translate(
                    lang,
                    "Off by a factor of %(v)s: one chunk is M/%(v)s, but count them all.",
                    v=v,
                ),
            ),
        ]
    out += [
        ("2", translate(lang, "Twice the answer: did you count a phase twice?")),
        (
            "1/2",
            translate(
                lang,
                "Half the answer: a phase is missing (AllReduce = reduce-scatter + allgather).",
            ),
        ),
    ]
    return [(ex.parse(text, drill.names, "factor"), sentence) for text, sentence in out]
