"""How the lab draws, measured in real headless Chromium: no console errors when plots are
resized or hidden, tree titles clear of the ranks, readable ring arrows at 64 ranks, rank
colours apart from chunk colours, and chart legends clear of the marks they explain."""

from __future__ import annotations

import re

import pytest

from app.collectives import simulate
from app.drawing.grid import live
from tests.browser.buffer_cells import CELLS, fills, painted
from tests.colour import DICHROMATS, delta_e

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1700, "height": 1000}  # the page's type grows from 1600 px up

RECEIVED = """() => {
  const counter = document.querySelector('.player [data-role="counter"]').textContent;
  const badge = document.querySelector('.player [data-role="badge"]').textContent;
  return /of [1-9]/.test(counter) && !/receiving|starting/.test(badge);
}"""


def run_lab(page, live_server, query: str, viewport: dict = DESKTOP) -> None:
    """Open the lab with `query`, run it, and wait until every step has arrived."""
    page.set_viewport_size(viewport)
    page.goto(f"{live_server.url}/lab?{query}")
    page.wait_for_function("() => document.documentElement.dataset.socket === 'connected'")
    page.click("#run")
    page.wait_for_function(RECEIVED, timeout=60_000)


def show_step(page, step: int) -> None:
    """Move the scrubber to `step` (as a learner drags it) and wait until it is drawn."""
    page.evaluate(
        """(k) => { const s = document.querySelector('.player [data-role="scrubber"]');
          s.value = String(k); s.dispatchEvent(new Event('input', {bubbles: true})); }""",
        step,
    )
    page.wait_for_function(
        "(k) => document.querySelector('[data-role=player]').dataset.drawnStep === String(k)",
        arg=step,
    )


def see(page, role: str) -> None:
    """Scroll the lab's plot `role` into view and wait until it shows the step the player drew:
    the traffic views draw only while they are on screen."""
    page.locator(f'.lab [data-role="{role}"]').scroll_into_view_if_needed()
    page.wait_for_function(
        """(role) => document.querySelector(`.lab [data-role="${role}"]`).dataset.drawnStep
          === document.querySelector('[data-role=player]').dataset.drawnStep""",
        arg=role,
    )


def overlaps(a: dict, b: dict) -> bool:
    return (
        a["left"] < b["right"]
        and b["left"] < a["right"]
        and a["top"] < b["bottom"]
        and b["top"] < a["bottom"]
    )


# ---- A: no console errors when plots are resized, hidden and shown again ------------------


def test_lab_logs_no_error_through_resizes_reruns_theme_switches_and_leaving(live_server, page):
    run_lab(page, live_server, "collective=allreduce&algorithm=ring&ranks=8&speed=8")
    for size in (PHONE, {"width": 900, "height": 700}, DESKTOP, {"width": 600, "height": 900}):
        page.set_viewport_size(size)
        page.wait_for_timeout(250)  # the views refit 120 ms after their boxes settle
    page.select_option("#algorithm", "double_binary_tree")
    page.click("#run")
    page.wait_for_function(RECEIVED)
    page.set_viewport_size(DESKTOP)
    page.click('[data-role="theme-toggle"]')
    page.wait_for_timeout(250)
    page.click('[data-role="theme-toggle"]')
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(400)
    # Leave without a navigation, as a single-page wiki swaps its content: the plots leave
    # the document while their resize observer still watches them.
    page.set_content("<!doctype html><title>elsewhere</title><p>Another page</p>")
    page.wait_for_timeout(400)
    assert page.console_errors == []


TABS = """<!doctype html><title>wiki</title><link rel="icon" href="data:,">
<button id="show-embed">Animation</button> <button id="show-notes">Notes</button>
<div id="embed-tab"><iframe id="frame" src="{src}" width="760" height="520" style="border:0"
  title="Collective Lab"></iframe></div>
<div id="notes-tab" style="display:none"><p>Notes</p></div>
<script>
  const tab = (show, hide) => { document.getElementById(show).style.display = "";
    document.getElementById(hide).style.display = "none"; };
  document.getElementById("show-embed").onclick = () => tab("embed-tab", "notes-tab");
  document.getElementById("show-notes").onclick = () => tab("notes-tab", "embed-tab");
</script>"""

PLOT_FITS = """() => {
  const el = document.querySelector('[data-role="topology"]');
  const svg = el.querySelector('svg[data-role="topology-svg"]');
  return svg !== null && Math.abs(svg.getBoundingClientRect().width - el.clientWidth) <= 2;
}"""


def test_an_embed_in_a_hidden_tab_logs_no_error_and_refits_when_shown(live_server, page):
    """A wiki page's tabs hide the embed (display: none) and show it again at another size."""
    host = f"{live_server.url}/__wiki-tabs"
    src = f"{live_server.url}/embed/allreduce/ring?ranks=8&autoplay=1&speed=8"
    body = TABS.replace("{src}", src)
    page.route(host, lambda route: route.fulfill(content_type="text/html", body=body))
    page.goto(host)
    frame = page.wait_for_selector("iframe").content_frame()
    frame.wait_for_function("() => document.querySelector('[data-role=player]').dataset.drawnStep")
    page.click("#show-notes")
    page.wait_for_timeout(400)
    page.evaluate("document.getElementById('frame').width = '520'")  # resized while hidden
    page.wait_for_timeout(400)
    page.click("#show-embed")
    frame.wait_for_function(PLOT_FITS)
    page.click("#show-notes")
    page.wait_for_timeout(400)
    page.click("#show-embed")
    page.wait_for_timeout(400)
    assert frame.evaluate(PLOT_FITS)
    assert page.console_errors == []


# ---- B: the tree titles clear every rank and label -------------------------------------------

TREE_TITLES = """() => {
  const el = document.querySelector('.lab [data-role="topology"]');
  const svg = el.querySelector('svg[data-role="topology-svg"]');
  const box = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width}; };
  const titles = [...svg.querySelectorAll(':scope > text')]
    .filter((t) => /^tree \\d$/.test(t.textContent))
    .map((t) => ({text: t.textContent, box: box(t)}));
  const labels = [...svg.querySelectorAll('.s0-ranks text, g.s0-muted text')]
    .map((t) => ({text: 'label ' + t.textContent, box: box(t)}));
  const ranks = [...svg.querySelectorAll('.s0-nodes circle')]
    .map((c) => ({text: 'disc ' + c.dataset.rank, box: box(c)})).filter((p) => p.box.width > 0);
  return {titles, others: labels.concat(ranks), plot: box(el)};
}"""


def assert_tree_titles_clear(page, ranks: int) -> None:
    drawn = page.evaluate(TREE_TITLES)
    assert [t["text"] for t in drawn["titles"]] == ["tree 1", "tree 2"]
    assert any(o["text"].startswith("disc") for o in drawn["others"])
    plot = drawn["plot"]
    for title in drawn["titles"]:
        box = title["box"]
        assert plot["left"] <= box["left"] and box["right"] <= plot["right"], (ranks, title)
        hits = [o["text"] for o in drawn["others"] if overlaps(box, o["box"])]
        assert hits == [], f"{ranks} ranks: {title['text']} overlaps {hits}"


def settle(page) -> None:
    """Wait for two frames: the browser has laid the page out at its new size."""
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


@pytest.mark.parametrize(
    ("viewport", "resized"), [(DESKTOP, PHONE), (PHONE, DESKTOP)], ids=["desktop", "phone"]
)
def test_tree_titles_overlap_no_rank_or_label(live_server, page, viewport, resized):
    """Drawn at one width and seen at another (a phone turned, a window widened), the tree
    titles stay clear of every disc and label: the picture is one viewBox, scaled whole."""
    for ranks in (4, 64):  # the case that broke (4 ranks, phone -> desktop) and the densest
        query = f"collective=allreduce&algorithm=double_binary_tree&ranks={ranks}&speed=8"
        run_lab(page, live_server, query, viewport)
        show_step(page, 1)
        assert_tree_titles_clear(page, ranks)
        before = page.evaluate(TREE_TITLES)["plot"]
        page.set_viewport_size(resized)
        page.wait_for_function(PLOT_FITS)
        settle(page)
        assert page.evaluate(TREE_TITLES)["plot"]["width"] != before["width"]
        assert_tree_titles_clear(page, ranks)
    assert page.console_errors == []


# ---- C: ring arrows at 64 ranks are few and large enough to read; at 8 every transfer has one

# Each arrow of the step on screen: its hover text, its length from the start of its shaft to
# the tip of its head and the head's length, in screen pixels.
ARROWS = """() => {
  const svg = document.querySelector('.lab [data-role="topology"] svg[data-role="topology-svg"]');
  const scale = svg.getScreenCTM().a;  // screen pixels per plot unit
  return [...svg.querySelectorAll('.t-arrows .arrow')].map((g) => {
    const shaft = g.querySelector('.shaft'), head = g.querySelector('.head');
    const end = shaft.getPointAtLength(shaft.getTotalLength());
    let tip = end, headLength = 0;
    if (head) {
      const [t, b1, b2] = head.getAttribute('d').slice(1, -1).split('L')
        .map((p) => p.split(',').map(Number));
      tip = {x: t[0], y: t[1]};
      headLength = Math.hypot(t[0] - (b1[0] + b2[0]) / 2, t[1] - (b1[1] + b2[1]) / 2) * scale;
    }
    return {
      text: g.querySelector('title').textContent, head: headLength,
      length: (shaft.getTotalLength() + Math.hypot(tip.x - end.x, tip.y - end.y)) * scale,
    };
  });
}"""

PAIR = re.compile(r"(?=r(\d+) → r(\d+))")  # overlapping, so "r0 → r1 → r2" names two pairs


def pairs_named(text: str) -> set[tuple[int, int]]:
    return {(int(a), int(b)) for a, b in PAIR.findall(text)}


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_64_rank_ring_arrows_are_few_and_readable(live_server, page, viewport):
    run_lab(page, live_server, "collective=allreduce&algorithm=ring&ranks=64&speed=8", viewport)
    trace = simulate("allreduce", "ring", ranks=64, elements=64)
    for step in (1, 64, 126):  # reduce-scatter, then allgather (copies)
        show_step(page, step)
        arrows = page.evaluate(ARROWS)
        transfers = trace.steps[step - 1].transfers
        assert 4 <= len(arrows) <= 24, f"step {step}: {len(arrows)} arrows"
        for arrow in arrows:
            assert arrow["length"] >= 24, (step, arrow)
            assert arrow["head"] >= 8, (step, arrow)
        named = set().union(*(pairs_named(a["text"]) for a in arrows))
        assert {(t.src, t.dst) for t in transfers} <= named, "every transfer in an arrow's hover"
    assert page.console_errors == []


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_8_rank_ring_draws_one_arrow_per_transfer(live_server, page, viewport):
    run_lab(page, live_server, "collective=allreduce&algorithm=ring&ranks=8&speed=8", viewport)
    trace = simulate("allreduce", "ring", ranks=8, elements=64)
    for step in (1, 9):
        show_step(page, step)
        arrows = page.evaluate(ARROWS)
        transfers = trace.steps[step - 1].transfers
        assert len(arrows) == len(transfers)
        drawn = sorted(
            (*sorted(pairs_named(a["text"])), re.search(r"chunk (\w+)", a["text"]).group(1))
            for a in arrows
        )
        assert drawn == sorted(((t.src, t.dst), chr(65 + t.chunk)) for t in transfers)
        assert min(a["length"] for a in arrows) >= 24
        assert min(a["head"] for a in arrows) >= 8


# ---- D: rank colours and chunk colours never look alike, in either theme ---------------------

DRAWN_COLOURS = """() => {
  const topo = document.querySelector('.lab [data-role="topology"]');
  const bars = document.querySelector('.lab [data-role="rank-bytes"]');
  const list = (c) => (Array.isArray(c) ? c : [c]);
  const discs = [...topo.querySelectorAll('.s0-nodes circle')]
    .map((c) => getComputedStyle(c).fill);
  const arrows = [...topo.querySelectorAll('.t-arrows .arrow')]
    .map((g) => g.getAttribute('stroke'));
  const swatches = (role) => [...document.querySelectorAll(`[data-role="${role}"] .dot`)]
    .map((d) => getComputedStyle(d).backgroundColor);
  return {
    ranks: [...discs, ...swatches('legend-ranks'), ...list(bars.data[0].marker.color)],
    chunks: [...swatches('legend-chunks'), ...arrows],
  };
}"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_rank_colours_are_far_from_every_chunk_colour(live_server, page, theme):
    run_lab(page, live_server, "collective=allreduce&algorithm=ring&ranks=8&speed=8")
    if page.evaluate("document.documentElement.dataset.theme") != theme:
        page.click('[data-role="theme-toggle"]')  # the views redraw in the new theme
    assert page.evaluate("document.documentElement.dataset.theme") == theme
    show_step(page, 2)
    see(page, "rank-bytes")
    drawn = page.evaluate(DRAWN_COLOURS)
    assert len(set(drawn["chunks"])) >= 8  # the legend shows all eight chunk colours
    close = sorted(
        {
            (vision, round(delta_e(r, c, vision), 1), r, c)
            for vision in DICHROMATS
            for r in set(drawn["ranks"])
            for c in set(drawn["chunks"])
            if delta_e(r, c, vision) < 20
        }
    )
    assert close == [], f"rank and chunk colours within ΔE 20: {close}"
    assert page.console_errors == []


# ---- E: a chart's legend is not struck through by the marks it explains ---------------------

BAR_LEGEND = """() => {
  const el = document.querySelector('.lab [data-role="rank-bytes"]');
  const box = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const legend = [...el.querySelectorAll('.annotation-text')].map(box);
  const marks = [...el.querySelectorAll('.scatterlayer .point, .barlayer .point')].map(box);
  return {legend, marks, plot: box(el)};
}"""


@pytest.mark.parametrize(
    "viewport", [DESKTOP, PROJECTOR, PHONE], ids=["desktop", "projector", "phone"]
)
def test_bytes_per_rank_legend_clears_the_formula_marks(live_server, page, viewport):
    run_lab(page, live_server, "collective=allreduce&algorithm=ring&ranks=8&speed=8", viewport)
    show_step(page, 14)  # the bars have reached the formula's marks
    see(page, "rank-bytes")
    drawn = page.evaluate(BAR_LEGEND)
    assert len(drawn["legend"]) == 1 and len(drawn["marks"]) == 16
    legend = drawn["legend"][0]
    assert drawn["plot"]["top"] <= legend["top"] and legend["right"] <= drawn["plot"]["right"]
    assert [m for m in drawn["marks"] if overlaps(legend, m)] == []


# ---- F: the traffic views, drawn only while on screen, show the step on screen once seen ------

TRAFFIC = """() => {
  const q = (role) => document.querySelector(`.lab [data-role="${role}"]`);
  const heat = q('traffic'), bars = q('rank-bytes');
  return {heat: heat.dataset.drawnStep || null, bars: bars.dataset.drawnStep || null,
          z: heat.data ? heat.data[0].z : null, sent: bars.data ? bars.data[0].y : null};
}"""


def expected_traffic(trace, step: int) -> tuple[list, list]:
    """The link heatmap of step `step` (bytes per sender x receiver, None where nothing moved)
    and the bytes each rank has sent through it."""
    p, size = trace.ranks, trace.itemsize
    z = [[None] * p for _ in range(p)]
    for t in trace.steps[step - 1].transfers:
        z[t.src][t.dst] = (z[t.src][t.dst] or 0) + t.elements * size
    sent = [0] * p
    for s in trace.steps[:step]:
        for t in s.transfers:
            sent[t.src] += t.elements * size
    return z, sent


def test_traffic_views_show_the_step_on_screen_once_seen(live_server, page):
    run_lab(page, live_server, "collective=allreduce&algorithm=ring&ranks=8&speed=8")
    trace = simulate("allreduce", "ring", ranks=8, elements=64)
    show_step(page, 3)
    below = page.evaluate(TRAFFIC)
    assert below["heat"] is None and below["bars"] is None, "drawn while below the fold"
    for role in ("traffic", "rank-bytes"):
        see(page, role)
    drawn = page.evaluate(TRAFFIC)
    assert (drawn["z"], drawn["sent"]) == expected_traffic(trace, 3)
    show_step(page, 9)  # on screen: every step is drawn as it is shown
    page.wait_for_function(
        "() => document.querySelector('.lab [data-role=traffic]').dataset.drawnStep === '9'"
    )
    drawn = page.evaluate(TRAFFIC)
    assert drawn["heat"] == drawn["bars"] == "9"
    assert (drawn["z"], drawn["sent"]) == expected_traffic(trace, 9)
    page.evaluate("window.scrollTo(0, 0)")  # off screen again: a step goes by undrawn
    page.wait_for_timeout(300)  # the observers hear of the scroll (not a timing assertion)
    show_step(page, 12)
    assert page.evaluate(TRAFFIC)["heat"] is None
    see(page, "traffic")
    see(page, "rank-bytes")
    drawn = page.evaluate(TRAFFIC)
    assert (drawn["z"], drawn["sent"]) == expected_traffic(trace, 12)
    assert page.console_errors == []


# ---- G: the buffer grid, drawn only while on screen, catches up with the step once seen ------

BUFFER = f"""() => {{
  const el = document.querySelector('.lab [data-role="buffer"]');
  const grid = el.querySelector('[data-role="buffer-grid"]');
  return {{step: el.dataset.drawnStep || null, cells: grid ? ({CELLS})(grid) : []}};
}}"""


def drawn(page) -> dict:
    """The step the buffer grid shows and its cells' colours, row by row (none before it is
    built)."""
    out = page.evaluate(BUFFER)
    return {"step": out["step"], "rows": fills(out["cells"])}


def expected_counts(trace, step: int) -> list[list[int | None]]:
    """How many contributions each rank's copy of each chunk holds after `step` steps."""
    held = dict(trace.initial_holdings)
    for s in trace.steps[:step]:
        held.update({(u.rank, u.chunk): u.holders for u in s.updates})
    return [
        [bin(held.get((r, c), 0)).count("1") or None for c in range(len(trace.chunks))]
        for r in range(trace.ranks)
    ]


def test_the_buffer_grid_is_drawn_once_seen_and_shows_the_step_on_screen(live_server, page):
    run_lab(page, live_server, "collective=allreduce&algorithm=ring&ranks=8&speed=8", PHONE)
    trace = simulate("allreduce", "ring", ranks=8, elements=64)
    page.evaluate("window.scrollTo(0, 0)")
    show_step(page, 3)
    paints = live(trace)["paints"]
    assert drawn(page) == {"step": None, "rows": []}, "built while below the fold"
    see(page, "buffer")
    assert drawn(page) == {"step": "3", "rows": painted(expected_counts(trace, 3), paints)}
    page.evaluate("window.scrollTo(0, 0)")  # off screen again: steps go by unpainted
    page.wait_for_timeout(300)  # the observers hear of the scroll (not a timing assertion)
    show_step(page, 9)
    assert drawn(page)["step"] == "3"
    see(page, "buffer")  # scrolled to: the cells changed meanwhile are painted
    assert drawn(page) == {"step": "9", "rows": painted(expected_counts(trace, 9), paints)}
    assert page.console_errors == []
