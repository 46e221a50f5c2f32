"""The whole bank loads against the schema; tags, lessons and seed topics are covered; bad files
are reported with the file, the question id and the field."""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest
import yaml
from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin

from app.course import LESSONS_DIR
from app.quiz import DIFFICULTIES, KINDS, SEED_TOPICS, BankError, load_bank

COURSE = yaml.safe_load((LESSONS_DIR / "course.yaml").read_text(encoding="utf-8"))
COURSE_SLUGS = {e["slug"] for s in COURSE["sections"] for e in s["lessons"]}


def test_the_whole_bank_loads_and_has_at_least_150_questions(bank):
    assert len(bank.questions) >= 150
    assert len({q.id for q in bank.questions}) == len(bank.questions)


def test_every_kind_is_in_the_bank(bank):
    kinds = Counter(q.kind for q in bank.questions)
    assert set(kinds) == set(KINDS)
    assert kinds["numeric"] >= 20 and kinds["predict"] >= 10


def test_every_question_has_a_difficulty_and_known_tags(bank):
    for q in bank.questions:
        assert q.difficulty in DIFFICULTIES, q.id
        assert q.tags, q.id
        for tag in q.tags:
            assert COURSE["tags"].get(tag) in COURSE_SLUGS, f"{q.id}: tag {tag!r}"


def test_every_tag_maps_to_an_existing_lesson(bank):
    used = {t for q in bank.questions for t in q.tags}
    for tag in used:
        slug = COURSE["tags"][tag]
        assert slug in COURSE_SLUGS
        path = LESSONS_DIR / f"{slug}.md"
        if path.exists():  # a written lesson lists the tags it is the home of
            front = yaml.safe_load(path.read_text(encoding="utf-8").split("---", 2)[1])
            assert tag in front["tags"], f"{path.name} does not list tag {tag!r}"


def _slugify(title: str) -> str:  # the lesson renderer's heading anchors
    words = re.sub(r"[^\w\s-]", "", title.lower()).split()
    return re.sub(r"-{2,}", "-", "-".join(words)).strip("-") or "section"


@lru_cache(maxsize=64)
def _anchors(path: Path) -> set[str]:
    md = (
        MarkdownIt("commonmark")
        .use(dollarmath_plugin)
        .use(anchors_plugin, min_level=2, max_level=3, slug_func=_slugify)
    )
    body = path.read_text(encoding="utf-8").split("---", 2)[2]
    return {t.attrGet("id") for t in md.parse(body) if t.type == "heading_open"}


def test_every_lesson_link_points_at_a_lesson_and_an_existing_section(bank):
    for q in bank.questions:
        assert q.lesson in COURSE_SLUGS, q.id
        path = LESSONS_DIR / f"{q.lesson}.md"
        if q.anchor and path.exists():
            assert q.anchor in _anchors(path), f"{q.id}: no section #{q.anchor} in {path.name}"


def test_every_seed_topic_has_at_least_three_questions(bank):
    counts = Counter(s for q in bank.questions for s in q.seed_questions)
    assert len(SEED_TOPICS) == 51  # 1..50 and the second 47, "47b"
    thin = {s: counts[s] for s in SEED_TOPICS if counts[s] < 3}
    assert not thin, f"seed topics with fewer than 3 questions: {thin}"


def test_choice_questions_explain_every_option(bank):
    for q in bank.questions:
        if q.kind in ("single", "multiple"):
            assert all(o.why for o in q.options), q.id
            if q.kind == "single":
                assert sum(o.correct for o in q.options) == 1, q.id


def test_the_writers_schema_is_still_valid(scratch_lessons):
    (scratch_lessons / "quizzes" / "ring-allreduce.yaml").write_text(
        """
- id: ring-steps
  kind: single
  difficulty: warm-up
  tags: [ring-allreduce]
  seed_questions: [3]
  prompt: How many steps does ring allreduce take on p ranks?
  options:
    - {text: "$2(p-1)$", correct: true, why: "p-1 to reduce-scatter, p-1 to allgather."}
    - {text: "$\\\\log_2 p$", correct: false, why: "That is recursive doubling."}
""",
        encoding="utf-8",
    )
    loaded = load_bank(scratch_lessons)
    (q,) = loaded.questions
    assert q.lesson == "ring-allreduce"  # a <slug>.yaml file's questions belong to that lesson
    assert q.lesson_url == "/lessons/ring-allreduce"


GOOD = {
    "id": "q1",
    "kind": "single",
    "difficulty": "warm-up",
    "tags": ["ring-allreduce"],
    "seed_questions": [3],
    "prompt": "Which?",
    "options": [
        {"text": "A", "correct": True, "why": "Because."},
        {"text": "B", "correct": False, "why": "Not."},
    ],
}
NUMERIC = {
    "id": "n1",
    "kind": "numeric",
    "difficulty": "interview",
    "tags": ["cost-model"],
    "seed_questions": [4],
    "prompt": "Ring allreduce on {ranks} ranks?",
    "parameters": {"ranks": {"choices": [4, 8]}},
    "answer": {
        "function": "cost",
        "args": {
            "collective": "allreduce",
            "algorithm": "ring",
            "ranks": "ranks",
            "message_bytes": 1e6,
            "latency_us": 5,
            "bandwidth_gbs": 25,
        },
        "result": "time_s",
    },
    "unit": "ms",
}
PREDICT = {
    "id": "p1",
    "kind": "predict",
    "difficulty": "interview",
    "tags": ["ring-allreduce"],
    "prompt": "Rank {rank} in step {step}?",
    "predict": {
        "ask": "sends",
        "cases": [{"collective": "allreduce", "algorithm": "ring", "ranks": [4]}],
    },
}


def _with(base: dict, path: str, value):
    data = yaml.safe_load(yaml.safe_dump(base))
    *head, last = path.split(".")
    target = data
    for key in head:
        target = target[int(key)] if isinstance(target, list) else target[key]
    if value is KeyError:
        del target[last]
    elif isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return data


BAD = [
    (_with(GOOD, "kind", "essay"), "q1", "kind"),
    (_with(GOOD, "difficulty", "hard"), "q1", "difficulty"),
    (_with(GOOD, "tags", ["ring"]), "q1", "tags"),
    (_with(GOOD, "seed_questions", [51]), "q1", "seed_questions"),
    (_with(GOOD, "options.1.correct", True), "q1", "options"),
    (_with(GOOD, "options.0.why", KeyError), "q1", "options[1].why"),
    (_with(GOOD, "lesson", "no-such-lesson"), "q1", "lesson"),
    (_with(GOOD, "prompt", ""), "q1", "prompt"),
    (_with(GOOD, "colour", "red"), "q1", "colour"),
    (_with(NUMERIC, "answer.function", "eval"), "n1", "answer.function"),
    (_with(NUMERIC, "answer.result", "speed"), "n1", "answer.result"),
    (_with(NUMERIC, "unit", "GB/s"), "n1", "unit"),
    (_with(NUMERIC, "answer.args.ranks", "__import__('os')"), "n1", "answer.args.ranks"),
    (_with(NUMERIC, "answer.args.ranks", "nodes"), "n1", "answer.args.ranks"),
    (_with(NUMERIC, "prompt", "On {nodes} nodes?"), "n1", "prompt"),
    (_with(NUMERIC, "parameters.ranks", {"choices": [1, 0]}), "n1", "answer"),
    (_with(NUMERIC, "parameters.ranks", {"hardware": ["nvlink9"]}), "n1", "parameters.ranks"),
    (_with(PREDICT, "predict.ask", "guess"), "p1", "predict.ask"),
    (_with(PREDICT, "predict.cases.0.algorithm", "spiral"), "p1", "predict.cases[1]"),
    (_with(PREDICT, "predict.ask", "holds"), "p1", "predict.cases[1]"),
    (
        {
            "id": "o1",
            "kind": "order",
            "difficulty": "warm-up",
            "tags": ["hierarchical"],
            "prompt": "Order",
            "items": ["a", "b"],
            "explanation": "x",
        },
        "o1",
        "items",
    ),
    (
        {
            "id": "o2",
            "kind": "order",
            "difficulty": "warm-up",
            "tags": ["hierarchical"],
            "prompt": "Order",
            "items": ["a", "b", "c"],
        },
        "o2",
        "explanation",
    ),
    (
        {
            "id": "m1",
            "kind": "match",
            "difficulty": "warm-up",
            "tags": ["primitives"],
            "prompt": "Match",
            "pairs": [
                {"left": "a", "right": "x"},
                {"left": "b", "right": "x"},
                {"left": "c", "right": "y"},
            ],
        },
        "m1",
        "pairs",
    ),
    (
        {
            "id": "e1",
            "kind": "explain",
            "difficulty": "warm-up",
            "tags": ["primitives"],
            "prompt": "Explain",
            "model_answer": "Because.",
            "checklist": ["one"],
        },
        "e1",
        "checklist",
    ),
]


@pytest.mark.parametrize(("question", "qid", "field"), BAD)
def test_a_bad_question_is_reported_with_file_id_and_field(scratch_lessons, question, qid, field):
    (scratch_lessons / "quizzes" / "bank-broken.yaml").write_text(
        yaml.safe_dump([question], allow_unicode=True), encoding="utf-8"
    )
    with pytest.raises(BankError) as info:
        load_bank(scratch_lessons)
    (problem,) = info.value.problems
    assert problem.startswith(f"lessons/quizzes/bank-broken.yaml: question {qid}: ")
    assert f"'{field}'" in problem or f"field '{field}" in problem, problem


def test_every_problem_is_reported_at_once(scratch_lessons):
    questions = [_with(GOOD, "difficulty", "hard"), _with(_with(GOOD, "id", "q2"), "tags", [])]
    (scratch_lessons / "quizzes" / "bank-two.yaml").write_text(
        yaml.safe_dump(questions), encoding="utf-8"
    )
    (scratch_lessons / "quizzes" / "bank-yaml.yaml").write_text("- id: [unclosed", encoding="utf-8")
    with pytest.raises(BankError) as info:
        load_bank(scratch_lessons)
    assert len(info.value.problems) == 3
    assert "bank-yaml.yaml" in str(info.value)


def test_a_duplicate_id_names_both_files(scratch_lessons):
    for name in ("bank-a.yaml", "bank-b.yaml"):
        (scratch_lessons / "quizzes" / name).write_text(yaml.safe_dump([GOOD]), encoding="utf-8")
    with pytest.raises(
        BankError,
        match=r"bank-b.yaml: question q1: field 'id': already used in "
        r"lessons/quizzes/bank-a.yaml",
    ):
        load_bank(scratch_lessons)
