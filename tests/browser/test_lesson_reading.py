"""Reading a lesson in real Chromium (issue 16): the predict box asks before it tells and opens
from the keyboard; prose sits at about 72 characters a line; print and a browser without
JavaScript get the ring frame by frame in place of its animation; the glossary page."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from app import create_app
from tests.conftest import LiveServer, require

from .test_a11y import AXE, switch_theme

pytestmark = [pytest.mark.browser, pytest.mark.server]

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "lessons" / "fixtures"

# Ordinary technical prose, as a lesson writes it: no formula or code to widen a line.
LONG_PARAGRAPH = (
    "A data-parallel job keeps a full copy of the model on every GPU and gives each one a "
    "different slice of the batch. After the backward pass every rank holds gradients computed "
    "from its own slice only, so before the optimizer can take a step the ranks must agree on "
    "one gradient: the sum, or the mean, of all of them. That agreement is a single collective "
    "call, made by every rank at the same point in its program, and the time it takes is paid "
    "on every step of training unless it is hidden behind the computation of the next layer. "
    "The rest of this course is about what happens inside that call, how long it takes on a "
    "given cluster, and what you can change when it takes too long."
)

# Group every character of a paragraph into its line by where the browser drew it, and count
# the characters of each full line (the last, partial line left out).
CHARS_PER_LINE = """(el) => {
  const height = parseFloat(getComputedStyle(el).lineHeight);
  const top = el.getBoundingClientRect().top;
  const counts = new Map();
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rect = range.getClientRects()[0];
      if (!rect) continue;
      const line = Math.floor((rect.top + rect.height / 2 - top) / height);
      counts.set(line, (counts.get(line) || 0) + 1);
    }
  }
  const lines = [...counts.keys()].sort((a, b) => a - b).map((k) => counts.get(k));
  return lines.slice(0, -1);
}"""


@pytest.fixture(scope="module")
def reading_server(tmp_path_factory):
    """The fixture course, with a long paragraph of prose in ring-basics."""
    lessons = tmp_path_factory.mktemp("reading") / "lessons"
    shutil.copytree(FIXTURES, lessons)
    path = lessons / "ring-basics.md"
    path.write_text(path.read_text().replace("## In code\n", f"## In code\n\n{LONG_PARAGRAPH}\n"))
    app = create_app({"TESTING": True, "LESSONS_DIR": str(lessons)})
    with LiveServer(app) as server:
        yield server


def test_a_long_paragraph_reads_at_about_72_characters_a_line(page, reading_server):
    page.goto(f"{reading_server.url}/lessons/ring-basics")
    paragraph = page.locator(".lesson-body p", has_text="A data-parallel job keeps")
    lines = paragraph.evaluate(CHARS_PER_LINE)
    assert len(lines) >= 4, lines
    average = sum(lines) / len(lines)
    assert 60 <= average <= 80, f"{average:.1f} characters a line: {lines}"


def test_a_predict_box_asks_first_and_its_answer_opens_from_the_keyboard(page, reading_server):
    page.goto(f"{reading_server.url}/lessons/ring-basics")
    box = page.get_by_role("region", name="Predict")
    expect(box).to_be_visible()
    expect(box).to_contain_text("how many steps does the ring take on 4 ranks?")
    answer = box.get_by_text("Six: three to reduce-scatter")
    expect(answer).to_be_hidden()
    summary = box.locator("summary", has_text="Show the answer")
    # Reach it as a keyboard user does: Tab from the question (a click there sets where
    # sequential focus navigation starts).
    box.get_by_text("Before you press play").click()
    page.keyboard.press("Tab")
    expect(summary).to_be_focused()
    page.keyboard.press("Enter")
    expect(answer).to_be_visible()
    page.keyboard.press("Enter")
    expect(answer).to_be_hidden()
    assert page.console_errors == []


def test_a_predict_box_looks_unlike_a_note_and_a_warning(page, reading_server):
    page.goto(f"{reading_server.url}/lessons/ring-basics")
    colour = "el => getComputedStyle(el).borderLeftColor"
    predict = page.locator(".callout-predict").evaluate(colour)
    note = page.locator(".callout-note").first.evaluate(colour)
    page.goto(f"{reading_server.url}/lessons/tree-basics")
    warning = page.locator(".callout-warning").first.evaluate(colour)
    assert predict not in (note, warning)


def axe_violations(page, selector: str) -> list[str]:
    """Run axe-core on the elements matching `selector`; describe each violation."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        "async (sel) => { const r = await axe.run(sel, {iframes: false});"
        " return r.violations.flatMap(v => v.nodes.map(n =>"
        " `${v.id} (${v.impact}): ${v.help} at ${n.target.join(' ')}: ${n.failureSummary}`)) }",
        selector,
    )
    return result


def test_axe_finds_no_violation_on_the_glossary_page(browser, reading_server):
    require(AXE.is_file(), f"axe-core is not installed ({AXE}); run npm ci --prefix tests/a11y")
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = context.new_page()
    try:
        page.goto(f"{reading_server.url}/lessons/glossary")
        for theme in ("light", "dark"):
            if theme == "dark":
                switch_theme(page, "dark")
            found = axe_violations(page, "html")
            assert found == [], f"{theme}: " + json.dumps(found, indent=1)
    finally:
        context.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_finds_no_violation_in_a_predict_box(browser, reading_server, theme):
    require(AXE.is_file(), f"axe-core is not installed ({AXE}); run npm ci --prefix tests/a11y")
    # bypass_csp only so that the injected axe script may run, as in test_a11y.py
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.route("**/embed/**", lambda r: r.fulfill(content_type="text/html", body="<!doctype html>"))
    try:
        page.goto(f"{reading_server.url}/lessons/ring-basics")
        if theme == "dark":
            switch_theme(page, "dark")
        for opened in (False, True):
            if opened:
                page.locator(".callout-predict summary").click()
            found = axe_violations(page, ".callout-predict")
            assert found == [], f"{theme}, opened={opened}: " + json.dumps(found, indent=1)
    finally:
        context.close()


def test_print_shows_the_predict_answer_and_the_ring_frame_by_frame(page, reading_server):
    page.goto(f"{reading_server.url}/lessons/ring-basics")
    page.emulate_media(media="print")
    expect(page.get_by_text("Six: three to reduce-scatter")).to_be_visible()
    lab = page.locator("figure.live-lab")
    expect(lab.locator("iframe")).to_be_hidden()
    strip = lab.locator(".live-still svg[role=img]")
    expect(strip).to_be_visible()
    expect(strip.locator("g.dg-frame")).to_have_count(7)  # start + 2(p-1) steps on 4 ranks
    expect(page.locator("details.solution")).to_be_hidden()  # a challenge's solution stays out
    page.emulate_media(media="screen")
    expect(strip).to_be_hidden()
    expect(lab.locator("iframe")).to_be_visible()


def test_without_javascript_the_ring_is_shown_frame_by_frame(browser, reading_server):
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, java_script_enabled=False
    )
    page = context.new_page()
    try:
        page.goto(f"{reading_server.url}/lessons/ring-basics")
        lab = page.locator("figure.live-lab")
        expect(lab.locator(".live-still svg[role=img]")).to_be_visible()
        expect(lab.locator("iframe")).to_be_hidden()
        expect(lab.locator("a.live-open")).to_be_visible()
        # the predict box's answer is a native disclosure: it works without script too
        page.locator(".callout-predict summary").click()
        expect(page.get_by_text("Six: three to reduce-scatter")).to_be_visible()
    finally:
        context.close()


def test_the_glossary_is_one_click_from_the_index_and_links_back(page, reading_server):
    page.goto(f"{reading_server.url}/lessons/")
    page.get_by_role("link", name="Glossary").click()
    expect(page.locator("h1")).to_have_text("Glossary")
    page.get_by_role("link", name="Tree basics").click()
    expect(page).to_have_url(f"{reading_server.url}/lessons/tree-basics")
    assert page.console_errors == []


def test_the_search_box_names_a_glossary_term_as_you_type(page, reading_server):
    page.goto(f"{reading_server.url}/lessons/")
    page.get_by_label("Search the lessons").fill("chunk")
    terms = page.get_by_role("list", name="In the glossary")
    expect(terms.get_by_role("link", name="chunk")).to_have_attribute(
        "href", "/lessons/glossary#term-chunk"
    )
    expect(terms).to_contain_text("One of the p equal pieces")
    assert page.console_errors == []
