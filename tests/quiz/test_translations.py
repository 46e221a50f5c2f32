"""The quiz in Chinese: a question's `zh:` block is checked against its English twin, and every
question grades the same in both languages.

The bad-block cases load a one-question scratch bank; the grading test walks the real bank.
"""

from __future__ import annotations

import random
import textwrap

import pytest

from app.quiz import BankError, grade, load_bank, public
from app.quiz.text import render

SECRET = "test-secret"

QUESTION = """
- id: t-choice
  kind: single
  difficulty: warm-up
  tags: [nvlink]
  prompt: An A100 has 12 NVLink links of 25 GB/s per direction. Total per direction?
  options:
    - {text: "300 GB/s", correct: true, why: "12 × 25 = 300."}
    - {text: "600 GB/s", correct: false, why: "That is the bidirectional total."}
  explanation: Count each link once per direction.
"""

ZH = """
  zh:
    prompt: A100 有 12 条 NVLink 链路，每条每方向 25 GB/s。每方向合计多少？
    options:
      - {text: "300 GB/s", why: "12 × 25 = 300。"}
      - {text: "600 GB/s", why: "这是双向合计。"}
    explanation: 每条链路每个方向只算一次。
"""


def _bank(scratch_lessons, zh: str):
    path = scratch_lessons / "quizzes" / "bank-t.yaml"
    path.write_text(textwrap.dedent(QUESTION).strip() + "\n" + zh, encoding="utf-8")
    return load_bank(scratch_lessons)


def test_a_translated_question_reads_in_chinese_and_keeps_its_answer(scratch_lessons):
    bank = _bank(scratch_lessons, ZH)
    en, zh = bank.by_id["t-choice"], bank.in_language("zh").by_id["t-choice"]
    assert zh.prompt.startswith("A100 有 12 条") and en.prompt.startswith("An A100")
    assert [o.text for o in zh.options] == ["300 GB/s", "600 GB/s"]
    assert [o.correct for o in zh.options] == [o.correct for o in en.options]
    assert zh.options[1].why == "这是双向合计。"
    assert bank.in_language("en") is bank


@pytest.mark.parametrize(
    "change, field",
    [
        (
            ("12 × 25 = 300。", "12 × 25 = 330。"),
            "'zh.options[1].why': numbers differ from the English: missing ['300'], extra ['330']",
        ),
        (
            ("每方向 25 GB/s", "每方向 GB/s"),
            "'zh.prompt': numbers differ from the English: missing ['25']",
        ),
        (
            ('      - {text: "600 GB/s", why: "这是双向合计。"}\n', ""),
            "'zh.options': must list 2 entries",
        ),
        (("    explanation:", "    hint: x\n    explanation:"), "['hint'] not translatable"),
        (("    explanation: 每条链路每个方向只算一次。\n", ""), "misses ['explanation']"),
        (
            ('why: "这是双向合计。"', 'answer: "这是双向合计。"'),
            "'zh.options[2]': must be a mapping with exactly the keys ['text', 'why']",
        ),
        (
            (
                "    prompt: A100 有 12 条 NVLink 链路，每条每方向 25 GB/s。每方向合计多少？",
                "    prompt: ''",
            ),
            "'zh.prompt': must be a non-empty string",
        ),
    ],
)
def test_a_translation_that_differs_from_its_english_names_the_field(
    scratch_lessons, change, field
):
    with pytest.raises(BankError) as err:
        _bank(scratch_lessons, ZH.replace(*change))
    assert "t-choice" in str(err.value) and field in str(err.value)


def test_a_numeric_translation_keeps_every_placeholder(scratch_lessons):
    path = scratch_lessons / "quizzes" / "bank-n.yaml"
    path.write_text(
        textwrap.dedent(
            """
            - id: t-num
              kind: numeric
              difficulty: warm-up
              tags: [ring-allreduce]
              prompt: Ring AllReduce of {mib} MiB on {ranks} GPUs at 100 GB/s. Time in ms?
              parameters:
                ranks: {choices: [4, 8]}
                mib: {choices: [16, 64]}
                m: {expr: "mib * 2**20"}
              answer:
                function: cost
                args: {collective: allreduce, algorithm: ring, ranks: ranks, message_bytes: m,
                       latency_us: 0, bandwidth_gbs: 100}
                result: time_s
              unit: ms
              zh:
                prompt: "{ranks} 个 GPU 环形全规约 {mib} MiB，100 GB/s，{mib} 用时？"
            """
        ),
        encoding="utf-8",
    )
    with pytest.raises(BankError) as err:
        load_bank(scratch_lessons)
    assert "'zh.prompt': placeholders differ from the English: extra ['{mib}']" in str(err.value)


def _right(q, shown: dict) -> object:
    """The right answer, read off the texts the page shows in the question's own language."""
    if q.kind in ("single", "multiple"):
        right = {render(o.text, inline=True) for o in q.options if o.correct}
        chosen = [o["id"] for o in shown["options"] if o["html"] in right]
        return chosen[0] if q.kind == "single" else chosen
    if q.kind == "order":
        by_html = {item["html"]: item["id"] for item in shown["items"]}
        return [by_html[render(t, inline=True)] for t in q.items]
    if q.kind == "match":
        by_html = {item["html"]: item["id"] for item in shown["right"]}
        return {f"l{i}": by_html[render(p.right, inline=True)] for i, p in enumerate(q.pairs)}
    return None


def test_every_question_grades_the_same_in_both_languages(bank):
    """Answered right by reading the Chinese page, graded by either language's bank: right in
    both; the same answer reversed is wrong in both. Numeric and predict answers are numbers and
    rank sets, which no translation touches: their draws grade the same by construction."""
    zh_bank = bank.in_language("zh")
    checked = 0
    for q in zh_bank.questions:
        if (
            q.kind not in ("single", "multiple", "order", "match")
            or not bank.by_id[q.id].translations
        ):
            continue
        shown = public(zh_bank, q, SECRET, random.Random(q.id))
        answer = _right(q, shown)
        for b in (bank, zh_bank):
            assert grade(b, {"id": q.id, "answer": answer}, SECRET)["correct"] is True, q.id
        if q.kind == "order":
            wrong = list(reversed(answer))
            results = {
                grade(b, {"id": q.id, "answer": wrong}, SECRET)["correct"] for b in (bank, zh_bank)
            }
            assert results == {False}, q.id
        checked += 1
    translated = sum(bool(q.translations) for q in bank.questions)
    assert checked == sum(
        bool(q.translations) and q.kind in ("single", "multiple", "order", "match")
        for q in bank.questions
    ), (checked, translated)
