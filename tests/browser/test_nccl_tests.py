"""/nccl-tests in real Chromium: an uploaded nccl-tests output becomes the busbw chart (both
placements, the model's curve, the peak), the sentence and the table; a corrupted paste sent
from the keyboard flags its row; garbage shows the server's error; the theme redraws the chart."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.server]

FIXTURE = (
    Path(__file__).resolve().parents[1] / "fixtures" / "nccl_tests" / "all_gather_2gpu_bf16.txt"
)
# Read off the fixture by hand: the size column and the busbw columns of its seven rows.
SIZES = [16777216, 33554432, 50331648, 67108864, 83886080, 100663296, 117440512]
OUT_OF_PLACE = [77.10, 91.66, 105.78, 114.79, 118.41, 125.56, 119.64]
IN_PLACE = [85.43, 107.48, 125.81, 130.82, 136.61, 144.59, 140.24]


def traces(page) -> dict:
    """Return the chart's Plotly traces by name: {name: (x, y)}."""
    return page.evaluate(
        "() => Object.fromEntries(document.getElementById('nccl-chart').data"
        ".map((t) => [t.name, [Array.from(t.x), Array.from(t.y)]]))"
    )


def test_an_uploaded_output_is_drawn_checked_and_compared(page, live_server):
    page.goto(f"{live_server.url}/nccl-tests")
    page.select_option("#nccl-preset", "dgx_a100")
    page.set_input_files("#nccl-file", str(FIXTURE))  # uploading submits
    expect(page.locator("#nccl-chart .main-svg").first).to_be_visible()
    drawn = traces(page)
    assert drawn["out-of-place"] == [SIZES, OUT_OF_PLACE]
    assert drawn["in-place"] == [SIZES, IN_PLACE]
    assert drawn["peak"] == [[100663296], [144.59]]
    model_x, model_y = drawn["model (dgx_a100)"]
    assert model_x == SIZES and all(m > b for m, b in zip(model_y, IN_PLACE, strict=True))
    ticks = page.evaluate("() => document.getElementById('nccl-chart').layout.xaxis.ticktext")
    assert ticks[:2] == ["8 MiB", "256 MiB"]
    expect(page.locator("#nccl-summary")).to_contain_text("allgather on 2 ranks")
    expect(page.locator("#nccl-summary")).to_contain_text("peak busbw 144.59 GB/s")
    expect(page.locator("#nccl-sentence")).to_contain_text("falls furthest short of the model")
    expect(page.locator("#nccl-table tbody tr")).to_have_count(7)
    expect(page.locator("#nccl-table tr.nccl-peak td").first).to_have_text("96 MiB")

    # A corrupted busbw, pasted and sent from the keyboard: its cell is flagged.
    page.fill("#nccl-output", FIXTURE.read_text().replace("91.66", "97.66"))
    page.focus("#nccl-ranks")
    page.keyboard.press("Enter")
    flagged = page.locator("#nccl-table td.nccl-bad")
    expect(flagged).to_have_count(2)  # algbw and busbw of that placement
    expect(flagged.nth(1)).to_have_text("97.66 ⚠")
    expect(page.locator("#nccl-summary")).to_contain_text("1 measurement fails the busbw check")

    page.fill("#nccl-output", "this is not a table")
    page.focus("#nccl-ranks")
    page.keyboard.press("Enter")
    expect(page.locator("#nccl-error")).to_contain_text("no nccl-tests rows found")
    expect(page.locator("#nccl-result")).to_be_hidden()  # no stale chart under the error
    page.fill("#nccl-output", FIXTURE.read_text())
    page.focus("#nccl-ranks")
    page.keyboard.press("Enter")
    expect(page.locator("#nccl-error")).to_be_hidden()

    ink = "() => document.getElementById('nccl-chart').layout.font.color"
    before = page.evaluate(ink)
    page.click('[data-role="theme-toggle"]')  # the chart's ink follows the theme
    page.wait_for_function(f"(c) => ({ink})() !== c", arg=before)
    # Chromium logs the garbage paste's 400 itself; nothing else may have failed.
    assert [e for e in page.console_errors if "status of 400" not in e] == []
    assert len(page.console_errors) == 1
