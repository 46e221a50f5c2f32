"""The design prompts (lessons/toolkit/design.yaml) and the hang triage they end with.

A prompt is written, then self-assessed against its rubric; only the triage's choice of rank
and cause is graded here, since it has one right answer (lessons/toolkit/triage.yaml). Both
files carry their Chinese beside the English (`zh:`, app/toolkit/translation.py); `lang` picks
the text, never the answer.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from app.i18n import DEFAULT
from app.i18n.catalog import translate
from app.yamlload import safe_load

from .translation import LINES, TEXT, Entry, check_entries, each, in_language

FOLDER = Path(__file__).resolve().parents[2] / "lessons" / "toolkit"


TRIAGE_TEXT = {"scenario": TEXT, "explain": TEXT, "rubric": LINES}
CAUSE_TEXT = {"label": TEXT, "feedback": TEXT}
PROMPT_TEXT = {
    "title": TEXT,
    "summary": TEXT,
    "prompt": TEXT,
    "rubric": each("text"),
    "model_answer": LINES,
}


class TriageError(ValueError):
    """A triage answer names no rank or cause that exists; the message says what does."""


@cache
def source(name: str) -> dict:
    """lessons/toolkit/<name>.yaml, parsed."""
    return safe_load((FOLDER / f"{name}.yaml").read_text(encoding="utf-8"))


def triage_entries(data: dict) -> list[Entry]:
    """The translatable entries of the triage file: the whole, then each cause."""
    return [Entry("triage.yaml", data, TRIAGE_TEXT)] + [
        Entry(f"triage.yaml: cause {c['id']!r}", c, CAUSE_TEXT) for c in data["causes"]
    ]


def prompt_entries(data: dict) -> list[Entry]:
    """The translatable entries of the design file: each prompt."""
    return [Entry(f"design.yaml: prompt {p['id']!r}", p, PROMPT_TEXT) for p in data["prompts"]]


def load_triage(data: dict, lang: str = DEFAULT) -> dict:
    """The triage in `lang`, its translations checked (TranslationError names the field)."""
    entries = triage_entries(data)
    check_entries(entries)
    out = in_language(entries[0], lang)
    out["causes"] = [in_language(e, lang) for e in entries[1:]]
    return out


@cache
def triage(lang: str = DEFAULT) -> dict:
    """The hang: the scenario, each rank's log, the causes, the culprit, rubric and answer."""
    return load_triage(source("triage"), lang)


def load_prompts(data: dict, lang: str = DEFAULT) -> dict[str, dict]:
    """Every design prompt of a parsed design file in `lang` by id, translations checked; the
    triage prompt takes its rubric and model answer from the triage file."""
    entries = prompt_entries(data)
    check_entries(entries)
    out = {}
    for entry in entries:
        prompt = in_language(entry, lang)
        if prompt.pop("rubric_from", None) == "triage":
            prompt["rubric"] = [{"text": t} for t in triage(lang)["rubric"]]
        if prompt.pop("model_answer_from", None) == "triage":
            prompt["model_answer"] = [triage(lang)["explain"]]
        out[prompt["id"]] = prompt
    return out


@cache
def prompts(lang: str = DEFAULT) -> dict[str, dict]:
    """Every design prompt of lessons/toolkit/design.yaml in `lang`, by id."""
    return load_prompts(source("design"), lang)


def grade_triage(body: object, lang: str = DEFAULT) -> dict:
    """Grade {rank, cause}: whether each is right, why, and the explanation."""
    if not isinstance(body, dict):
        raise TriageError("body: must be a JSON object with rank and cause")
    data = triage(lang)
    ranks = [log["rank"] for log in data["logs"]]
    causes = {c["id"]: c for c in data["causes"]}
    unknown = [k for k in body if k not in ("rank", "cause")]
    if unknown:
        raise TriageError(f"unknown field {str(unknown[0])[:40]!r}; allowed: rank, cause")
    rank, cause = body.get("rank"), body.get("cause")
    if type(rank) is not int or rank not in ranks:
        raise TriageError(f"rank: must be one of {ranks}, got {str(rank)[:40]!r}")
    if not isinstance(cause, str) or cause not in causes:
        raise TriageError(f"cause: must be one of {', '.join(causes)}, got {str(cause)[:40]!r}")
    rank_ok = rank == data["culprit"]
    if rank_ok:
        rank_feedback = translate(
            lang, "Rank %(rank)s is the culprit: its last call differs from the others'.", rank=rank
        )
    else:
        rank_feedback = translate(
            lang,
            "Not rank %(rank)s: its log ends in the same collective as most ranks. "
            "Compare the OpType each rank was in at the same SeqNum.",
            rank=rank,
        )
    chosen = causes[cause]
    return {
        "rank_correct": rank_ok,
        "cause_correct": bool(chosen["correct"]),
        "correct": rank_ok and bool(chosen["correct"]),
        "rank_feedback": rank_feedback,
        "cause_feedback": chosen["feedback"],
        "explain": data["explain"] if rank_ok and chosen["correct"] else None,
    }
