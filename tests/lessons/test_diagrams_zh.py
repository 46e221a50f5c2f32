"""Lesson diagrams speak the page's language: in Chinese their caption, title, description and
labels are Chinese, with the same numbers as the English picture."""

from __future__ import annotations

import re

import pytest

from app.i18n import twins
from app.lessons.diagrams import render_diagram

CASES = [
    ("hierarchical", {"nodes": "4", "gpus": "8"}),
    ("node", {}),
    ("node", {"nvswitch": "no", "nics": "0"}),
    ("ring", {"ranks": "4"}),
    ("ring", {"ranks": "4", "phase": "allgather", "step": "2"}),
    ("ring-steps", {"ranks": "4"}),
    ("tree", {"shape": "binomial", "ranks": "8"}),
    ("tree", {"shape": "binary", "ranks": "7"}),
    ("double-binary-tree", {"ranks": "4", "nodes": "yes"}),
    ("hypercube", {"ranks": "8", "step": "2"}),
]
ENGLISH_RUN = re.compile(r"\b[A-Za-z][A-Za-z'-]*[a-z](?: [A-Za-z][A-Za-z'-]*[a-z]){2,}\b")


def words(svg: str) -> str:
    """The SVG's title, description and text labels, one per line."""
    return "\n".join(re.findall(r">([^<>]+)</(?:title|desc|text)>", svg))


@pytest.mark.parametrize(("kind", "params"), CASES)
def test_a_diagram_in_chinese_has_no_english_sentence_and_the_same_numbers(kind, params):
    en = render_diagram(kind, params, "d", "en")
    zh = render_diagram(kind, params, "d", "zh")
    assert not ENGLISH_RUN.search(zh.caption), zh.caption
    assert not ENGLISH_RUN.search(words(zh.svg)), words(zh.svg)
    assert twins.numbers(zh.caption) == twins.numbers(en.caption)
    assert ENGLISH_RUN.search(en.caption)  # the check can find English
