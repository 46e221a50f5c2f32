"""The narration in Chinese (issue 20): the same sentences as the English, in Chinese.

For every catalog algorithm at a few rank counts, each step's Chinese sentence must carry
exactly the numbers of its English twin (`app.i18n.twins.numbers`: the English is checked
against the trace in test_narration.py), fill every placeholder, and leave no English word but
the identifiers a Chinese text keeps: rank, the chunk letters, r and i in formulas, mod, units
and product names. The table itself must have the English table's keys, shapes and
placeholders, so that no sentence the code can ask for is missing.
"""

from __future__ import annotations

import re
from string import Formatter

import pytest

from app.collectives import simulate
from app.collectives.narration import en, narrate, zh
from app.i18n import twins
from tests.collectives.test_narration import case_id, cases, run

CASES = cases((2, 3, 5, 8))
KEPT = {"rank", "r", "i", "mod", "kB", "MB", "GB", "NVSwitch", "SHARP"}
LATIN = re.compile(r"[A-Za-z]+")
LABEL = re.compile(r"[A-Z]")  # a chunk's letter (C26 and on read as C)


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in Formatter().parse(template) if name is not None}


@pytest.mark.parametrize("table", ["TABLE", "PHASES"])
def test_the_chinese_table_has_every_english_key_with_its_shape_and_placeholders(table):
    english, chinese = getattr(en, table), getattr(zh, table)
    assert set(chinese) == set(english)
    for key, text in english.items():
        other = chinese[key]
        assert isinstance(other, tuple) == isinstance(text, tuple), key
        pairs = zip(text, other, strict=True) if isinstance(text, tuple) else [(text, other)]
        for a, b in pairs:
            assert fields(a) == fields(b), f"{key}: {fields(a)} != {fields(b)}"


def english_words(text: str) -> list[str]:
    words = LATIN.findall(text)
    return [w for w in words if w not in KEPT and not LABEL.fullmatch(w)]


@pytest.mark.parametrize(
    ("entry", "params"),
    CASES,
    ids=[case_id(*case) for case in CASES],
)
def test_each_step_says_in_chinese_what_the_english_says_with_the_same_numbers(entry, params):
    trace = run(entry, params)
    english, chinese = narrate(trace), narrate(trace, "zh")

    assert len(chinese) == len(english) == trace.total_steps
    for index, (a, b) in enumerate(zip(english, chinese, strict=True)):
        assert b.startswith(f"第 {index + 1} 步（共 {trace.total_steps} 步），"), b
        assert b.endswith("。"), b
        assert twins.numbers(a) == twins.numbers(b), f"{a}\n{b}"
        assert "{" not in b and "}" not in b, b
        assert english_words(b) == [], b


@pytest.mark.parametrize("op", ["sum", "avg", "prod", "max", "min"])
def test_every_operator_is_said_in_chinese(op):
    trace = simulate("allreduce", "ring", ranks=4, elements=8, op=op)
    text = narrate(trace, "zh")
    combine = zh.TABLE[f"combine {op}"][0]
    assert combine in text[0]
    assert text[-1].endswith(f"现在每个 rank 都持有全部 4 个输入的{zh.TABLE[f'op {op}']}。")


def test_chinese_puts_spaces_between_chinese_and_latin_letters_or_digits():
    text = narrate(simulate("allreduce", "ring", ranks=4, elements=8), "zh")[0]
    # 8 float32 values in 4 chunks: 2 values, 8 bytes each; rank 1's chunk A then holds 2 of 4.
    start = "第 1 步（共 6 步），规约散射：开始时，4 个 rank 各有自己的 8 个值（32 字节）。"
    assert text.startswith(start)
    assert "rank 1 的数据块 A 现在含有 4 份贡献中的 2 份；到第 3 步结束时，" in text
    assert not re.search(r"[\u4e00-\u9fff][A-Za-z0-9]|[A-Za-z0-9][\u4e00-\u9fff]", text)
