"""Calculators in real Chromium: a keyboard-moved slider changes the numbers and the chart;
presets fill the link; units switch; every widget renders without console errors."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from app.costs.calculators import CALCULATORS

pytestmark = [pytest.mark.browser, pytest.mark.server]


def _cursor(page, widget) -> float:
    """Return the x of the dotted size marker on the widget's first (log-log) chart."""
    return page.evaluate(
        "(w) => w.querySelector('.calc-chart').layout.shapes[0].x0", widget.element_handle()
    )


def test_moving_the_size_slider_changes_the_answer_and_the_chart(page, live_server):
    page.goto(f"{live_server.url}/embed/calc/compare?ranks=64&hardware=ib_ndr&message_bytes=1024")
    widget = page.locator(".calc-widget[data-calc=compare]")
    time_value = widget.locator("[data-output=time_s] dd")
    fastest = widget.locator("[data-output=fastest] dd")
    expect(widget.locator(".calc-chart .main-svg").first).to_be_visible()
    expect(fastest).to_have_text("recursive doubling")
    before_time = time_value.inner_text()
    assert _cursor(page, widget) == 1024
    revision = int(widget.get_attribute("data-revision"))

    slider = widget.locator("[data-field=message_bytes] input[type=range]")
    slider.focus()
    for _ in range(20):  # 2^10 B → 2^30 B, one power of two per key press
        page.keyboard.press("ArrowRight")
    expect(widget.locator("[data-field=message_bytes] output")).to_have_text("1 GiB")
    expect(widget).not_to_have_attribute("data-revision", str(revision), timeout=10_000)
    # The slider asks on the way (a loaded machine answered 1 MiB first): wait for 1 GiB's answer.
    expect(widget.locator("[data-role=interpretation]")).to_contain_text("1 GiB", timeout=10_000)
    expect(fastest).not_to_have_text("recursive doubling")
    assert time_value.inner_text() != before_time
    assert _cursor(page, widget) == 2**30
    assert page.console_errors == []


def test_a_preset_fills_the_link_and_units_switch(page, live_server):
    page.goto(f"{live_server.url}/embed/calc/crossover")
    widget = page.locator(".calc-widget[data-calc=crossover]")
    bandwidth = widget.locator("input[name=bandwidth_gbs]")
    expect(bandwidth).to_have_value("50")
    widget.get_by_label("Link", exact=True).select_option("ib_hdr")
    expect(bandwidth).to_have_value("25")
    expect(widget.locator("input[name=latency_us]")).to_have_value("2.7")
    expect(widget.locator("[data-role=interpretation]")).to_contain_text("latency-bound below")

    widget.get_by_label("Bandwidth unit").select_option("Gbps")
    expect(bandwidth).to_have_value("200")  # 25 GB/s shown as 200 Gb/s
    expect(widget.locator("[data-output=busbw_gbs] dd")).to_have_text(re.compile(r"Gb/s$"))
    widget.get_by_label("Time unit").select_option("ms")
    axis = page.evaluate(
        "(w) => w.querySelector('.calc-chart').layout.yaxis.title.text", widget.element_handle()
    )
    assert axis == "time (ms)"
    assert page.console_errors == []


def test_bad_input_names_the_field_and_takes_the_old_answer_off_the_screen(page, live_server):
    page.goto(f"{live_server.url}/embed/calc/moe")
    widget = page.locator(".calc-widget[data-calc=moe]")
    values = widget.locator(".calc-outputs dd")
    expect(widget.locator(".calc-chart .main-svg").first).to_be_visible()
    before = values.all_inner_texts()
    top_k = widget.locator("input[name=top_k]")
    top_k.fill("0")
    expect(widget.locator("[data-role=error]")).to_have_text(
        "top_k must be an integer in 1..64, got 0", timeout=10_000
    )
    expect(top_k).to_have_attribute("aria-invalid", "true")
    # Nothing of the answer for top_k = 2 stays on screen as if it were the answer for 0.
    expect(values).to_have_count(0)
    expect(widget.locator("[data-role=interpretation]")).to_have_text("")
    expect(widget.locator("[data-role=substituted]")).to_have_text("")
    expect(widget.locator(".calc-chart")).to_have_count(0)

    top_k.fill("2")
    expect(widget.locator("[data-role=error]")).to_be_hidden(timeout=10_000)
    expect(values).to_have_count(len(before))
    assert values.all_inner_texts() == before
    expect(widget.locator(".calc-chart .main-svg").first).to_be_visible()
    expect(top_k).not_to_have_attribute("aria-invalid", "true")


def test_every_calculator_renders_numbers_and_charts(page, live_server):
    page.goto(f"{live_server.url}/calculators")
    widgets = page.locator(".calc-widget")
    expect(widgets).to_have_count(len(CALCULATORS))
    for i in range(len(CALCULATORS)):
        widget = widgets.nth(i)
        widget.scroll_into_view_if_needed()
        expect(widget.locator(".calc-outputs dd").first).not_to_be_empty()
        expect(widget.locator(".calc-chart .main-svg").first).to_be_attached()
    assert page.console_errors == []


def test_readable_on_a_phone(browser, live_server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.goto(f"{live_server.url}/calculators#calc-ddp_overlap")
    widget = page.locator(".calc-widget[data-calc=ddp_overlap]")
    expect(widget.locator(".calc-chart .main-svg").first).to_be_attached()
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    context.close()


def test_choosing_a_collective_offers_only_its_algorithms(page, live_server):
    page.goto(f"{live_server.url}/embed/calc/crossover")
    widget = page.locator(".calc-widget[data-calc=crossover]")
    widget.get_by_label("Collective").select_option("all_to_all")
    expect(widget.get_by_label("Algorithm")).to_have_value("pairwise")
    expect(widget.locator("[data-role=interpretation]")).to_contain_text("all_to_all/pairwise")
    enabled = widget.locator("select[name=algorithm] option:enabled").all_inner_texts()
    assert sorted(enabled) == ["bruck", "direct", "pairwise"]
    assert page.console_errors == []


# -- units and axes ------------------------------------------------------------------------------

SIZE_UNIT = re.compile(r"\d\s?(KiB|MiB|GiB|TiB|kB|MB|GB|TB)\b(?!/)")  # GB/s is a rate
FAMILY = {"KiB": "binary", "MiB": "binary", "GiB": "binary", "TiB": "binary"}
PANEL_TEXT = """(w) => {
  const copy = w.cloneNode(true);
  copy.querySelectorAll("script").forEach((s) => s.remove());
  return copy.textContent;
}"""  # everything the panel shows: inputs, numbers, sentence, formula, table, chart labels


@pytest.mark.parametrize(
    "query",
    [
        "crossover",
        "ddp_overlap",
        "parallelism_3d",
        "compare?collective=allreduce&ranks=64&message_bytes=1e9&hardware=ib_ndr",
        "hierarchical?message_bytes=67108864",
    ],
)
def test_a_panel_writes_every_size_in_one_unit_family(page, live_server, query):
    page.goto(f"{live_server.url}/embed/calc/{query}")
    widget = page.locator(".calc-widget")
    expect(widget.locator(".calc-chart .main-svg").first).to_be_visible()
    text = page.evaluate(PANEL_TEXT, widget.element_handle())
    found = {m.group(1) for m in SIZE_UNIT.finditer(text)}
    families = {FAMILY.get(unit, "decimal") for unit in found}
    assert found and len(families) == 1, f"{query} shows {sorted(found)}"
    assert page.console_errors == []


def tick_labels(page, chart: int, axis: str) -> list[str]:
    return page.locator(".calc-chart").nth(chart).locator(f".{axis}tick text").all_text_contents()


def axis_title(page, chart: int, axis: str) -> str:
    return page.locator(".calc-chart").nth(chart).locator(f".g-{axis}title text").text_content()


def test_time_axes_are_labelled_in_time_units(page, live_server):
    page.goto(f"{live_server.url}/embed/calc/crossover")
    expect(page.locator(".calc-chart")).to_have_count(2)
    expect(page.locator(".calc-chart").nth(1).locator(".main-svg").first).to_be_visible()
    # log axis over many decades: every tick names its unit ("100 µs", "10 ms", "1 s")
    ticks = tick_labels(page, 0, "y")
    assert len(ticks) >= 3
    assert all(re.fullmatch(r"[\d.,]+ (ns|µs|ms|s)", t) for t in ticks), ticks
    # linear axis: plain numbers, the unit in the title ("time (µs)"), no SI letters
    ticks = tick_labels(page, 1, "y")
    assert all(re.fullmatch(r"[\d.,]+", t) for t in ticks), ticks
    assert axis_title(page, 1, "y") == "time (µs)"

    page.goto(f"{live_server.url}/embed/calc/ddp_overlap")
    expect(page.locator(".calc-chart")).to_have_count(2)
    expect(page.locator(".calc-chart").nth(1).locator(".main-svg").first).to_be_visible()
    assert axis_title(page, 0, "x") == "time (ms)"
    assert all(re.fullmatch(r"[\d.,]+", t) for t in tick_labels(page, 0, "x"))
    # the message-size axis of a binary panel: "1 B", "1 KiB", "1 MiB", ...
    page.goto(f"{live_server.url}/embed/calc/compare")
    expect(page.locator(".calc-chart .main-svg").first).to_be_visible()
    assert tick_labels(page, 0, "x")[:4] == ["1 B", "1 KiB", "1 MiB", "1 GiB"]
    assert page.console_errors == []


OVERLAPS = """(chart) => {
  const box = (el) => el && el.getBoundingClientRect();
  const legend = box(chart.querySelector(".legend"));
  if (!legend) return [];
  const others = {
    "x-axis title": box(chart.querySelector(".g-xtitle text")),
    "plot area": box(chart.querySelector(".nsewdrag")),
    "x tick labels": box(chart.querySelector(".xaxislayer-above")),
  };
  const hit = (a, b) =>
    a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  return Object.entries(others).filter(([, b]) => b && b.width && hit(legend, b)).map(([k]) => k);
}"""


@pytest.mark.parametrize("viewport", [(760, 520), (390, 520)], ids=["snippet", "phone"])
def test_chart_legends_stay_clear_of_the_plot_and_the_axis_title(browser, live_server, viewport):
    context = browser.new_context(viewport=dict(zip(("width", "height"), viewport, strict=True)))
    page = context.new_page()
    for name in ("compare", "crossover", "ddp_overlap", "zero", "step_budget"):
        page.goto(f"{live_server.url}/embed/calc/{name}")
        charts = page.locator(".calc-chart")
        expect(charts.locator(".main-svg").first).to_be_visible()
        for i in range(charts.count()):
            hits = page.evaluate(OVERLAPS, charts.nth(i).element_handle())
            assert hits == [], f"{name} chart {i}: the legend overlaps the {hits}"
    context.close()
