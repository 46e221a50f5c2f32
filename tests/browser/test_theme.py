"""Light and dark: the reader's choice applies to every page and is remembered; embeds keep
the theme their host page asked for."""

from __future__ import annotations

import pytest

from tests.browser.test_lab import open_lab, run_to_end

pytestmark = pytest.mark.browser

TOGGLE = '[data-role="theme-toggle"]'
DARK_FG = "#e8e9ec"  # --fg of [data-theme="dark"] in static/css/site.css
LIGHT_FG = "#1c1d21"


def theme(page) -> str:
    return page.evaluate("document.documentElement.dataset.theme")


def plot_font(page, role: str) -> str:
    return page.evaluate(
        f"document.querySelector('.lab [data-role=\"{role}\"]')._fullLayout.font.color"
    )


def test_the_lab_switches_theme_in_place_and_remembers_it(live_server, page):
    open_lab(page, live_server, "collective=allreduce&algorithm=ring&ranks=4&speed=4")
    assert theme(page) == "light"
    run_to_end(page, 6)
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(
        "() => document.querySelector('[data-role=player]').dataset.drawnStep === '5'"
    )
    assert plot_font(page, "topology") == LIGHT_FG

    page.click(TOGGLE)
    assert theme(page) == "dark"
    assert page.locator(TOGGLE).get_attribute("aria-pressed") == "true"
    page.wait_for_function(
        "() => document.querySelector('.lab [data-role=\"buffer\"]')._fullLayout.font.color === "
        f"'{DARK_FG}'"
    )
    assert plot_font(page, "topology") == DARK_FG
    assert plot_font(page, "traffic") == DARK_FG
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(21, 23, 27)"  # --bg of the dark theme
    # Same run, same step: the switch redraws, it does not restart.
    assert page.locator('.player [data-role="counter"]').inner_text() == "step 5 of 6"

    page.goto(f"{live_server.url}/calculators")
    assert theme(page) == "dark", "the choice carries to every page"
    page.click(TOGGLE)
    assert theme(page) == "light"
    page.reload()
    assert theme(page) == "light"
    assert page.console_errors == []


def test_without_a_choice_the_system_setting_is_followed(browser, live_server):
    context = browser.new_context(color_scheme="dark")
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/lessons/")
        assert theme(page) == "dark"
        assert page.locator(TOGGLE).inner_text() == "Light theme"
    finally:
        context.close()


def test_embeds_keep_their_host_pages_theme(live_server, page):
    page.goto(f"{live_server.url}/lab")
    page.click(TOGGLE)
    assert theme(page) == "dark"
    page.goto(f"{live_server.url}/embed/allreduce/ring?ranks=4")
    assert theme(page) == "light", "a wiki's ?theme (default light) wins over the reader's"
    assert page.locator(TOGGLE).count() == 0
    page.goto(f"{live_server.url}/embed/calc/crossover?theme=dark")
    assert theme(page) == "dark"
    assert page.console_errors == []


def test_a_lessons_live_frames_follow_the_page(live_server, page):
    page.goto(f"{live_server.url}/lessons/ring-allreduce")
    frames = page.locator("iframe[data-follows-theme]")
    assert frames.count() >= 2
    assert all("theme=dark" not in (f.get_attribute("src") or "") for f in frames.all())
    page.click(TOGGLE)
    page.wait_for_function(
        "() => [...document.querySelectorAll('iframe[data-follows-theme]')]"
        ".every((f) => new URL(f.src).searchParams.get('theme') === 'dark')"
    )
    page.reload()
    assert all("theme=dark" in f.get_attribute("src") for f in frames.all())
    assert page.console_errors == []
