"""The quiz's scripts in Chinese: a run started on /quiz?lang=zh counts, hints and gives its
feedback in Chinese, on questions the API sent in Chinese."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_quiz import answer_with_keyboard

pytestmark = [pytest.mark.browser, pytest.mark.server]

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_a_quiz_in_chinese_asks_and_answers_in_chinese(page, live_server):
    page.goto(f"{live_server.url}/quiz?topics=ring-allreduce&count=5&lang=zh")
    expect(page.locator("[data-role=review-due]")).to_have_text("没有到期需要复习的题目")
    page.locator("button[type=submit]").click()
    expect(page.locator(".quiz-progress")).to_have_text("第 1 题，共 5 题")
    assert CJK.search(page.locator(".question-card .prompt").inner_text())
    assert CJK.search(page.locator(".question-card .hint").inner_text())
    answer_with_keyboard(page)
    expect(page.locator(".feedback-title")).to_have_text("反馈")
    expect(page.locator(".next-question")).to_contain_text("下一题")
