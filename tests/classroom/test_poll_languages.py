"""A poll in every language its question is translated in: one draw, the texts differ.

A room mixes readers (app/classroom/polls.py): the Chinese copy of a poll must be the same
question to the grader, the same numbers, option ids and order, or a zh student's answer would
count under another key than an en student's.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from app.classroom import polls
from app.quiz import Bank, current_bank
from tests.classroom.test_rooms import RING4, SECRET

CJK = re.compile(r"[\u4e00-\u9fff]")
TEXT_FIELDS = {
    "html",
    "prompt_html",
    "topic_title",
    "chosen_topic_title",
    "why_html",
    "left_html",
    "right_html",
}
POLLED = ("single", "multiple", "numeric", "order", "match", "predict")


def translated(kind: str) -> str:
    return next(q.id for q in current_bank().questions if q.kind == kind and "zh" in q.translations)


def without_texts(value):
    """`value` with every text field left out: what must be the same in every language."""
    if isinstance(value, dict):
        return {k: without_texts(v) for k, v in value.items() if k not in TEXT_FIELDS}
    if isinstance(value, list):
        return [without_texts(v) for v in value]
    return value


@pytest.mark.parametrize("kind", POLLED)
def test_the_chinese_copy_is_the_same_draw_with_chinese_text(kind):
    question_id = "predict-next-step" if kind == "predict" else translated(kind)
    record = polls.make_poll(current_bank(), SECRET, question_id, {**RING4, "ranks_per_node": None})
    en = polls.public_poll(record, "en")["question"]
    zh = polls.public_poll(record, "zh")["question"]
    assert without_texts(zh) == without_texts(en)
    assert CJK.search(zh["prompt_html"]) and not CJK.search(en["prompt_html"])
    assert en == record["question"]  # English is the record's own
    tally = polls.Tally({}, 0, 0)
    en_result, zh_result = (polls.result(record, tally, lang) for lang in ("en", "zh"))
    assert zh_result["correct"] == en_result["correct"] == record["key"]["correct"]
    assert without_texts(zh_result["detail"]) == without_texts(en_result["detail"])


def test_a_question_without_a_translation_is_sent_in_english():
    full = current_bank()
    q = replace(full.by_id[translated("single")], translations={})
    bank = Bank((q,), full.course, full.files)
    record = polls.make_poll(bank, SECRET, q.id, None)
    assert record["texts"] == {}
    assert polls.public_poll(record, "zh") == polls.public_poll(record, "en")
