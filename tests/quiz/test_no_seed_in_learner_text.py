"""No learner reads "the seed" (the private list of interview questions the course answers):
a claim from it is "a common interview answer claims …" with its correction (issue 16)."""

from __future__ import annotations

import re

from app import yamlload
from app.course import LESSONS_DIR

# Fields no learner sees: ids and metadata, and the machinery of numeric and predict templates.
HIDDEN = {"id", "kind", "difficulty", "tags", "seed_questions", "lesson", "correct"}
HIDDEN |= {"parameters", "answer", "plus", "divide_by", "scale", "tolerance", "predict"}
SEED = re.compile(r"seed", re.IGNORECASE)


def learner_strings(value, where: str):
    """Yield (where, text) for every string a learner may read in a question's YAML."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from learner_strings(item, f"{where}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in HIDDEN:
                yield from learner_strings(item, f"{where}.{key}")


def test_no_learner_visible_field_of_any_question_mentions_the_seed():
    files = sorted((LESSONS_DIR / "quizzes").glob("*.yaml"))
    found = []
    for path in files:
        data = yamlload.safe_load(path.read_text(encoding="utf-8"))
        questions = data.get("questions", []) if isinstance(data, dict) else data
        for q in questions:
            found += [
                f"{path.name}: {q['id']}{where}: {text[:80]}"
                for where, text in learner_strings(q, "")
                if SEED.search(text)
            ]
    assert len(files) > 20 and not found, "\n".join(found)


def test_the_walk_reaches_every_kind_of_learner_text():
    question = {
        "id": "x",
        "seed_questions": [3],
        "prompt": "p",
        "options": [{"text": "t", "why": "The seed says so.", "correct": False}],
        "pairs": [{"left": "l", "right": "r"}],
        "checklist": ["c"],
        "hints": ["h"],
        "model_answer": "m",
    }
    texts = dict(learner_strings(question, ""))
    assert texts[".options[0].why"] == "The seed says so."
    assert set(texts) == {
        ".prompt",
        ".options[0].text",
        ".options[0].why",
        ".pairs[0].left",
        ".pairs[0].right",
        ".checklist[0]",
        ".hints[0]",
        ".model_answer",
    }
