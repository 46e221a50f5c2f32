"""Every English lesson has a Chinese twin in lessons/zh/ that teaches the same thing: the same
front matter ids, headings, live elements, formulas, code, links and numbers
(`app.i18n.twins.lesson_differences`), and the loader's checks pass on it."""

from __future__ import annotations

import pytest

from app import yamlload
from app.course import LESSONS_DIR
from app.course.lesson import split_front_matter
from app.i18n import twins

SLUGS = sorted(p.stem for p in LESSONS_DIR.glob("*.md"))


def _read(path):
    front, body, _ = split_front_matter(path.read_text(encoding="utf-8"), path.name)
    return yamlload.safe_load(front), body


@pytest.mark.parametrize("slug", SLUGS)
def test_the_chinese_twin_keeps_the_english_lessons_structure_and_numbers(slug):
    twin = LESSONS_DIR / "zh" / f"{slug}.md"
    assert twin.exists(), f"lessons/zh/{slug}.md is missing: every lesson has a Chinese twin"
    problems = twins.lesson_differences(*_read(LESSONS_DIR / f"{slug}.md"), *_read(twin))
    assert not problems, f"lessons/zh/{slug}.md:\n" + "\n".join(problems)


def test_the_twin_check_catches_a_changed_number_formula_caption_and_heading():
    meta = {"title": "Ring on 8 GPUs", "slug": "x", "tags": ["a"]}
    body = (
        "## One\n\nIt takes 14 steps and $2(p-1)$ messages.\n\n"
        '@lab allreduce/ring ranks=8 caption="Watch 8 ranks"\n\n### Two\n'
    )
    zh_meta = {"title": "8 个 GPU 上的环", "slug": "x", "tags": ["a"]}
    zh = (
        "## 一\n\n需要 14 步和 $2(p-1)$ 条消息。\n\n"
        '@lab allreduce/ring ranks=8 caption="观察 8 个 rank"\n\n### 二\n'
    )
    assert twins.lesson_differences(meta, body, zh_meta, zh) == []
    cases = {
        "numbers differ": zh.replace("14 步", "15 步"),
        "formulas differ": zh.replace("$2(p-1)$", "$2(p - 1)$"),
        "directive lines": zh.replace("ranks=8 caption", "ranks=4 caption"),
        "headings": zh.replace("### 二", "## 二"),
    }
    for what, changed in cases.items():
        problems = twins.lesson_differences(meta, body, zh_meta, changed)
        assert any(what in p for p in problems), (what, problems)
    wrong_meta = dict(zh_meta, tags=["b"])
    assert any("'tags'" in p for p in twins.lesson_differences(meta, body, wrong_meta, zh))
