"""A calculator in Chinese in real Chromium: the scripts draw Chinese labels, axis titles and
legends with the same numbers as the English page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.server]

CJK = re.compile(r"[\u4e00-\u9fff]")


def _drawn(page, url: str) -> tuple[list[str], list[str], str]:
    """The widget's output labels and values and its first chart's x-axis title, once drawn."""
    page.goto(url)
    widget = page.locator(".calc-widget[data-calc=ddp_overlap]")
    expect(widget.locator(".calc-chart .main-svg").first).to_be_visible()
    labels = widget.locator("[data-role=outputs] dt").all_inner_texts()
    values = widget.locator("[data-role=outputs] dd").all_inner_texts()
    axis = page.evaluate(
        "(w) => w.querySelector('.calc-chart').layout.xaxis.title.text", widget.element_handle()
    )
    return labels, values, axis


def test_the_chinese_embed_draws_chinese_words_and_the_english_numbers(page, live_server):
    url = f"{live_server.url}/embed/calc/ddp_overlap?params=2e9&layers=48"
    en_labels, en_values, en_axis = _drawn(page, url)
    zh_labels, zh_values, zh_axis = _drawn(page, url + "&lang=zh")
    assert zh_values == en_values  # "2,001" buckets, "1.2 s", "5.2 GB": numbers and units stay
    assert all(CJK.search(label) for label in zh_labels)
    assert not any(CJK.search(label) for label in en_labels)
    assert en_axis.startswith("time (") and zh_axis.startswith("时间（")
    assert page.console_errors == []
