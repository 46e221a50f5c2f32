"""Accessibility: axe-core finds no violation on any page, in the light and the dark theme.

axe-core is a real component of the tests, pinned in tests/a11y/package-lock.json and
installed by `npm ci --prefix tests/a11y` (.ci/run does it). It is injected into each page
as a script tag; the context bypasses the app's Content-Security-Policy only so that the
injected script may run. Every rule axe runs by default is checked (WCAG 2 A/AA and axe's
best practices), so a duplicate landmark or an empty table header fails as surely as a
colour below 4.5:1. Frames are checked as pages of their own (the embeds below), not from
inside the lesson that frames them. A page is loaded once and checked in the light theme, then
in the dark one after pressing its own theme switch: the load, not axe, was half of each test.
A theme changes colours only (site.css's custom properties, the charts' palettes), so after
every rule in one theme, the other is checked with the rules that read colours (COLOUR_RULES):
the structural rules would find the same document again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from app.costs.calculators import CALCULATORS
from tests.browser.buffer_cells import CELLS, OUTLINED, centre
from tests.conftest import require

pytestmark = [pytest.mark.browser, pytest.mark.server]

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "tests" / "a11y" / "node_modules" / "axe-core" / "axe.min.js"
LESSONS = sorted(p.stem for p in (ROOT / "lessons").glob("*.md"))
FIRST_CALC = sorted(CALCULATORS)[0]
RACE_EMBED = (
    "/embed/race?collective=allreduce&algorithms=ring,direct&ranks=4&bytes=1024&topology=nvswitch"
)
# What a visitor opens; the lab waits for its first step, a quiz for a drawn question.
PAGES = [
    "/",
    "/lab",
    "/lessons/",
    *[f"/lessons/{slug}" for slug in LESSONS],
    "/quiz",
    "/calculators",
    "/embed/allreduce/ring?ranks=4",
    f"/embed/calc/{FIRST_CALC}",
    "/lab?mode=race",  # the default race: a 2:1 fat-tree, three lanes and the sweep chart
    RACE_EMBED,
    "/class",
    "/class/ACDEFG",  # a student's first view of a class: the name to give
    "/nccl-log",  # the empty form; tests/browser/test_nccl_log.py checks it with a drawing
    "/measure",  # the empty form; tests/browser/test_measure.py runs a measurement
]
READY = {
    "/lab": '[data-role="counter"]',
    "/lab?mode=race": '[data-role="clock-crossovers"]',  # the lanes, then the sweep drawn
    RACE_EMBED: ".lane",
    "/embed/allreduce/ring?ranks=4": '[data-role="counter"]',
    "/class/ACDEFG": '[data-role="join-card"]',
}


@pytest.fixture(scope="module")
def light_context(browser):
    """A light-scheme context; the dark theme is reached with each page's own theme switch."""
    require(AXE.is_file(), f"axe-core is not installed ({AXE}); run npm ci --prefix tests/a11y")
    context = browser.new_context(
        viewport={"width": 1280, "height": 900},
        color_scheme="light",
        bypass_csp=True,  # only so the injected axe script may run
    )
    # Each page starts in the system's light theme, whatever the last page's switch chose.
    context.add_init_script("try { localStorage.removeItem('collective-lab:theme') } catch (e) {}")
    yield context
    context.close()


# The axe rules whose outcome depends on the colours drawn: what a theme switch can change.
COLOUR_RULES = ("color-contrast", "link-in-text-block")


def axe_violations(page, rules: tuple[str, ...] | None = None) -> list[str]:
    """Run axe on the page (every default rule, or only `rules`) and describe each violation:
    rule, impact, what, where."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    options = {"iframes": False}
    if rules is not None:
        options["runOnly"] = {"type": "rule", "values": list(rules)}
    result = page.evaluate(
        "async (options) => { const r = await axe.run(document, options);"
        " return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.map(n => ({target: n.target.join(' '), summary: n.failureSummary}))}))}",
        options,
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {n['target']}: {n['summary']}"
        for v in result
        for n in v["nodes"]
    ]


def switch_theme(page, theme: str) -> None:
    """Press the page's own theme switch and let the views redraw in the new theme."""
    page.click('[data-role="theme-toggle"]')
    page.wait_for_function(f"document.documentElement.dataset.theme === {theme!r}")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def assert_no_violation_in_both_themes(page, what: str) -> None:
    """Check the page as it stands in its theme (every rule), then in the other one, switched
    in place (the colour rules).

    The switch is the page's own button, clicked from script so that the keyboard focus stays
    where the learner left it (a quiz is answered by keys next). One walk through a page's
    states checks each state in both themes, instead of a second walk repeating every step.
    """
    first = page.evaluate("document.documentElement.dataset.theme")
    for theme in (first, "dark" if first == "light" else "light"):
        if theme != first:
            page.evaluate("document.querySelector('[data-role=\"theme-toggle\"]').click()")
            page.wait_for_function(f"document.documentElement.dataset.theme === {theme!r}")
            page.evaluate(
                "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
            )
        violations = axe_violations(page, None if theme == first else COLOUR_RULES)
        assert violations == [], f"{theme}: {what} " + json.dumps(violations, indent=1)


def open_page(page, url: str, path: str) -> None:
    page.goto(url)
    if path in READY:
        page.wait_for_selector(READY[path])


@pytest.fixture(scope="module")
def frameless_page(light_context):
    """One page of the light context for the module's page tests, its embedded frames answered
    with an empty page: each embed is checked as a page of its own below, and a lesson's
    frames running their animations only slowed axe down. Each test loads its own document
    (which starts light: the context's init script), so nothing of a page's scripts is left;
    a new page per test started a renderer each time."""
    page = light_context.new_page()
    page.route(
        "**/embed/**", lambda route: route.fulfill(content_type="text/html", body="<!doctype html>")
    )
    yield page
    page.close()


@pytest.mark.parametrize("path", [p for p in PAGES if not p.startswith("/embed/")])
def test_axe_finds_no_violation(frameless_page, live_server, path):
    """A page in the light theme, then in the dark one after its theme switch (one load)."""
    page = frameless_page
    open_page(page, f"{live_server.url}{path}", path)
    for theme in ("light", "dark"):
        if theme == "dark":
            switch_theme(page, theme)
        assert page.evaluate("document.documentElement.dataset.theme") == theme
        violations = axe_violations(page, None if theme == "light" else COLOUR_RULES)
        assert violations == [], f"{theme}: " + json.dumps(violations, indent=1)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("path", [p for p in PAGES if p.startswith("/embed/")])
def test_axe_finds_no_violation_in_an_embed(light_context, live_server, path, theme):
    """An embed takes its theme from its URL (or its parent), not from a switch of its own.

    Every rule in the light theme; in the dark one, the rules that read colours: the URL's
    theme changes the colours of the same document, as a switch does on the pages above."""
    page = light_context.new_page()
    try:
        sep = "&" if "?" in path else "?"
        open_page(page, f"{live_server.url}{path}{sep}theme={theme}", path)
        assert page.evaluate("document.documentElement.dataset.theme") == theme
        violations = axe_violations(page, None if theme == "light" else COLOUR_RULES)
        assert violations == [], json.dumps(violations, indent=1)
    finally:
        page.close()


def test_axe_finds_no_violation_in_a_class(light_context, browser, live_server):
    """The teacher's view and a student's, with a poll open and after its reveal, each state
    in both themes."""
    teacher = light_context.new_page()
    student_context = browser.new_context(
        viewport={"width": 390, "height": 844}, color_scheme="light", bypass_csp=True
    )
    try:
        teacher.goto(f"{live_server.url}/class")
        teacher.click('[data-role="start"]')
        teacher.wait_for_selector('[data-role="teacher-bar"]')
        student = student_context.new_page()
        student.goto(teacher.url)
        student.click('[data-role="join-card"] button[type="submit"]')
        student.wait_for_selector('[data-role="student-bar"]')
        teacher.click('[data-role="poll-pick"] button[type="submit"]')
        teacher.locator('.poll-item[data-kind="single"] button').first.click()
        student.click('[data-role="poll-card"] label[data-option-id]')
        for page in (teacher, student):
            assert_no_violation_in_both_themes(page, f"{page.url} with a poll open")
        teacher.click('[data-role="poll-reveal"]')
        student.wait_for_selector('[data-role="poll-outcome"]')
        for page in (teacher, student):
            assert_no_violation_in_both_themes(page, f"{page.url} after the reveal")
    finally:
        teacher.close()
        student_context.close()


QUIZ_KINDS = ("single", "multiple", "numeric", "explain", "predict", "order", "match")


def test_axe_finds_no_violation_in_each_state_of_the_quiz(light_context, live_server):
    """A question of every kind, its feedback, and the results with their chart, each state
    in both themes."""
    from tests.browser.test_quiz import answer_with_keyboard

    page = light_context.new_page()
    try:
        page.goto(f"{live_server.url}/quiz")
        for kind in QUIZ_KINDS:
            begin = f"new URLSearchParams('kinds={kind}&count=1')"
            page.evaluate(f"CollectiveLab.quizPage.begin({begin})")
            expect(page.locator(f'.question-card[data-kind="{kind}"]')).to_be_visible()
            assert_no_violation_in_both_themes(page, f"a {kind} question")
            answer_with_keyboard(page)
            expect(page.locator(".feedback .verdict")).to_be_visible()
            assert_no_violation_in_both_themes(page, f"{kind} feedback")
            page.keyboard.press("n")
            expect(page.locator(".results-chart .main-svg").first).to_be_visible(timeout=30_000)
            assert_no_violation_in_both_themes(page, f"results after a {kind} question")
    finally:
        page.close()


LIVE_GRID_DRAWN = """() => {
  const el = document.querySelector('[data-role="buffer"]');
  const cv = el.querySelector('[data-role="buffer-cells"]');
  return cv !== null && cv.dataset.changed !== ""
    && el.dataset.drawnStep === document.querySelector('[data-role=player]').dataset.drawnStep;
}"""


@pytest.mark.parametrize(
    "path",
    ["/lab?collective=reduce&algorithm=binomial_tree&ranks=8&root=2",
     "/embed/all_to_all/pairwise?ranks=4&elements=8&autoplay=0&theme=light",
     "/embed/all_to_all/pairwise?ranks=4&elements=8&autoplay=0&theme=dark"],
)  # fmt: skip
def test_axe_finds_no_violation_in_the_live_buffer_grid(light_context, live_server, path):
    """The buffer grid as the script draws it (lab-buffer.js), a step in, with cells outlined
    as changed, goal and picked, in both themes (the lab's switch, the embed's URL): the pages
    above may be checked before it is drawn."""
    page = light_context.new_page()
    try:
        page.goto(f"{live_server.url}{path}")
        page.wait_for_function("() => document.documentElement.dataset.socket === 'connected'")
        if path.startswith("/lab"):
            page.click("#run")
        page.locator('.player [data-role="forward"]').click()
        page.locator('[data-role="buffer"]').scroll_into_view_if_needed()
        page.wait_for_function(LIVE_GRID_DRAWN)
        grid = page.locator('[data-role="buffer-grid"]')
        cell = next(c for c in grid.evaluate(CELLS) if (c["r"], c["c"]) == (1, 0))
        page.mouse.click(*centre(cell))
        page.wait_for_function(
            "() => document.querySelector('[data-role=buffer-cells]').dataset.picked === '1,0'"
        )
        assert grid.evaluate(OUTLINED)["goal"]
        if path.startswith("/lab"):
            assert_no_violation_in_both_themes(page, path)
        else:
            assert page.evaluate("document.documentElement.dataset.theme") in path
            assert axe_violations(page) == []
    finally:
        page.close()


def test_axe_finds_no_violation_on_a_read_nccl_tests_output(light_context, live_server):
    """/nccl-tests with a real output read (tests/fixtures/nccl_tests): the form, the chart,
    the sentence and the table, in both themes. One load: the empty form is part of it."""
    page = light_context.new_page()
    try:
        page.goto(f"{live_server.url}/nccl-tests")
        output = ROOT / "tests" / "fixtures" / "nccl_tests" / "all_gather_2gpu_bf16.txt"
        page.fill("#nccl-output", output.read_text())
        page.click("#nccl-form button[type=submit]")
        page.wait_for_selector("#nccl-chart .main-svg")
        expect(page.locator("#nccl-table tbody tr")).to_have_count(7)
        assert_no_violation_in_both_themes(page, "/nccl-tests with an output read")
    finally:
        page.close()
