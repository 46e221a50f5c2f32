"""/measure in real Chromium: 2 real MPI ranks over 8..64 bytes; each row reaches the table
and the chart as it arrives, the run ends with its fit (or why there is none), and the download
button hands over the result as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from app.measure.backends import missing
from tests.conftest import require

pytestmark = [pytest.mark.browser, pytest.mark.server]


def test_a_real_measurement_fills_the_table_and_chart_and_downloads_as_json(page, live_server):
    require(missing("mpi") is None, f"mpi backend: {missing('mpi')}")
    page.goto(f"{live_server.url}/measure")
    page.fill("#measure-ranks", "2")
    page.fill("#measure-min", "8")
    page.fill("#measure-max", "64")
    page.fill("#measure-iters", "5")
    page.select_option("#measure-preset", "pcie4")
    page.click("#measure-run")
    expect(page.locator("#measure-progress")).to_contain_text("Finished (done): 4 sizes")
    expect(page.locator("#measure-table tbody tr")).to_have_count(4)
    expect(page.locator("#measure-table tbody tr").first.locator("td").first).to_have_text("8 B")
    drawn = page.evaluate(
        "() => Object.fromEntries(document.getElementById('measure-chart').data"
        ".map((t) => [t.name, Array.from(t.x)]))"
    )
    assert drawn["out-of-place"] == [8, 16, 32, 64] and drawn["in-place"] == [8, 16, 32, 64]
    assert [name for name in drawn if name.startswith("model (PCIe")], drawn
    expect(page.locator("#measure-chart .main-svg").first).to_be_visible()
    expect(page.locator("#measure-fit-text")).not_to_be_empty()
    assert page.locator("#measure-cancel").is_disabled()

    with page.expect_download() as info:
        page.click("#measure-download")
    download = info.value
    assert download.suggested_filename == "measure-result.json"
    saved = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    assert [row["size"] for row in saved["result"]["rows"]] == [8, 16, 32, 64]
    assert saved["result"]["config"]["ranks"] == 2
