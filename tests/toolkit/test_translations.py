"""The toolkit in Chinese: every entry of lessons/toolkit/ has a zh block that keeps the English's
fields and numbers, a bad block is refused naming the entry and the field, and answers are graded
alike in both languages (only the words of the feedback change)."""

from __future__ import annotations

import copy
import random
import re

import pytest

from app.toolkit import cheatsheet, design, drills
from app.toolkit.translation import TranslationError, missing

HAN = re.compile(r"[\u4e00-\u9fff]")


def all_entries():
    return (
        drills.entries(drills.source())
        + design.triage_entries(design.source("triage"))
        + design.prompt_entries(design.source("design"))
        + cheatsheet.entries(cheatsheet._text())
    )


def test_every_entry_has_a_zh_block_that_loads():
    assert missing(all_entries()) == []
    # Loading checks each block against its English: same fields, counts and numbers.
    assert all(HAN.search(d.title) for d in drills.drills("zh").values())
    assert all(HAN.search(p["prompt"]) for p in design.prompts("zh").values())
    assert HAN.search(cheatsheet.sheet("zh")["conventions"])
    assert all(HAN.search(c["feedback"]) for c in design.triage("zh")["causes"])


def _set(data, path, value):
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


BAD = [
    # (loader, file data, where in it, bad value, what the message must name)
    (
        drills.load,
        drills.source,
        ("drills", 0, "steps", 0, "zh", "explain"),
        "p 个数据块，每块 M/q 字节，共 3 块。",
        "drill 'ring-allreduce' step 1: zh.explain: numbers differ from the English: extra ['3']",
    ),
    (
        drills.load,
        drills.source,
        ("drills", 2, "steps", 2, "zh", "mistakes"),
        ["只有一条。"],
        "drill 'hierarchical-allreduce' step 3: zh.mistakes: must list 2 entries",
    ),
    (
        drills.load,
        drills.source,
        ("drills", 1, "zh", "answer"),
        "p - 1",
        "drill 'allreduce-lower-bound': zh: ['answer'] are not text fields",
    ),
    (
        design.load_prompts,
        lambda: design.source("design"),
        ("prompts", 0, "zh", "rubric", 0),
        "TP × PP × DP = 64。",
        "prompt 'parallel-layout': zh.rubric[1]: numbers differ from the English: "
        "missing ['128'], extra ['64']",
    ),
    (
        design.load_triage,
        lambda: design.source("triage"),
        ("causes", 1, "zh", "feedback"),
        "",
        "triage.yaml: cause 'straggler': zh.feedback: must be non-empty text",
    ),
    (
        cheatsheet.load,
        cheatsheet._text,
        ("facts", 2, "zh"),
        "超时",
        "cheatsheet.yaml: facts[3]: zh: must be a mapping",
    ),
]


@pytest.mark.parametrize(("load", "source", "path", "value", "message"), BAD)
def test_a_bad_zh_block_is_refused_naming_the_entry_and_field(load, source, path, value, message):
    data = copy.deepcopy(source())
    _set(data, path, value)
    with pytest.raises(TranslationError) as caught:
        load(data, "zh")
    assert message in str(caught.value)


def test_a_missing_field_is_named():
    data = copy.deepcopy(drills.source())
    del data["drills"][0]["steps"][6]["zh"]["hint"]
    with pytest.raises(TranslationError, match=r"step 7: zh: misses \['hint'\]"):
        drills.load(data, "zh")


def _answers(drill):
    """Per step: the model answer, each authored mistake and wrong answers of known shapes."""
    for i, step in enumerate(drill.steps):
        model = step.answer_text
        wrong = [f"({model})*2", f"({model})/2", f"({model})*3", "1"]
        yield from ((i, a) for a in [model, *wrong])
        yield from ((i, m) for m in _mistake_texts(drill.id, i))


def _mistake_texts(drill_id, index):
    raw = next(d for d in drills.source()["drills"] if d["id"] == drill_id)
    return [m["answer"] for m in raw["steps"][index].get("mistakes", ())]


@pytest.mark.parametrize("drill_id", list(drills.drills()))
def test_every_answer_is_graded_alike_in_english_and_chinese(drill_id):
    drill = drills.drills()[drill_id]
    for step, answer in _answers(drill):
        en = drills.check(drill_id, step, answer, random.Random(7))
        zh = drills.check(drill_id, step, answer, random.Random(7), "zh")
        assert (en["correct"], en["next"], en.get("model")) == (
            zh["correct"],
            zh["next"],
            zh.get("model"),
        ), (step, answer)
        assert HAN.search(zh["feedback"]) and not HAN.search(en["feedback"]), (step, answer)


def test_the_ratio_feedback_comes_out_in_chinese():
    # Twice the model answer of "bytes per rank in total": named by the catalog's sentence.
    zh = drills.check("ring-allreduce", 4, "4*(p-1)*M/p", random.Random(1), "zh")
    en = drills.check("ring-allreduce", 4, "4*(p-1)*M/p", random.Random(1))
    assert en["feedback"] == "Twice the answer: did you count a phase twice?"
    assert zh["feedback"].startswith("是答案的两倍")


def test_the_triage_is_graded_alike_in_both_languages():
    for rank in (0, 1, 2, 3):
        for cause in ("mismatch", "straggler", "network", "timeout_variable"):
            body = {"rank": rank, "cause": cause}
            en, zh = design.grade_triage(body), design.grade_triage(body, "zh")
            flags = ("rank_correct", "cause_correct", "correct")
            assert [en[k] for k in flags] == [zh[k] for k in flags]
            assert HAN.search(zh["rank_feedback"]) and HAN.search(zh["cause_feedback"])
