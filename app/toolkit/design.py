"""The design prompts (lessons/toolkit/design.yaml) and the hang triage they end with.

A prompt is written, then self-assessed against its rubric; only the triage's choice of rank
and cause is graded here, since it has one right answer (lessons/toolkit/triage.yaml).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from app.yamlload import safe_load

FOLDER = Path(__file__).resolve().parents[2] / "lessons" / "toolkit"


class TriageError(ValueError):
    """A triage answer names no rank or cause that exists; the message says what does."""


@cache
def triage() -> dict:
    """The hang: the scenario, each rank's log, the causes, the culprit, rubric and answer."""
    return safe_load((FOLDER / "triage.yaml").read_text(encoding="utf-8"))


@cache
def prompts() -> dict[str, dict]:
    """Every design prompt by id; the triage prompt takes its rubric from the triage file."""
    out = {}
    for raw in safe_load((FOLDER / "design.yaml").read_text(encoding="utf-8"))["prompts"]:
        prompt = dict(raw)
        if prompt.pop("rubric_from", None) == "triage":
            prompt["rubric"] = [{"text": t} for t in triage()["rubric"]]
        if prompt.pop("model_answer_from", None) == "triage":
            prompt["model_answer"] = [triage()["explain"]]
        out[prompt["id"]] = prompt
    return out


def grade_triage(body: object) -> dict:
    """Grade {rank, cause}: whether each is right, why, and the explanation."""
    if not isinstance(body, dict):
        raise TriageError("body: must be a JSON object with rank and cause")
    data = triage()
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
        rank_feedback = f"Rank {rank} is the culprit: its last call differs from the others'."
    else:
        rank_feedback = (
            f"Not rank {rank}: its log ends in the same collective as most ranks. "
            "Compare the OpType each rank was in at the same SeqNum."
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
