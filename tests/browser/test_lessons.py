"""Lessons in real Chromium: index → lesson → its animation plays → next lesson; progress marks,
search, a phone and a printer; and every written lesson's live elements load."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from app import create_app
from tests.conftest import LiveServer
from tests.lessons.corpus import lessons_mentioning

pytestmark = [pytest.mark.browser, pytest.mark.server]

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "lessons" / "fixtures"
STEP = re.compile(r"step (\d+) of (\d+)")


@pytest.fixture(scope="module")
def course_server():
    """The app serving the two fixture lessons."""
    app = create_app({"TESTING": True, "LESSONS_DIR": str(FIXTURES)})
    with LiveServer(app) as server:
        yield server


def counter_in(page, frame_selector: str):
    frame = page.locator(frame_selector)
    frame.scroll_into_view_if_needed()
    return page.frame_locator(frame_selector).locator('[data-role="counter"]')


def test_index_to_lesson_to_animation_to_next_lesson(page, course_server):
    page.goto(f"{course_server.url}/lessons/")
    page.get_by_role("link", name="Ring basics").click()
    expect(page).to_have_url(f"{course_server.url}/lessons/ring-basics")
    expect(page.locator("h1")).to_have_text("Ring basics")

    # The @lab frame autoplays ring allreduce on 4 ranks: 6 steps, counted inside the frame.
    counter = counter_in(page, "figure.live-lab iframe")
    expect(counter).to_have_text(re.compile(r"step [1-6] of 6"), timeout=20_000)
    first = int(STEP.search(counter.inner_text()).group(1))
    expect(counter).not_to_have_text(f"step {first} of 6", timeout=10_000)  # it moves on its own

    page.locator("nav.lesson-pager a[rel=next]").click()
    expect(page).to_have_url(f"{course_server.url}/lessons/tree-basics")
    expect(page.locator("h1")).to_have_text("Tree basics")
    assert page.console_errors == []


def test_progress_marks_mark_as_done_and_clear(page, course_server):
    page.goto(f"{course_server.url}/lessons/ring-basics")
    button = page.locator('[data-role="mark-done"]')
    expect(button).to_have_text("Mark as done")
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")
    expect(button).to_have_text("✓ Done")

    page.goto(f"{course_server.url}/lessons/")
    ring = page.locator('.lesson-item[data-slug="ring-basics"]')
    tree = page.locator('.lesson-item[data-slug="tree-basics"]')
    expect(ring).to_have_attribute("data-progress", "done")
    expect(ring.locator('[data-role="progress-mark"]')).to_have_text("✓")
    expect(tree).to_have_attribute("data-progress", "new")
    summary = page.locator('[data-role="progress-summary"]')
    expect(summary).to_have_text("1 of 2 lessons done, 1 visited.")

    page.goto(f"{course_server.url}/lessons/tree-basics")
    page.goto(f"{course_server.url}/lessons/")
    expect(tree).to_have_attribute("data-progress", "visited")
    expect(tree.locator('[data-role="progress-mark"]')).to_have_text("•")

    page.once("dialog", lambda dialog: dialog.accept())
    page.locator('[data-role="clear-progress"]').click()
    expect(summary).to_have_text("0 of 2 lessons done, 0 visited.")
    expect(ring).to_have_attribute("data-progress", "new")
    expect(page.locator('[data-role="clear-progress"]')).to_be_hidden()
    assert page.console_errors == []


def test_search_box_finds_lessons_and_headings_as_you_type(page, course_server):
    page.goto(f"{course_server.url}/lessons/")
    page.get_by_label("Search the lessons").fill("recursive doubling")
    results = page.locator('[data-role="search-results"]')
    expect(results).to_be_visible()
    expect(results.get_by_role("link", name="Tree basics")).to_have_attribute(
        "href", "/lessons/tree-basics"
    )
    expect(results.get_by_role("link", name="Recursive doubling")).to_have_attribute(
        "href", "/lessons/tree-basics#recursive-doubling"
    )
    page.get_by_label("Search the lessons").fill("zzzz")
    expect(results).to_contain_text("No lesson matches “zzzz”.")
    assert page.console_errors == []


def test_typing_the_placeholder_finds_every_lesson_that_mentions_it(page, live_server):
    page.goto(f"{live_server.url}/lessons/")
    box = page.get_by_label("Search the lessons")
    term = re.search(r"NCCL_\w+", box.get_attribute("placeholder")).group()  # NCCL_ALGO
    box.press_sequentially(term, delay=30)
    results = page.locator('[data-role="search-results"]')
    expected = lessons_mentioning(term)
    expect(results).to_contain_text(f"{len(expected)} lessons match “{term}”.")
    hits = results.locator("li.search-hit")
    hrefs = [hits.nth(i).locator("a").first.get_attribute("href") for i in range(hits.count())]
    assert sorted(hrefs) == sorted(f"/lessons/{slug}" for slug in expected)
    for i in range(hits.count()):
        snippet = hits.nth(i).locator(".search-snippets li").first
        expect(snippet.locator("mark").first).to_have_text(re.compile(term, re.I))
        expect(snippet.locator("a.snippet-heading")).to_have_attribute(
            "href", re.compile(r"^/lessons/[a-z0-9-]+#[\w-]+$")
        )
    assert page.console_errors == []


def test_a_matching_sentence_is_shown_as_text_never_as_markup(page, tmp_path):
    shutil.copytree(FIXTURES, tmp_path / "lessons")
    path = tmp_path / "lessons" / "ring-basics.md"
    front = path.read_text().split("---\n")[1]
    path.write_text(f"---\n{front}---\nTry `<img src=x onerror=window.hit=1>` zebrafish.\n")
    app = create_app({"TESTING": True, "LESSONS_DIR": str(tmp_path / "lessons")})
    with LiveServer(app) as server:
        page.goto(f"{server.url}/lessons/")
        page.get_by_label("Search the lessons").fill("zebrafish")
        snippet = page.locator(".snippet-text")
        expect(snippet).to_have_text("Try <img src=x onerror=window.hit=1> zebrafish.")
        expect(snippet.locator("mark")).to_have_text("zebrafish")
        assert snippet.locator("img").count() == 0
        assert page.evaluate("window.hit") is None


def test_the_instructor_view_is_one_click_away_and_back(page, course_server):
    page.goto(f"{course_server.url}/lessons/ring-basics")
    notes = page.locator("aside.callout-instructor")
    expect(notes).to_have_count(0)
    page.get_by_role("link", name="Instructor view").click()
    expect(notes).to_contain_text("Ask the room")
    page.get_by_role("link", name="Learner view").click()
    expect(page).to_have_url(f"{course_server.url}/lessons/ring-basics")
    expect(notes).to_have_count(0)
    page.goto(f"{course_server.url}/lessons/")
    page.locator('[data-role="instructor-hint"] a').click()
    expect(notes).to_contain_text("Ask the room")
    assert page.console_errors == []


def test_a_lesson_fits_a_phone(browser, course_server):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(f"{course_server.url}/lessons/tree-basics")
        expect(page.locator("h1")).to_be_visible()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page is {width}px wide on a 390px phone"
        assert page.locator('[data-role="toc"]').get_attribute("open") is None  # folded away
    finally:
        context.close()


def test_printing_replaces_frames_by_their_links(page, course_server):
    page.goto(f"{course_server.url}/lessons/ring-basics")
    page.emulate_media(media="print")
    expect(page.locator("figure.live-lab iframe")).to_be_hidden()
    link = page.locator("figure.live-lab a.live-open")
    expect(link).to_be_visible()
    after = page.evaluate("el => getComputedStyle(el, '::after').content", link.element_handle())
    assert "/lab?collective=allreduce" in after
    expect(page.locator("nav.lesson-toc")).to_be_hidden()
    expect(page.locator("figure.diagram-figure svg").first).to_be_visible()
