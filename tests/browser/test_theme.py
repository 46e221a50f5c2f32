"""Light and dark: the reader's choice applies to every page and is remembered; embeds keep
the theme their host page asked for."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from app import create_app
from tests.browser.buffer_cells import CELLS, OUTLINED, rgb
from tests.browser.test_lab import open_lab, run_to_end
from tests.browser.test_lessons import FIXTURES
from tests.conftest import TEST_CONFIG, LiveServer

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


DARK_FG_RGB = "rgb(232, 233, 236)"
# The buffer grid's colours as drawn: its labels' ink and the outline of the cells this step
# changed, beside the page's --fg and --accent (resolved by the browser), and its cells' paint.
GRID_COLOURS = f"""() => {{
  const grid = document.querySelector('.lab [data-role="buffer-grid"]');
  const probe = document.createElement("span");
  document.body.append(probe);
  const resolve = (v) => {{
    probe.style.color = `var(${{v}})`;
    return getComputedStyle(probe).color;
  }};
  const cells = ({CELLS})(grid), outlined = ({OUTLINED})(grid);
  const picked = new Set(outlined.picked.map(String));
  const changed = new Set(outlined.changed.map(String));
  const key = (x) => `${{x.r}},${{x.c}}`;
  const out = {{
    labels: [...new Set([...grid.querySelectorAll(".s0-row, .s0-col")]
      .map((e) => getComputedStyle(e).color))].join(),
    changed: [...new Set(cells.filter((x) => changed.has(key(x)) && !picked.has(key(x)))
      .map((x) => x.edge))],
    fg: resolve("--fg"), accent: resolve("--accent"),
    cells: cells.map((x) => x.fill).join(),
    step: document.querySelector('.lab [data-role="buffer"]').dataset.drawnStep,
  }};
  probe.remove();
  return out;
}}"""


def grid_colours(page) -> dict:
    page.wait_for_function(
        "() => document.querySelector('.lab [data-role=\"buffer\"]').dataset.drawnStep"
        " === document.querySelector('[data-role=player]').dataset.drawnStep"
    )
    out = page.evaluate(GRID_COLOURS)
    return {**out, "changed": ",".join(rgb(c) for c in out["changed"])}


# The rank discs' fill in each theme (app/drawing/palette.py RANK_TONES), as computed styles.
LIGHT_DISC = "rgb(228, 230, 234)"  # #E4E6EA
DARK_DISC = "rgb(47, 51, 59)"  # #2F333B
DISC_FILLS = """() => [...document.querySelectorAll('[data-role="topology"] .s0-nodes circle')]
  .map((c) => getComputedStyle(c).fill)"""
TOPOLOGY_SVG = 'document.querySelector(\'[data-role="topology"] svg[data-role="topology-svg"]\')'

ARROW_COLOURS = """() => [...document.querySelectorAll('.t-arrows .arrow')]
  .map((g) => g.getAttribute('stroke'))"""


def disc_fills(page) -> set[str]:
    return set(page.evaluate(DISC_FILLS))


def test_the_lab_switches_theme_in_place_and_remembers_it(live_server, page):
    open_lab(page, live_server, "collective=allreduce&algorithm=ring&ranks=4&speed=4")
    assert theme(page) == "light"
    run_to_end(page, 6)
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(
        "() => document.querySelector('[data-role=player]').dataset.drawnStep === '5'"
    )
    grid_before = grid_colours(page)
    assert grid_before["labels"] == grid_before["fg"] != DARK_FG_RGB
    assert grid_before["changed"] == grid_before["accent"]  # the step's changed cells
    assert disc_fills(page) == {LIGHT_DISC}
    page.evaluate(f"{TOPOLOGY_SVG}.dataset.before = 'switch'")
    arrows = page.evaluate(ARROW_COLOURS)

    page.click(TOGGLE)
    assert theme(page) == "dark"
    assert page.locator(TOGGLE).get_attribute("aria-pressed") == "true"
    grid_after = grid_colours(page)
    assert grid_after["labels"] == grid_after["fg"] == DARK_FG_RGB  # the grid's ink follows
    assert grid_after["changed"] == grid_after["accent"] != grid_before["changed"]
    assert grid_after["cells"] == grid_before["cells"] and grid_after["step"] == "5"
    # The discs are recoloured by the page's CSS: the same picture, no new markup.
    assert disc_fills(page) == {DARK_DISC}
    assert page.evaluate(f"{TOPOLOGY_SVG}.dataset.before") == "switch"
    # The arrows are redrawn in the dark theme's chunk colours (its black is the page's ink).
    dark_arrows = page.evaluate(ARROW_COLOURS)
    assert len(dark_arrows) == len(arrows) > 0
    page.locator('.lab [data-role="traffic"]').scroll_into_view_if_needed()  # drawn once seen
    page.wait_for_function(
        "() => document.querySelector('.lab [data-role=\"traffic\"]').dataset.drawnStep === '5'"
    )
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


@pytest.fixture(scope="module")
def course_server():
    """The fixture lessons: tree-basics holds a @lab without autoplay and a @calc."""
    with LiveServer(create_app({**TEST_CONFIG, "LESSONS_DIR": str(FIXTURES)})) as server:
        yield server


def frame_of(page, selector: str):
    """Scroll a lesson's lazy frame into view and return its Frame once its page has loaded."""
    page.locator(selector).scroll_into_view_if_needed()
    frame = page.locator(selector).element_handle().content_frame()
    frame.wait_for_selector("body[class]")
    return frame


def test_a_lessons_live_frames_switch_theme_without_reloading(page, course_server):
    page.goto(f"{course_server.url}/lessons/tree-basics")
    assert theme(page) == "light"
    lab = frame_of(page, "figure.live-lab iframe")
    forward = lab.locator('[data-role="forward"]')
    for n in (1, 2, 3):
        expect(forward).to_be_enabled(timeout=20_000)
        forward.click()
        expect(lab.locator('[data-role="counter"]')).to_have_text(re.compile(f"^step {n} of "))
    calc = frame_of(page, "figure.live-calc iframe")
    widget = calc.locator(".calc-widget")
    expect(widget.locator(".calc-chart .main-svg").first).to_be_visible()
    revision = widget.get_attribute("data-revision")
    calc.locator("input[name=ranks]").fill("32")
    expect(widget).not_to_have_attribute("data-revision", revision, timeout=10_000)
    navigations = []
    page.on("framenavigated", lambda f: navigations.append(f.url))

    page.click(TOGGLE)
    for frame in (lab, calc):
        frame.wait_for_function("() => document.documentElement.dataset.theme === 'dark'")
    calc.wait_for_function(
        f"() => document.querySelector('.calc-chart')._fullLayout.font.color === '{DARK_FG}'"
    )
    lab.wait_for_function(f"() => ({DISC_FILLS})().every((fill) => fill === '{DARK_DISC}')")
    assert lab.locator('[data-role="counter"]').inner_text().startswith("step 3 of ")
    assert calc.locator("input[name=ranks]").input_value() == "32"
    assert navigations == [], "switching theme must not reload the frames"

    page.reload()  # a new visit starts the frames in the remembered theme
    assert (
        frame_of(page, "figure.live-calc iframe").evaluate("document.documentElement.dataset.theme")
        == "dark"
    )
    assert page.console_errors == []


def test_an_embed_takes_only_a_well_formed_theme_message_from_its_parent(page, course_server):
    page.goto(f"{course_server.url}/lessons/tree-basics")
    calc = frame_of(page, "figure.live-calc iframe")
    for message in (
        {"type": "collective-lab:theme", "theme": "neon"},
        {"type": "something-else", "theme": "dark"},
        {"theme": "dark"},
        "collective-lab:theme dark",
    ):
        page.evaluate(
            "(m) => document.querySelector('figure.live-calc iframe')"
            ".contentWindow.postMessage(m, '*')",
            message,
        )
    # The frame posting to itself is not its parent: ignored too.
    calc.evaluate("window.postMessage({type: 'collective-lab:theme', theme: 'dark'}, '*')")
    page.evaluate(
        "document.querySelector('figure.live-calc iframe').contentWindow"
        ".postMessage({type: 'collective-lab:theme', theme: 'dark'}, '*')"
    )
    calc.wait_for_function("() => document.documentElement.dataset.theme === 'dark'")
    assert page.console_errors == []
