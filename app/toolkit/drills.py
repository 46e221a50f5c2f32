"""Whiteboard derivation drills: steps answered one at a time with a formula, checked here.

The drills are data (lessons/toolkit/drills.yaml). A step's answer is right when it equals the
model formula at random points (app/toolkit/expressions.py). A wrong one gets the feedback of
the authored mistake it equals, or else a sentence from its ratio to the model answer, so that
"off by the (p−1)/p factor" is said wherever it happens, and always the step's hint.
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from app.yamlload import safe_load

from . import expressions as ex

DRILLS_FILE = Path(__file__).resolve().parents[2] / "lessons" / "toolkit" / "drills.yaml"
POINTS = 8  # random points per comparison: a false match needs a root at all of them
INTEGER_NAMES = ("p", "g", "N")  # counts of ranks, GPUs and nodes: drawn as whole numbers


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


@cache
def drills() -> dict[str, Drill]:
    """Load every drill of lessons/toolkit/drills.yaml, in file order, by id."""
    data = safe_load(DRILLS_FILE.read_text(encoding="utf-8"))
    out = {}
    for raw in data["drills"]:
        variables = tuple(raw["variables"])
        derived = dict(raw.get("derived", {}))
        names = variables + tuple(derived)
        out[raw["id"]] = Drill(
            id=raw["id"],
            title=raw["title"],
            summary=raw["summary"],
            lesson=raw["lesson"],
            setup=raw["setup"],
            legend=raw["legend"],
            variables=variables,
            derived=derived,
            steps=tuple(_step(s, names) for s in raw["steps"]),
        )
    return out


def find(drill_id: str, step: object) -> tuple[Drill, int]:
    """Return the drill and the step index, or raise DrillError naming the field."""
    drill = drills().get(drill_id)
    if drill is None:
        raise DrillError(f"drill: no drill {drill_id[:60]!r}; there are {', '.join(drills())}")
    last = len(drill.steps) - 1
    if type(step) is not int or not 0 <= step <= last:
        raise DrillError(f"step: must be an integer from 0 to {last}, got {str(step)[:40]!r}")
    return drill, step


def check(drill_id: str, step: object, answer: object, rng: random.Random) -> dict:
    """Check one answer: {correct, feedback, hint, explain?, model?, next}.

    `next` is the index of the following step, or None after the last one. The model answer
    and explanation come back only when the answer is right (reveal gives them otherwise).
    """
    drill, index = find(drill_id, step)
    current = drill.steps[index]
    tree = ex.parse(answer, drill.names, "answer")  # ExpressionError: a 400 naming `answer`
    points = drill.points(rng)
    following = index + 1 if index + 1 < len(drill.steps) else None
    if ex.same(tree, current.answer, points):
        return {
            "correct": True,
            "feedback": "Right.",
            "explain": current.explain,
            "model": current.answer_text,
            "next": following,
        }
    return {
        "correct": False,
        "feedback": _diagnose(drill, current, tree, points),
        "hint": current.hint,
        "next": index,
    }


def reveal(drill_id: str, step: object) -> dict:
    """Return the step's model answer and explanation, and the next step."""
    drill, index = find(drill_id, step)
    current = drill.steps[index]
    following = index + 1 if index + 1 < len(drill.steps) else None
    return {"model": current.answer_text, "explain": current.explain, "next": following}


def _diagnose(drill: Drill, step: Step, tree: ast.expr, points: list[dict]) -> str:
    """Name the likely mistake: an authored one, else what the ratio to the model says."""
    for mistake in step.mistakes:
        if ex.same(tree, mistake.answer, points):
            return mistake.feedback
    ratios = ex.ratio(tree, step.answer, points)
    for factor, sentence in _factors(drill):
        expected = ex.values_at([factor], points)
        pairs = [
            (r, row[0])
            for r, row in zip(ratios, expected, strict=False)
            if row is not None and row[0] != 0
        ]
        if len(pairs) == len(ratios) and ratios and all(ex.close(r, f) for r, f in pairs):
            return sentence
    if ratios and all(ex.close(r, ratios[0]) for r in ratios):
        return (
            f"Your formula is {ratios[0]:.4g} × the model answer: "
            "check the count of phases or steps."
        )
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    needed = {n.id for n in ast.walk(step.answer) if isinstance(n, ast.Name)}
    if needed - used:
        return f"Not yet: the answer depends on {', '.join(sorted(needed - used))} too."
    if used - needed:
        return f"Not yet: the answer does not depend on {', '.join(sorted(used - needed))}."
    return "Not equivalent to the model answer."


def _factors(drill: Drill) -> list[tuple[ast.expr, str]]:
    """The ratios (your answer ÷ the model's) that name a mistake, for each count in the drill."""
    out = []
    for v in (n for n in drill.names if n in INTEGER_NAMES):
        out += [
            (f"({v}-1)/{v}", f"Off by the ({v}−1)/{v} factor: yours is ({v}−1)/{v} of the answer."),
            (f"{v}/({v}-1)", f"Off by the ({v}−1)/{v} factor: multiply by ({v}−1)/{v}."),
            (f"{v}", f"Off by a factor of {v}: per chunk (÷{v}) or per rank?"),
            (f"1/{v}", f"Off by a factor of {v}: one chunk is M/{v}, but count them all."),
        ]
    out += [
        ("2", "Twice the answer: did you count a phase twice?"),
        ("1/2", "Half the answer: a phase is missing (AllReduce = reduce-scatter + allgather)."),
    ]
    return [(ex.parse(text, drill.names, "factor"), sentence) for text, sentence in out]
