"""The embed's first picture (step 0 drawn on the server) in real Chromium: it is there without
JavaScript, it is what the live views then draw at step 0, in the same boxes, and an embed
out of sight neither connects nor plays until it is scrolled to."""

from __future__ import annotations

import time

import pytest

from tests.browser.buffer_cells import CELLS, OUTLINED, rgb
from tests.browser.test_embed import COUNTER, watch_counter, wiki  # noqa: F401  (fixture)

pytestmark = pytest.mark.browser

# One embed per kind of picture: ring, two trees, nodes with GPUs, all-to-all's rank ×
# destination grid over a complete graph, and a hypercube with a folded rank.
EMBEDS = [
    "/embed/allreduce/ring?ranks=8",
    "/embed/allreduce/double_binary_tree?ranks=8",
    "/embed/allreduce/hierarchical?ranks=8&ranks_per_node=4",
    "/embed/all_to_all/pairwise?ranks=4&elements=8",
    "/embed/allreduce/recursive_doubling?ranks=6",
    "/embed/allgather/ring?ranks=40&theme=dark",  # no gaps: equal cells merged into spans
    "/embed/reduce/binomial_tree?ranks=6&root=2",  # only the root's row must end complete
    "/embed/allreduce/collnet?ranks=8&ranks_per_node=4",  # a switch drawn as a node
]

BOX = """(role) => {
  const r = document.querySelector(`[data-role="${role}"]`).getBoundingClientRect();
  return [r.width, r.height];
}"""

# The server's buffer grid: every cell, spans expanded, with its colour as drawn;
# the goal outlines; the grid's box and the box its cells fill (where the colours are).
GRID = """(grid) => {
  const goals = [], paints = [], area = [Infinity, Infinity, -Infinity, -Infinity];
  for (const i of grid.querySelectorAll("i")) {
    const span = Number((i.style.gridColumn.match(/span (\\d+)/) || [0, 1])[1]);
    const r = Number(i.dataset.r), c = Number(i.dataset.c);
    for (let k = 0; k < span; k++) {
      paints.push([r, c + k, getComputedStyle(i).backgroundColor]);
      if (i.classList.contains("s0-goal")) goals.push([r, c + k]);
    }
    const b = i.getBoundingClientRect();
    area.splice(0, 4, Math.min(area[0], b.left), Math.min(area[1], b.top),
      Math.max(area[2], b.right), Math.max(area[3], b.bottom));
  }
  const g = grid.getBoundingClientRect();
  return {goals, paints, gridBox: [g.left, g.top, g.width, g.height], cellArea: area};
}"""

# The live grid (lab-buffer.js), its cells on a canvas: each cell's colour as drawn, the cells it
# outlines as goals, the grid's box and the canvas's, where the cells are.
LIVE_GRID = f"""(grid) => {{
  const cells = ({CELLS})(grid), cv = grid.querySelector("canvas"), c = cv.getBoundingClientRect();
  const g = grid.getBoundingClientRect();
  return {{fills: cells.map((x) => [x.r, x.c, x.fill]), goals: ({OUTLINED})(grid).goal,
    gridBox: [g.left, g.top, g.width, g.height], cellArea: [c.left, c.top, c.right, c.bottom]}};
}}"""

STATIC_PICTURE = f"""() => {{
  const svg = document.querySelector('[data-role="topology"] svg.step0');
  const nodes = [...svg.querySelectorAll("circle")].map((c) =>
    [Number(c.dataset.rank), Number(c.getAttribute("cx")), -Number(c.getAttribute("cy"))]);
  const edges = [...svg.querySelectorAll(".s0-edges line")].map((l) =>
    [l.x1, l.y1, l.x2, l.y2].map((a, i) => (i % 2 ? -1 : 1) * a.baseVal.value));
  const grid = document.querySelector('[data-role="buffer"] .step0-grid');
  const box = {BOX};
  return {{nodes, edges, ...({GRID})(grid), boxes: [box("topology"), box("buffer")],
          label: svg.getAttribute("aria-label"), gridLabel: grid.getAttribute("aria-label")}};
}}"""

# The live topology is the first picture itself, kept (the one <svg> in its box, the same
# element the HTML held: `kept`), with the layers the script adds, empty at step 0.
LIVE_PICTURE = f"""() => {{
  const svgs = document.querySelectorAll('[data-role="topology"] svg');
  const svg = svgs[0];
  const nodes = [...svg.querySelectorAll(".s0-nodes circle")].map((c) =>
    [Number(c.dataset.rank), Number(c.getAttribute("cx")), -Number(c.getAttribute("cy"))]);
  const edges = [...svg.querySelectorAll(".s0-edges line")].map((l) =>
    [l.x1, l.y1, l.x2, l.y2].map((a, i) => (i % 2 ? -1 : 1) * a.baseVal.value));
  const topology = {{svgs: svgs.length, kept: svg === window.firstTopology,
    layers: svg.parentNode.querySelectorAll(".t-arrows, .t-packets").length,
    marks: svg.parentNode.querySelectorAll(".t-arrows > *, .t-packets > *").length}};
  const grid = document.querySelector('[data-role="buffer-grid"]');
  const box = {BOX};
  return {{nodes, edges, ...({LIVE_GRID})(grid), boxes: [box("topology"), box("buffer")], topology,
          left: document.querySelectorAll('[data-role="step0"]').length}};
}}"""


def close(a: list[list], b: list[list]) -> bool:
    """Whether two lists of rows of numbers agree to a thousandth of a plot unit, in any order."""
    a, b = sorted(a), sorted(b)
    return len(a) == len(b) and all(
        len(x) == len(y) and all(abs(u - v) < 1e-3 for u, v in zip(x, y, strict=True))
        for x, y in zip(a, b, strict=True)
    )


def undirected(edges: list[list]) -> list[list]:
    """Each edge with its lower end first, so that a->b and b->a compare equal."""
    return [min(e[:2], e[2:]) + max(e[:2], e[2:]) for e in edges]


@pytest.fixture(scope="module")
def no_js_page(browser):
    """One page without scripts for the module: it only loads the server's HTML and is read
    (no script runs, so nothing is stored); a new page per test started a renderer each time."""
    context = browser.new_context(viewport={"width": 760, "height": 520}, java_script_enabled=False)
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("path", EMBEDS)
def test_the_first_picture_is_what_the_views_draw_at_step_0(live_server, no_js_page, page, path):
    no_js_page.goto(live_server.url + path)
    static = no_js_page.evaluate(STATIC_PICTURE)
    page.set_viewport_size({"width": 760, "height": 520})  # as the picture without scripts
    # The HTML's own <svg>, noted before any script runs, to tell whether the view kept it.
    page.add_init_script(
        """document.addEventListener("DOMContentLoaded", () => { window.firstTopology =
          document.querySelector('[data-role="topology"] svg'); });"""
    )
    page.goto(live_server.url + path)
    page.wait_for_function(
        "() => document.querySelector('[data-role=player]').dataset.drawnStep === '0'"
        " && document.querySelector('[data-role=buffer]').dataset.drawnStep === '0'"
    )
    drawn = page.evaluate(LIVE_PICTURE)
    assert drawn["topology"] == {"svgs": 1, "kept": True, "layers": 2, "marks": 0}
    assert close(static["nodes"], drawn["nodes"])  # the same ranks in the same places
    assert close(undirected(static["edges"]), undirected(drawn["edges"]))
    # every rank × chunk cell in the same colour (its count's), spans of the server's grid expanded
    assert static["paints"] == [[r, c, rgb(f)] for r, c, f in drawn["fills"]]
    assert sorted(static["goals"]) == sorted(drawn["goals"])  # the same cells outlined
    assert static["gridBox"] == drawn["gridBox"]  # the same grid, in the same place
    assert close([static["cellArea"]], [drawn["cellArea"]])  # its cells in the same box
    assert static["boxes"] == drawn["boxes"]  # replaced in place: no box changed size
    assert drawn["left"] == 0, "the Plotly views replace the first picture"
    assert static["label"].startswith("Step 0, before the first transfer")
    assert static["gridLabel"].startswith("Buffers at step 0")
    assert page.console_errors == []


def test_the_first_picture_is_there_without_javascript(live_server, no_js_page):
    """A wiki that strips scripts (or a reader without them) still gets a picture of step 0."""
    no_js_page.goto(live_server.url + "/embed/allreduce/ring?ranks=8")
    svg = no_js_page.locator('[data-role="topology"] svg.step0[role="img"]')
    assert svg.get_attribute("aria-label").startswith("Step 0, before the first transfer: 8 ranks")
    assert svg.locator("circle").count() == 8 and svg.locator(".s0-edges line").count() == 8
    assert svg.locator("text").all_text_contents() == [str(r) for r in range(8)]
    cells = no_js_page.locator('[data-role="buffer"] .step0-grid i.s0-cell')
    assert cells.count() == 64 and set(cells.all_inner_texts()) == {"1"}  # each holds its own
    assert no_js_page.locator('[data-role="buffer"] .step0-grid').bounding_box()["height"] > 100
    assert no_js_page.locator('[data-role="empty"]').first.is_hidden()  # no "Loading…" over it


LONG_PAGE = (
    '<!doctype html><title>notes</title><link rel="icon" href="data:,"><h1>A long page</h1>'
    '<div style="height: 4000px">Read this first.</div>'
    '<iframe src="{src}" width="700" height="480" title="Collective Lab"></iframe>'
)
UNSEEN = """() => ({
  socket: document.documentElement.dataset.socket || null,
  scripts: Boolean(window.CollectiveLab && window.CollectiveLab.labSession),
  emits: window.labMetrics ? window.labMetrics.simulateEmits : 0,
  counter: document.querySelector('[data-role="counter"]').textContent,
})"""


@pytest.mark.parametrize("origin", ["same", "other"])
def test_an_embed_out_of_sight_waits_until_it_is_scrolled_to(live_server, page, wiki, origin):  # noqa: F811
    """Far below the fold, an embed paints its first picture and does nothing more; scrolled
    to, it connects and autoplays. A frame of another origin is not even rendered out of sight
    (Chromium throttles it: its scripts wait, after-paint.js); one of the same origin is, and its
    scripts run: the embed waits for the IntersectionObserver (embed.js)."""
    src = "/embed/allreduce/ring?ranks=4&autoplay=1&speed=8"
    body = LONG_PAGE.format(src=live_server.url + src)
    if origin == "same":
        url = f"{live_server.url}/a-long-wiki-page"
        page.route(url, lambda route: route.fulfill(body=body, content_type="text/html"))
    else:
        folder, base = wiki
        (folder / "long.html").write_text(body)
        url = f"{base}/long.html"
    page.goto(url)
    frame = page.wait_for_selector("iframe").content_frame()
    frame.wait_for_selector("svg.step0")  # the frame has loaded, its first picture is there
    if origin == "same":  # rendered out of sight: its scripts run, and embed.js holds back
        frame.wait_for_function("() => window.CollectiveLab && window.CollectiveLab.labSession")
    time.sleep(1.5)  # time it would have had to connect and play
    unseen = frame.evaluate(UNSEEN)
    assert (unseen["socket"], unseen["emits"], unseen["counter"]) == (None, 0, "step 0 of 0")
    page.locator("iframe").scroll_into_view_if_needed()
    watch_counter(frame, "step 6 of 6")  # seen: it connects and plays to the end
    assert frame.evaluate("window.labMetrics.simulateEmits") == 1
    assert page.console_errors == []
