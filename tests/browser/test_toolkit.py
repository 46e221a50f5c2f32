"""The interview toolkit in real Chromium: a drill done with the keyboard alone, a design
prompt's rubric with its layout check, the hang triage graded, the cheat sheet printed on one
page, and axe-core on every toolkit page in both themes. One page load per test."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from app.toolkit import drills
from tests.browser.test_a11y import AXE, COLOUR_RULES, axe_violations, switch_theme
from tests.browser.test_quiz import tab_to
from tests.conftest import require

pytestmark = [pytest.mark.browser, pytest.mark.server]

PAGE_OBJECT = re.compile(rb"/Type\s*/Page(?!s)")


def test_a_drill_is_done_step_by_step_with_the_keyboard(page, live_server):
    drill = drills.drills()["ring-allreduce"]
    page.goto(f"{live_server.url}/toolkit/drills/ring-allreduce")
    tab_to(page, "#answer-0")
    page.keyboard.type("M")  # a typical wrong answer first
    page.keyboard.press("Enter")
    feedback = page.locator("#feedback-0")
    expect(feedback).to_contain_text("Not yet. That is the whole vector")
    expect(feedback).to_contain_text("Hint: The vector is cut into as many chunks")
    expect(page.locator("#answer-0")).to_be_focused()
    page.keyboard.press("Control+a")
    for index, step in enumerate(drill.steps):
        expect(page.locator(f"#answer-{index}")).to_be_focused()
        page.keyboard.type(step.answer_text)
        page.keyboard.press("Enter")
        expect(page.locator(f"#feedback-{index} .verdict")).to_have_text("Right.")
        expect(page.locator(f"#feedback-{index} .drill-model code")).to_have_text(step.answer_text)
    done = page.locator('[data-role="done"]')
    expect(done).to_be_visible()
    expect(done).to_be_focused()
    assert page.console_errors == []


def test_a_layout_prompts_rubric_with_its_numbers_from_the_cost_model(page, live_server):
    page.goto(f"{live_server.url}/toolkit/design/parallel-layout")
    page.fill('[data-role="written"]', "Plain DDP over all 128 GPUs.")
    page.fill('input[name="dp"]', "128")
    page.select_option('select[name="zero"]', "0")
    page.click('[data-role="layout-form"] button[type="submit"]')
    result = page.locator('[data-role="layout-result"]')
    expect(result).to_contain_text("✗ Misses: Model states fit in 80 GB per GPU")
    expect(result).to_contain_text("112.0 GB of weights, gradients and optimizer state")
    page.click('[data-role="assess"]')
    rubric = page.locator('[data-role="rubric"]')
    expect(rubric).to_be_visible()
    memory = rubric.locator('[data-role="check-result"][data-checks="memory"]')
    expect(memory).to_have_text(re.compile(r"^Your layout misses this: 112\.0 GB"))
    expect(rubric.locator('[data-checks="tp_in_node"][data-role="check-result"]')).to_contain_text(
        "Your layout meets this"
    )
    boxes = rubric.locator('[data-role="criterion"]')
    boxes.nth(0).check()
    boxes.nth(1).check()
    expect(rubric.locator('[data-role="score"]')).to_have_text(f"2 of {boxes.count()} points.")
    page.click('[data-role="show-model"]')
    model = page.locator('[data-role="model-answer"]')
    expect(model).to_be_focused()
    expect(model).to_contain_text("TP = 1, PP = 1, DP = 128")
    expect(model.locator(".criteria li.bad")).to_have_count(0)
    page.reload()  # the written answer stays in this browser
    expect(page.locator('[data-role="written"]')).to_have_value("Plain DDP over all 128 GPUs.")
    assert page.console_errors == []


def test_the_hang_triage_is_graded_on_the_server(page, live_server):
    page.goto(f"{live_server.url}/toolkit/design/hang-triage")
    expect(page.locator(".rank-log")).to_have_count(4)
    expect(page.locator(".rank-log").nth(2)).to_contain_text("OpType=BROADCAST")
    form = page.locator('[data-role="triage-form"]')
    result = form.locator('[data-role="triage-result"]')
    form.locator('input[name="rank"][value="0"]').check()
    form.locator('input[name="cause"][value="straggler"]').check()
    form.locator('button[type="submit"]').click()
    expect(result).to_contain_text("Not quite.")
    expect(result).to_contain_text("Not rank 0")
    form.locator('input[name="rank"][value="2"]').focus()
    page.keyboard.press("Space")
    form.locator('input[name="cause"][value="mismatch"]').check()
    page.keyboard.press("Enter")
    expect(result.locator(".verdict")).to_have_text("Right: rank and cause.")
    expect(result).to_contain_text("TORCH_DISTRIBUTED_DEBUG=DETAIL")
    assert page.console_errors == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_cheat_sheet_prints_on_one_a4_and_one_letter_page(page, live_server, lang):
    page.goto(f"{live_server.url}/toolkit/cheatsheet?lang={lang}")
    expect(page.locator('[data-role="busbw"] tbody tr')).to_have_count(3)
    for paper in ("A4", "Letter"):
        pdf = page.pdf(format=paper)
        assert len(PAGE_OBJECT.findall(pdf)) == 1, f"{lang}, {paper}: more than one page"


def test_the_cheat_sheet_reads_on_a_phone(browser, live_server):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/toolkit/cheatsheet")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the sheet scrolls sideways on a phone: {width} px"
    finally:
        context.close()


# -- accessibility: each page once, in the light theme, then the dark one after its switch ------

A11Y = {
    "/toolkit": None,
    "/toolkit/cheatsheet": None,
    "/toolkit/drills/hierarchical-allreduce": "drill",
    "/toolkit/design/parallel-layout": "layout",
    "/toolkit/design/hang-triage": "triage",
    "/toolkit/design/hierarchical-design": "calculator",
}


def bring_out(page, state: str | None) -> None:
    """Show what appears after an answer: feedback, results, the rubric and the model answer."""
    if state == "drill":
        page.fill("#answer-0", "M")
        page.press("#answer-0", "Enter")
        expect(page.locator("#feedback-0 .verdict")).to_be_visible()
        page.click('.drill-step[data-step="0"] [data-role="reveal"]')
        expect(page.locator("#answer-1")).to_be_focused()
    elif state == "layout":
        page.click('[data-role="layout-form"] button[type="submit"]')
        expect(page.locator('[data-role="layout-result"] li').first).to_be_visible()
    elif state == "triage":
        page.check('input[name="rank"][value="1"]')
        page.check('input[name="cause"][value="network"]')
        page.click('[data-role="triage-form"] button[type="submit"]')
        expect(page.locator('[data-role="triage-result"] .verdict')).to_be_visible()
    elif state == "calculator":
        expect(page.locator(".calc-form").first).to_be_visible()
    if state in ("layout", "triage", "calculator"):
        page.click('[data-role="assess"]')
        page.click('[data-role="show-model"]')
        expect(page.locator('[data-role="model-answer"]')).to_be_visible()


@pytest.mark.parametrize("path", list(A11Y))
def test_axe_finds_no_violation_on_the_toolkit(browser, live_server, path):
    require(AXE.is_file(), f"axe-core is not installed ({AXE}); run npm ci --prefix tests/a11y")
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, color_scheme="light", bypass_csp=True
    )
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}{path}")
        bring_out(page, A11Y[path])
        for theme in ("light", "dark"):
            if theme == "dark":
                switch_theme(page, theme)
            violations = axe_violations(page, None if theme == "light" else COLOUR_RULES)
            assert violations == [], f"{path} {theme}: " + json.dumps(violations, indent=1)
    finally:
        context.close()
