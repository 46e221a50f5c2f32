"""The lab without a mouse or without sight, in real Chromium (issue 15).

- A screen reader hears each step once: the polite live region holds the step's narration
  after keyboard steps, and changes once per step (a theme switch redraws and reads nothing).
- The figures' text alternatives are the trace's: the transfers table lists the step's
  transfers, the grid table each cell's k/p.
- The arrow keys move the selected cell while the grid has focus, without stepping, and the
  sentence about that cell says what the trace did to it; Esc gives the arrows back to steps.
- With prefers-reduced-motion the chunks do not fly and CSS transitions take no time, and the
  steps still change.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_a11y import (
    AXE,
    COLOUR_RULES,
    assert_no_violation_in_both_themes,
    axe_violations,
)
from tests.browser.test_lab_narration import (
    COUNTER,
    LIVE,
    NARRATION,
    RUNS,
    narrations,
    open_lab,
    simulate,
)
from tests.conftest import require

pytestmark = pytest.mark.browser

RING = RUNS[0]  # allreduce, ring, 4 ranks, 8 elements: 6 steps, 4 chunks
GRID = '[data-role="buffer"]'
STORY = '[data-role="cell-story"]'


def holdings(doc: dict, step: int) -> dict[tuple[int, int], list[int]]:
    """(rank, chunk) → holders after `step` steps, replayed from the trace as the page does."""
    cells = {(c["rank"], c["chunk"]): c["holders"] for c in doc["initial_state"]}
    for s in doc["steps"][:step]:
        cells.update({(c["rank"], c["chunk"]): c["holders"] for c in s["state"]})
    return cells


def chunk_label(c: int) -> str:
    return chr(65 + c) if c < 26 else f"C{c}"


def open_ring(page, live_server) -> dict:
    """Open the lab on the 4-rank ring, wait for its whole run, and return its trace."""
    doc = simulate(live_server, RING)
    open_lab(page, live_server, RING, doc["total_steps"])
    return doc


def open_table(page, kind: str):
    page.locator(f'[data-role="{kind}-details"] summary').click()
    return page.locator(f'[data-role="{kind}-table"]')


def test_a_screen_reader_hears_each_step_once(live_server, page):
    sentences = narrations(open_ring(page, live_server))
    live = page.locator(LIVE)
    page.evaluate(
        """sel => { window.heard = []; const el = document.querySelector(sel);
        new MutationObserver(() => window.heard.push(el.textContent))
          .observe(el, {childList: true, characterData: true, subtree: true}); }""",
        LIVE,
    )
    for k in (1, 2, 3):
        page.keyboard.press("ArrowRight")
        expect(live).to_have_text(sentences[k - 1])
    # what assistive technology gets: the live region in the accessibility tree, with the text
    assert sentences[2] in live.aria_snapshot()
    assert live.evaluate("e => getComputedStyle(e).display") != "none"
    page.get_by_role("button", name=re.compile("theme", re.I)).click()  # redraws every view
    page.wait_for_function("document.documentElement.dataset.theme === 'dark'")
    page.keyboard.press("ArrowLeft")
    expect(live).to_have_text(sentences[1])
    assert page.evaluate("window.heard") == sentences[:3] + [sentences[1]]
    # the inspector is not a second live region talking over the step
    assert page.locator('[data-role="inspector"][aria-live]').count() == 0
    assert page.console_errors == []


def test_end_is_the_last_step(live_server, page):
    doc = open_ring(page, live_server)
    total = doc["total_steps"]
    page.keyboard.press("End")
    expect(page.locator(COUNTER)).to_have_text(f"step {total} of {total}")
    expect(page.locator(NARRATION)).to_have_text(narrations(doc)[-1])
    assert "<kbd>End</kbd>" in page.locator(".keys").inner_html()
    assert page.console_errors == []


def test_the_transfers_table_is_the_steps_transfers(live_server, page):
    doc = open_ring(page, live_server)
    table = open_table(page, "transfers")
    for k in (1, 2, 5):
        while page.locator(COUNTER).inner_text() != f"step {k} of {doc['total_steps']}":
            page.keyboard.press("ArrowRight")
        want = [
            [
                f"r{t['src']}",
                f"r{t['dst']}",
                chunk_label(t["chunk"]),
                t["op"],
                str(t["elements"]),
                f"{t['elements'] * 4} B",
            ]
            for t in doc["steps"][k - 1]["transfers"]
        ]
        expect(table.locator("caption")).to_contain_text(f"step {k} of")
        rows = table.locator("tbody tr").evaluate_all(
            "trs => trs.map(tr => [...tr.cells].map(td => td.textContent.trim()))"
        )
        assert rows == want, k
    assert page.console_errors == []


def test_the_grid_table_counts_each_cells_contributions(live_server, page):
    doc = open_ring(page, live_server)
    table = open_table(page, "grid")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(table.locator("caption")).to_contain_text("after step 2 of")
    cells = holdings(doc, 2)
    p = RING["ranks"]
    want = [
        [f"r{r}"] + [f"{len(cells[r, c])}/{p}" if cells.get((r, c)) else "empty" for c in range(p)]
        for r in range(p)
    ]
    rows = table.locator("tbody tr").evaluate_all(
        "trs => trs.map(tr => [...tr.cells].map(td => td.firstChild.textContent.trim()))"
    )
    assert rows == want
    assert page.console_errors == []


def story_facts(doc: dict, step: int, r: int, c: int) -> list[str]:
    """What the sentence about cell (r, c) after `step` steps must say, read off the trace."""
    transfers = doc["steps"][step - 1]["transfers"]
    into = [t for t in transfers if t["dst"] == r and t["chunk"] == c]
    out = [t for t in transfers if t["src"] == r and t["chunk"] == c]
    k = len(holdings(doc, step)[r, c])
    facts = [f"Rank {r}'s chunk {chunk_label(c)}"]
    if into:
        facts += [f"rank {into[0]['src']} sent its copy and rank {r} added it", f"{k} of 4"]
    if out:
        facts.append(f"sent its copy to rank {out[0]['dst']}")
    if not into and not out:
        facts += ["unchanged this step", f"{k} of 4"]
    return facts


def test_arrow_keys_move_the_selected_cell_and_its_sentence(live_server, page):
    doc = open_ring(page, live_server)
    total = doc["total_steps"]
    page.keyboard.press("ArrowRight")
    expect(page.locator(COUNTER)).to_have_text(f"step 1 of {total}")
    page.select_option('[data-role="pick-rank"]', "0")  # pick cell (0, A): the sentence appears
    page.select_option('[data-role="pick-col"]', "0")
    grid, story, live = page.locator(GRID), page.locator(STORY), page.locator(LIVE)
    expect(grid).to_have_attribute("data-selected", "0,0")
    table = open_table(page, "grid")
    grid.focus()
    seen = []
    for key, cell in (("ArrowDown", (1, 0)), ("ArrowRight", (1, 1)), ("ArrowUp", (0, 1))):
        page.keyboard.press(key)
        expect(grid).to_have_attribute("data-selected", f"{cell[0]},{cell[1]}")
        for fact in story_facts(doc, 1, *cell):
            expect(story).to_contain_text(fact)
        expect(live).to_have_text(story.inner_text())  # read out as the selection moves
        current = table.locator('td[aria-current="true"]')
        expect(current).to_have_count(1)
        assert current.evaluate("td => [td.parentElement.rowIndex - 1, td.cellIndex - 1]") == list(
            cell
        )
        seen.append(story.inner_text())
    assert len(set(seen)) == 3, seen
    expect(page.locator(COUNTER)).to_have_text(f"step 1 of {total}")  # the arrows did not step
    # the same cell one step later: its sentence follows the step
    page.keyboard.press("Escape")
    page.keyboard.press("ArrowRight")
    expect(page.locator(COUNTER)).to_have_text(f"step 2 of {total}")
    for fact in story_facts(doc, 2, 0, 1):
        expect(story).to_contain_text(fact)
    # the focus ring shows where the keyboard is
    grid.focus()
    page.keyboard.press("ArrowLeft")
    outline = grid.evaluate(
        "e => getComputedStyle(e).outlineStyle + ' ' + getComputedStyle(e).outlineWidth"
    )
    assert outline.startswith("solid") and not outline.endswith(" 0px"), outline
    assert page.console_errors == []


@pytest.mark.parametrize(
    ("path", "theme"),
    [
        ("/lab?", None),
        ("/embed/allreduce/ring?theme={theme}&", "light"),
        ("/embed/allreduce/ring?theme={theme}&", "dark"),
    ],
    ids=["lab, both themes", "embed light", "embed dark"],
)
def test_axe_finds_nothing_in_the_sentences_and_tables(live_server, browser, theme, path):
    """The parts axe cannot see on a page that has not run: the sentences of a step and a picked
    cell, both tables open, the grid focused. The lab is checked in both themes after one walk
    (its own switch); an embed takes its theme from its URL, and the dark one changes colours
    only, so it is checked with the colour rules."""
    require(AXE.is_file(), f"axe-core is not installed ({AXE}); run npm ci --prefix tests/a11y")
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, color_scheme="light", bypass_csp=True
    )
    try:
        page = context.new_page()
        doc = simulate(live_server, RING)
        url = f"{live_server.url}{path.format(theme=theme)}ranks=4&elements=8"
        if path.startswith("/lab"):
            url += "&collective=allreduce&algorithm=ring"
        page.goto(url)
        # An embed loads its scripts after its first paint and connects once seen: allow for both.
        expect(page.locator(COUNTER)).to_have_text(
            f"step 0 of {doc['total_steps']}", timeout=15_000
        )
        page.keyboard.press("ArrowRight")
        open_table(page, "transfers")
        open_table(page, "grid")
        page.locator(GRID).focus()
        page.keyboard.press("ArrowDown")
        expect(page.locator(STORY)).to_be_visible()
        expect(page.locator('[data-role="transfers-table"] tbody tr')).to_have_count(4)
        if theme is None:
            assert_no_violation_in_both_themes(page, "the lab with a step told and both tables")
        else:
            violations = axe_violations(page, COLOUR_RULES if theme == "dark" else None)
            assert violations == [], "\n".join(violations)
    finally:
        context.close()


# The duration of every chunk flight: the topology posts each step's flight to the worker that
# draws it (static/js/lab-flight-worker.js, a "fly" message with its `ms`), or where the browser
# cannot hand it a canvas, moves each packet with the Web Animations API (Element.animate).
SPY = """() => { window.flights = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (keyframes, options) {
    window.flights.push(typeof options === "number" ? options : options.duration);
    return animate.apply(this, arguments);
  };
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message) {
    if (message && message.type === "fly") window.flights.push(message.ms);
    return post.apply(this, arguments);
  }; }"""


def play_and_watch(page, live_server) -> list:
    """Play the 4-rank ring at 1x to its end; return the durations of the chunks' flights."""
    doc = simulate(live_server, RING)
    total = doc["total_steps"]
    open_lab(page, live_server, {**RING, "speed": 2}, total)
    page.evaluate(SPY)
    page.locator('.player [data-role="play"]').click()
    expect(page.locator(COUNTER)).to_have_text(f"step {total} of {total}", timeout=60_000)
    expect(page.locator(NARRATION)).to_have_text(narrations(doc)[-1])
    return page.evaluate("window.flights")


def test_reduced_motion_turns_the_flights_off_and_still_steps(live_server, browser):
    moving = browser.new_context(viewport={"width": 1280, "height": 900})
    still = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    try:
        # without the preference the chunks fly: the spy sees it
        flights = play_and_watch(moving.new_page(), live_server)
        assert None not in flights and any(d > 0 for d in flights), flights
        page = still.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        assert set(play_and_watch(page, live_server)) <= {0}  # steps change, nothing flies
        # CSS transitions and animations take no time either
        duration = page.evaluate(
            """() => { const el = document.createElement('div');
            el.style.transition = 'opacity 2s'; el.style.animation = 'none 3s';
            document.body.append(el);
            const s = getComputedStyle(el); return [s.transitionDuration, s.animationDuration]; }"""
        )
        assert duration == ["0s", "0s"]
        assert errors == []
    finally:
        moving.close()
        still.close()
