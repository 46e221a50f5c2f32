"""The lab in Chinese (issue 20): predict mode asks, grades and scores in Chinese, and the live
run's narration arrives in Chinese, the same sentences POST /api/simulate?lang=zh gives.

One page, one run: the English page is covered by test_lab_predict.py, unchanged.
"""

from __future__ import annotations

import pytest

from tests.browser.test_lab_predict import COUNTER, GO, RING4, SAY, SCORE, changed, query, trace

pytestmark = pytest.mark.browser

NARRATION = '[data-role="narration"]'


def zh_trace(client) -> list[dict]:
    """The run's steps as POST /api/simulate?lang=zh narrates them."""
    response = client.post("/api/simulate?lang=zh", json={**RING4, "seed": 0})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()["steps"]


def test_predict_mode_and_the_live_narration_speak_chinese(live_server, page, client):
    run = trace(client, RING4)
    sentences = [s["narration"] for s in zh_trace(client)]
    total, first = len(run["steps"]), changed(run, 0)
    page.goto(f"{live_server.url}/lab?{query(RING4)}&predict=1&lang=zh")
    page.wait_for_function("() => document.documentElement.dataset.socket === 'connected'")
    page.wait_for_function(
        "([sel, text]) => document.querySelector(sel).textContent.startsWith(text)",
        arg=[SAY, f"第 1 步（共 {total} 步）：哪些单元格会变化？"],
    )
    assert page.inner_text(GO) == "揭晓"
    assert "预测" in page.inner_text(".predict-toggle")
    assert "你的选择" in page.inner_text('[data-role="predict-legend"]')
    grid = page.get_attribute('[data-role="predict-grid"]', "aria-label")
    assert grid.startswith("缓冲区网格，4 个 rank × ")

    for key in first:
        page.click(f'.predict-cell[data-key="{key}"]')
    page.click(GO)
    page.wait_for_function(  # the player's counter, as the catalog says it in Chinese
        "([sel, text]) => document.querySelector(sel).textContent === text",
        arg=[COUNTER, f"第 1 步 / 共 {total} 步"],
    )
    assert page.inner_text(SAY) == f"第 1 步：全部 {len(first)} 个变化的单元格都选对了。"
    assert page.inner_text(GO) == "下一步"
    assert page.inner_text(SCORE).startswith("得分：1 步中 1 步完全正确")
    label = page.get_attribute(f'.predict-cell[data-key="{first[0]}"]', "aria-label")
    assert label.endswith("有变化，你选了它：正确")
    page.wait_for_function(
        "([sel, text]) => document.querySelector(sel).textContent === text",
        arg=[NARRATION, sentences[0]],
    )
