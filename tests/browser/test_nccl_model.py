"""NCCL's choice, reproduced, in real Chromium: the calculator shows NCCL's pick and its table
over sizes, and choosing another system changes the pick."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.server]


def test_the_pick_and_the_size_table_follow_the_chosen_system(page, live_server):
    query = "system=dgx_a100&ranks=8&nodes=1&message_bytes=8589934592"
    page.goto(f"{live_server.url}/embed/calc/nccl_model?{query}")
    widget = page.locator(".calc-widget[data-calc=nccl_model]")
    algorithm = widget.locator("[data-output=algorithm] dd")
    expect(algorithm).to_have_text("Ring")  # no NVLink SHARP before Hopper
    expect(widget.locator("[data-role=table] tbody tr")).to_have_count(16)
    expect(widget.locator("[data-role=table] tbody tr").first).to_contain_text("/LL")

    widget.get_by_label("System", exact=True).select_option("dgx_h100")
    expect(algorithm).to_have_text("NVLS")  # NVLink SHARP wins at 8 GiB on one H100 node
    assert page.console_errors == []
