"""No page logs an error in normal use: every page and embed, used as a visitor would, leaves the
browser console without errors and makes no request that fails (4xx or 5xx), the site icon
included. Frames inside a page count as part of it. Every lesson is visited, every live element
in it loaded (an animation until its run has started, a calculator until it answers): this is
the one walk through all the written lessons' frames.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from app.costs.calculators import CALCULATORS
from tests.conftest import empty_page

pytestmark = [pytest.mark.browser, pytest.mark.server]

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted(p.stem for p in (ROOT / "lessons").glob("*.md"))
COUNTER = '[data-role="counter"]'
FULL_RUN = re.compile(r"^step (\d+) of \1$")  # the last step drawn
CALC_DRAWN = "[data-revision]"  # a calculator widget drew its answer
STARTED = re.compile(r"^step \d+ of [1-9]\d*$")  # the run began: its steps are known


@pytest.fixture(scope="module")
def visitor_page(browser):
    """One page for the module, recording console errors and every response of the page and
    its frames with a 4xx or 5xx status (a new page per visit started a renderer each time)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.console_errors = []
    page.failed_requests = []
    page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    page.on(
        "response",
        lambda r: r.status >= 400 and page.failed_requests.append(f"{r.status} {r.url}"),
    )
    yield page
    context.close()


@pytest.fixture
def visitor(visitor_page, live_server):
    """The module's page, emptied as a new visitor's would be, with nothing recorded."""
    empty_page(visitor_page, live_server.url)
    visitor_page.console_errors.clear()
    visitor_page.failed_requests.clear()
    return visitor_page


def use_lab(page, url: str) -> None:
    """Open the lab, run ring allreduce to its last step."""
    page.goto(f"{url}/lab?collective=allreduce&algorithm=ring&ranks=4&speed=4")
    page.wait_for_function("() => document.documentElement.dataset.socket === 'connected'")
    page.click("#run")
    expect(page.locator(f".player {COUNTER}")).to_have_text(FULL_RUN, timeout=60_000)


def use_lesson(page, url: str, slug: str) -> None:
    """Open a lesson and scroll through it, so every lazy frame loads and starts: an animation
    until the engine's run has begun (its step count known), a calculator until it answers."""
    page.goto(f"{url}/lessons/{slug}")
    # A reader opens the solutions and answers too; a frame inside one loads only then.
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    frames = page.locator("figure.live iframe")
    for i in range(frames.count()):
        frames.nth(i).scroll_into_view_if_needed()
        inside = page.frame_locator("figure.live iframe").nth(i)
        if frames.nth(i).get_attribute("src").startswith("/embed/calc/"):
            expect(inside.locator(CALC_DRAWN).first).to_be_attached(timeout=30_000)
        else:
            expect(inside.locator(COUNTER)).to_have_text(STARTED, timeout=30_000)
    page.keyboard.press("End")


def use_quiz(page, url: str) -> None:
    """Open the quiz and draw the first question."""
    page.goto(f"{url}/quiz")
    page.get_by_role("button", name="Start quiz").click()
    expect(page.locator(".question-card")).to_be_visible()


def use_embed(page, url: str) -> None:
    page.goto(f"{url}/embed/allreduce/ring?ranks=4&autoplay=1&speed=4")
    expect(page.locator(COUNTER)).to_have_text(FULL_RUN, timeout=60_000)


def use_plain(page, url: str, path: str) -> None:
    page.goto(f"{url}{path}")
    page.wait_for_load_state("networkidle")


def use_calculators(page, url: str, path: str) -> None:
    """Open calculators and wait until every widget has drawn its answer."""
    page.goto(f"{url}{path}")
    widgets = page.locator("[data-role=form]")
    expect(page.locator(CALC_DRAWN)).to_have_count(widgets.count(), timeout=30_000)


def use_race(page, url: str) -> None:
    """Open the race view, wait for its lanes and sweep, and play it to the finish by keys."""
    page.goto(f"{url}/lab?mode=race")
    expect(page.locator('[data-role="clock-crossovers"]')).to_be_visible(timeout=30_000)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("End")
    expect(page.locator(".lane.finished")).to_have_count(3)


def use_race_embed(page, url: str) -> None:
    page.goto(f"{url}/embed/race?collective=allgather&algorithms=ring,bruck&ranks=8&bytes=4096")
    expect(page.locator(".lane")).to_have_count(2, timeout=30_000)


VISITS = [
    ("home", lambda page, url: use_plain(page, url, "/")),
    ("lab, run to the end", use_lab),
    ("lessons index", lambda page, url: use_plain(page, url, "/lessons/")),
    *[
        (f"lesson {slug}", lambda page, url, slug=slug: use_lesson(page, url, slug))
        for slug in LESSONS
    ],
    ("quiz, a question drawn", use_quiz),
    ("calculators", lambda page, url: use_calculators(page, url, "/calculators")),
    ("embed, autoplayed to the end", use_embed),
    ("race, played to the finish", use_race),
    ("race embed", use_race_embed),
    *[
        (
            f"embed calc {name}",
            lambda page, url, name=name: use_calculators(page, url, f"/embed/calc/{name}"),
        )
        for name in sorted(CALCULATORS)[:1]
    ],
]


@pytest.mark.parametrize("use", [v for _, v in VISITS], ids=[name for name, _ in VISITS])
def test_a_page_in_normal_use_logs_no_error_and_no_failed_request(visitor, live_server, use):
    use(visitor, live_server.url)
    assert visitor.failed_requests == []
    assert visitor.console_errors == []
