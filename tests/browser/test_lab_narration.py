"""The step in words, in real Chromium (issue 15): the lab and the embed show, under the player,
the narration of the step on screen, the very sentence POST /api/simulate gives that step for the
same parameters (the engine is deterministic: the pages run seed 0), forward and back; the embed
hides it with &narrate=0 and keeps reading it to screen readers.
"""

from __future__ import annotations

import json
import urllib.request
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

COUNTER = '.player [data-role="counter"]'
NARRATION = '[data-role="narration"]'
LIVE = '[data-role="announce"][aria-live="polite"]'
# A reduction on a rank count that is not a power of two, and a rooted broadcast off rank 0.
RUNS = [
    {"collective": "allreduce", "algorithm": "ring", "ranks": 4, "elements": 8},
    {"collective": "allreduce", "algorithm": "rabenseifner", "ranks": 6, "elements": 12},
    {"collective": "broadcast", "algorithm": "binomial_tree", "ranks": 5, "elements": 5, "root": 2},
]


def simulate(live_server, params: dict) -> dict:
    """The whole trace the server gives these parameters over HTTP, as the pages run them."""
    body = json.dumps({**params, "seed": 0}).encode()
    request = urllib.request.Request(
        f"{live_server.url}/api/simulate", body, {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def narrations(doc: dict) -> list[str]:
    sentences = [step["narration"] for step in doc["steps"]]
    assert all(isinstance(s, str) and s for s in sentences), sentences
    return sentences


def wait_ready(page, total: int) -> None:
    """Wait until the run on the page has arrived whole and shows step 0."""
    expect(page.locator(COUNTER)).to_have_text(f"step 0 of {total}", timeout=60_000)
    page.wait_for_function(
        "() => document.querySelector('.player [data-role=badge]').dataset.state === 'pending'"
        " && !/receiving/.test(document.querySelector('.player [data-role=badge]').textContent)"
        " && !document.querySelector('.player [data-role=forward]').disabled"
    )


def open_lab(page, live_server, params: dict, total: int) -> None:
    page.goto(f"{live_server.url}/lab?{urlencode(params)}")
    wait_ready(page, total)


@pytest.mark.parametrize("params", RUNS, ids=lambda p: f"{p['collective']}-{p['algorithm']}")
def test_the_lab_says_each_steps_narration_forward_and_back(live_server, page, params):
    doc = simulate(live_server, params)
    sentences = narrations(doc)
    total = doc["total_steps"]
    open_lab(page, live_server, params, total)
    narration = page.locator(NARRATION)
    start = narration.inner_text()
    assert start.startswith("Before the first step") and f"{total} steps" in start, start
    for k, sentence in enumerate(sentences, start=1):
        page.keyboard.press("ArrowRight")
        expect(page.locator(COUNTER)).to_have_text(f"step {k} of {total}")
        expect(narration).to_have_text(sentence)
    assert len(set(sentences)) == total, "every step has a sentence of its own"
    page.keyboard.press("ArrowLeft")
    expect(page.locator(COUNTER)).to_have_text(f"step {total - 1} of {total}")
    expect(narration).to_have_text(sentences[-2])
    page.keyboard.press("Home")
    expect(narration).to_have_text(start)
    page.keyboard.press("End")
    expect(page.locator(COUNTER)).to_have_text(f"step {total} of {total}")
    expect(narration).to_have_text(sentences[-1])
    assert page.console_errors == []


def test_the_embed_shows_the_narration(live_server, page):
    params = RUNS[0]
    doc = simulate(live_server, params)
    sentences, total = narrations(doc), doc["total_steps"]
    page.set_viewport_size({"width": 760, "height": 520})
    page.goto(f"{live_server.url}/embed/allreduce/ring?ranks=4&elements=8")
    wait_ready(page, total)
    expect(page.locator('[data-role="narration-box"]')).to_be_visible()
    for k in (1, 2):
        page.keyboard.press("ArrowRight")
        expect(page.locator(NARRATION)).to_have_text(sentences[k - 1])
        expect(page.locator(LIVE)).to_have_text(sentences[k - 1])
    page.keyboard.press("ArrowLeft")
    expect(page.locator(NARRATION)).to_have_text(sentences[0])
    # the sentence fits the frame: nothing scrolls inside it
    assert page.evaluate("document.documentElement.scrollHeight") <= 520
    assert page.console_errors == []


def test_narrate_0_hides_the_sentences_but_not_the_live_region(live_server, page):
    doc = simulate(live_server, RUNS[0])
    sentences, total = narrations(doc), doc["total_steps"]
    page.goto(f"{live_server.url}/embed/allreduce/ring?ranks=4&elements=8&narrate=0")
    wait_ready(page, total)
    page.keyboard.press("ArrowRight")
    expect(page.locator(COUNTER)).to_have_text(f"step 1 of {total}")
    expect(page.locator(LIVE)).to_have_text(sentences[0])
    expect(page.locator('[data-role="narration-box"]')).to_be_hidden()
    assert page.console_errors == []


def test_the_narration_reads_well_on_a_phone(live_server, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    try:
        params = RUNS[1]
        total = simulate(live_server, params)["total_steps"]
        open_lab(page, live_server, params, total)
        page.locator('.player [data-role="forward"]').click()
        box = page.locator('[data-role="narration-box"]').bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        size = page.locator(NARRATION).evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
        assert size >= 16, size
    finally:
        context.close()
