"""The live lab in real headless Chromium: run, watch, step back, inspect, share, phone layout."""

from __future__ import annotations

import pytest

from app.collectives import simulate
from tests.browser.buffer_cells import CELLS, OUTLINED, centre

pytestmark = pytest.mark.browser

COUNTER = '.player [data-role="counter"]'
BADGE = '.player [data-role="badge"]'


def watch_simulate_emits(page) -> list[str]:
    """Record every `simulate` the page sends, over websocket frames or polling POSTs."""
    sent: list[str] = []

    def frame(payload) -> None:
        if isinstance(payload, str) and '"simulate"' in payload:
            sent.append(payload)

    page.on("websocket", lambda ws: ws.on("framesent", frame))
    page.on("request", lambda r: r.method == "POST" and frame(r.post_data or ""))
    return sent


def open_lab(page, live_server, query: str) -> None:
    page.goto(f"{live_server.url}/lab?{query}")
    page.wait_for_function("() => document.documentElement.dataset.socket === 'connected'")


def run_to_end(page, steps: int) -> None:
    page.click("#run")
    page.wait_for_function(
        f"() => document.querySelector('{COUNTER}').textContent === 'step {steps} of {steps}'",
        timeout=60_000,
    )
    page.wait_for_function(f"() => document.querySelector('{BADGE}').dataset.state === 'ok'")


def counter(page) -> str:
    return page.locator(COUNTER).inner_text()


def test_ring_allreduce_runs_verifies_and_steps_back_without_the_server(
    live_server, page, tmp_path
):
    simulates = watch_simulate_emits(page)
    open_lab(page, live_server, "collective=allreduce&algorithm=ring&ranks=4&speed=4")
    run_to_end(page, 6)
    assert page.locator(BADGE).inner_text() == "✓ result verified against numpy"
    assert "allgather" in page.locator('.player [data-role="phase"]').inner_text()
    assert "per rank" in page.locator('.player [data-role="bytes"]').inner_text()
    sent = len(simulates)
    emits = page.evaluate("window.labMetrics.simulateEmits")
    assert sent == emits == 2  # the link's run on load, and Run's

    page.keyboard.press("ArrowLeft")
    assert counter(page) == "step 5 of 6"
    page.keyboard.press("ArrowLeft")
    assert counter(page) == "step 4 of 6"
    assert page.locator('.player [data-role="phase"]').inner_text() == "allgather"
    page.keyboard.press("Home")
    assert counter(page) == "step 0 of 6"
    assert page.locator('.player [data-role="phase"]').inner_text() == "initial state"
    page.keyboard.press("ArrowRight")
    assert counter(page) == "step 1 of 6"
    assert page.locator('.player [data-role="phase"]').inner_text() == "reduce-scatter"
    page.keyboard.press(" ")  # play the rest from the steps already received
    page.wait_for_function(
        f"() => document.querySelector('{COUNTER}').textContent === 'step 6 of 6'", timeout=20_000
    )
    page.wait_for_function(
        "() => document.querySelector('[data-role=player]').dataset.drawnStep === '6'"
    )
    assert len(simulates) == sent, "stepping and replaying must not ask the server again"
    assert page.evaluate("window.labMetrics.simulateEmits") == emits

    shot = tmp_path / "lab-ring-allreduce-p4.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"\nscreenshot: {shot}")
    assert page.console_errors == []


def test_keys_do_not_step_while_typing_in_a_control(live_server, page):
    open_lab(page, live_server, "collective=allreduce&algorithm=ring&ranks=4&speed=8")
    run_to_end(page, 6)
    page.focus("#elements")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Home")
    assert counter(page) == "step 6 of 6"
    assert page.console_errors == []


def test_inspector_shows_the_engines_numbers_and_how_they_were_formed(live_server, page):
    open_lab(page, live_server, "collective=allreduce&algorithm=ring&ranks=4&elements=16&speed=8")
    run_to_end(page, 6)
    trace = simulate("allreduce", "ring", ranks=4, elements=16)  # the same seeded inputs
    chunk = 2
    start, _ = trace.chunks[chunk]
    page.select_option('[data-role="pick-rank"]', "1")
    page.select_option('[data-role="pick-col"]', str(chunk))
    lines = page.locator(".formation li").all_inner_texts()
    assert len(lines) == 4  # the first four values of the chunk
    for i, line in enumerate(lines):
        inputs = trace.inputs[:, start + i]
        terms = " + ".join(f"{v:.1f} (r{r})" for r, v in enumerate(inputs))
        assert line == f"{inputs.sum():.1f} = {terms}"
    assert page.locator(".inspect-head .badge").inner_text() == "4/4"

    # clicking a cell of the buffer grid selects it too; its hover text says whose it holds
    page.locator('[data-role="buffer"]').scroll_into_view_if_needed()
    grid = page.locator('[data-role="buffer-grid"]')
    cell = next(c for c in grid.evaluate(CELLS) if (c["r"], c["c"]) == (3, 0))
    page.mouse.move(*centre(cell))  # as a pointer
    hover = grid.locator("canvas").get_attribute("title")
    assert hover == "rank 3, chunk A: r0+r1+r2+r3"  # the cell under the pointer
    page.mouse.down()
    page.mouse.up()
    page.wait_for_function(
        "() => document.querySelector('.inspect-head strong').textContent.includes('rank 3')"
    )
    assert page.locator(".inspect-head strong").inner_text() == "rank 3 · chunk A"
    assert grid.evaluate(OUTLINED)["picked"] == [[3, 0]]  # outlined as the picked cell

    page.keyboard.press("Home")  # before the first step each rank holds only its own input
    assert page.locator(".inspect-head .badge").inner_text() == "1/4"
    first = page.locator(".formation li").first.inner_text()
    assert first == f"{trace.inputs[3, 0]:.1f} = its own input"
    assert page.console_errors == []


def test_controls_are_mirrored_in_the_url_and_the_share_snippet(live_server, page):
    open_lab(page, live_server, "collective=allreduce&algorithm=ring&ranks=8")
    page.select_option("#collective", "reduce")
    algorithms = page.locator("#algorithm option").evaluate_all("os => os.map(o => o.value)")
    assert "binomial_tree" in algorithms and "double_binary_tree" not in algorithms
    assert page.locator(".field-root").is_visible()
    assert page.locator(".field-op").is_visible()
    page.fill("#root", "5")
    page.dispatch_event("#root", "change")
    page.eval_on_selector(
        "#ranks", "el => { el.value = 16; el.dispatchEvent(new Event('input', {bubbles: true})) }"
    )
    query = page.evaluate("location.search")
    for part in ("collective=reduce", "ranks=16", "root=5", "op=sum"):
        assert part in query
    page.select_option("#collective", "allgather")
    assert not page.locator(".field-op").is_visible()
    assert "op=" not in page.evaluate("location.search")

    page.click("#share")
    assert page.locator("#share-dialog").is_visible()
    link = page.input_value("#share-link")
    snippet = page.input_value("#share-snippet")
    assert link.startswith(f"{live_server.url}/lab?collective=allgather&algorithm=")
    assert snippet.startswith(f'<iframe src="{live_server.url}/embed/allgather/')
    assert "ranks=16&amp;" in snippet and "autoplay=1" in snippet
    page.keyboard.press("Escape")
    assert not page.locator("#share-dialog").is_visible()
    assert page.console_errors == []


@pytest.mark.parametrize("ranks", [8, 64])
def test_time_from_run_to_the_first_animated_step(live_server, page, ranks):
    open_lab(page, live_server, f"collective=allreduce&algorithm=ring&ranks={ranks}")
    page.click("#run")
    page.wait_for_function(
        "() => window.labMetrics.last && window.labMetrics.last.firstStepMs >= 0"
    )
    metrics = page.evaluate("window.labMetrics.last")
    page.wait_for_function(  # past step 0 (at 1x, step 1 shows for one second only)
        f"() => /^step [1-9]/.test(document.querySelector('{COUNTER}').textContent)"
    )
    print(f"\nring allreduce p={ranks}: Run → first animated step {metrics['firstStepMs']:.0f} ms")
    assert page.console_errors == []


def test_phone_layout_stacks_the_views(live_server, browser, tmp_path):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    page = context.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        open_lab(page, live_server, "collective=allreduce&algorithm=ring&ranks=8&speed=8")
        run_to_end(page, 14)
        boxes = {
            name: page.locator(f".view-{name}").bounding_box()
            for name in ("topology", "buffer", "inspect", "traffic")
        }
        for above, below in zip(list(boxes.values()), list(boxes.values())[1:], strict=False):
            assert below["y"] >= above["y"] + above["height"] - 1
            assert below["width"] <= 390
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        shot = tmp_path / "lab-phone.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"\nscreenshot: {shot}")
        assert errors == []
    finally:
        context.close()


def test_an_out_of_range_element_count_snaps_to_the_limit_before_running(live_server, page, app):
    open_lab(page, live_server, "collective=allgather&algorithm=ring&ranks=64&speed=8")
    limit = app.config["LAB_MAX_CELLS"] // (64 * 64)
    page.fill("#elements", "99999")
    page.click("#run")
    page.wait_for_function(
        f"() => document.querySelector('{COUNTER}').textContent.endsWith('of 63')"
    )
    assert page.input_value("#elements") == str(limit)
    assert f"elements={limit}" in page.evaluate("location.search")
    assert page.locator('.lab [data-role="error"]').is_hidden()
    assert page.console_errors == []


NODE_POSITIONS = """() => {
  const svg = document.querySelector('.lab [data-role="topology"] svg[data-role="topology-svg"]');
  const at = {};
  for (const c of svg.querySelectorAll('.s0-nodes circle')) {
    at[Number(c.dataset.rank)] = [Number(c.getAttribute('cx')), -Number(c.getAttribute('cy'))];
  }
  const boxes = [...svg.querySelectorAll('rect.s0-box')].map((r) => {
    const [x, y, w, h] = ['x', 'y', 'width', 'height'].map((k) => Number(r.getAttribute(k)));
    return [x + w / 2, -(y + h / 2), w, h];
  });
  return { at, boxes };
}"""


@pytest.mark.parametrize(("ranks", "per_node"), [(64, 8), (15, 3), (24, 4), (64, 16)])
def test_hierarchical_rings_keep_neighbours_side_by_side(live_server, page, ranks, per_node):
    """Each ring, the closing link included, joins neighbouring spots: none crosses the picture."""
    open_lab(
        page,
        live_server,
        f"collective=allreduce&algorithm=hierarchical&ranks={ranks}&ranks_per_node={per_node}",
    )
    page.click("#run")
    page.wait_for_function(
        "() => document.querySelector('[data-role=player]').dataset.drawnStep !== undefined"
    )
    drawn = page.evaluate(NODE_POSITIONS)
    at = {int(r): xy for r, xy in drawn["at"].items()}
    assert sorted(at) == list(range(ranks))
    nodes = ranks // per_node
    for node in range(nodes):
        for local in range(per_node):
            a = at[node * per_node + local]
            b = at[node * per_node + (local + 1) % per_node]
            assert max(abs(a[0] - b[0]), abs(a[1] - b[1])) <= 1.0 + 1e-9, (node, local, a, b)
    boxes = drawn["boxes"]
    assert len(boxes) == nodes
    for node in range(nodes):
        (ax, ay, w, h), (bx, by, _, _) = boxes[node], boxes[(node + 1) % nodes]
        step_x, step_y = abs(ax - bx) / (w + 1.0), abs(ay - by) / (h + 1.0)  # 1.0: the gap
        assert max(step_x, step_y) <= 1.0 + 1e-9, (node, boxes[node], boxes[(node + 1) % nodes])
    assert page.console_errors == []
