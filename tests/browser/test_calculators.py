"""Calculators in real Chromium: a keyboard-moved slider changes the numbers and the chart;
presets fill the link; units switch; every widget renders without console errors."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

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
    expect(fastest).not_to_have_text("recursive doubling")
    assert time_value.inner_text() != before_time
    assert _cursor(page, widget) == 2**30
    assert "1 GiB" in widget.locator("[data-role=interpretation]").inner_text()
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


def test_bad_input_shows_the_servers_message(page, live_server):
    page.goto(f"{live_server.url}/embed/calc/moe")
    widget = page.locator(".calc-widget[data-calc=moe]")
    widget.locator("input[name=top_k]").fill("0")
    expect(widget.locator("[data-role=error]")).to_have_text(
        "top_k must be an integer in 1..64, got 0", timeout=10_000
    )
    widget.locator("input[name=top_k]").fill("2")
    expect(widget.locator("[data-role=error]")).to_be_hidden(timeout=10_000)


def test_every_calculator_renders_numbers_and_charts(page, live_server):
    page.goto(f"{live_server.url}/calculators")
    widgets = page.locator(".calc-widget")
    expect(widgets).to_have_count(8)
    for i in range(8):
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
