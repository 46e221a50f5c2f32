"""The page "Paste an NCCL log" in real Chromium: a pasted multi-node log drawn as its ring in
order over the hosts' boxes (drawn once, used by every channel's picture), the channel picker
used with the keyboard, an uploaded log's transports on its arrows with the legend, and
axe-core on the drawn page in both themes.
Expected values are read off the fixtures by hand (tests/fixtures/nccl_logs/)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.test_a11y import AXE, assert_no_violation_in_both_themes
from tests.conftest import require

pytestmark = [pytest.mark.browser, pytest.mark.server]

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "nccl_logs"


def paste(page, url: str, name: str) -> None:
    page.goto(f"{url}/nccl-log")
    page.fill('[data-role="log"]', (LOGS / name).read_text())
    page.click('[data-role="read"]')
    page.wait_for_selector('[data-role="result"]')


def arrows(svg) -> list[tuple[int, int]]:
    return [
        (int(a), int(b))
        for a, b in svg.locator("path.nl-edge").evaluate_all(
            "ps => ps.map(p => [p.dataset.src, p.dataset.dst])"
        )
    ]


def test_a_pasted_ring_is_drawn_in_order_and_the_picker_shows_one_channel(page, live_server):
    paste(page, live_server.url, "multi_node_ring_210.log")
    ring = [0, 7, 6, 5, 12, 11, 10, 9, 8, 15, 14, 13, 4, 3, 2, 1]  # "Channel 00/02 : 0 7 6 ..."
    channel0 = page.locator('[data-role="channel-view"][data-channel="0"]')
    svg = channel0.locator('[data-role="ring-svg"]')
    assert arrows(svg) == list(zip(ring, ring[1:] + ring[:1], strict=True))
    expect(channel0.locator('[data-role="ring-text"]')).to_contain_text(
        "0 → 7 → 6 → 5 → 12 → 11 → 10 → 9 → 8 → 15 → 14 → 13 → 4 → 3 → 2 → 1 → 0"
    )
    # The boxes and discs are drawn once for every channel's picture, which <use>s them.
    layout = page.locator('[data-role="layout-svg"]')
    labels = layout.locator("text.nl-box-label").all_text_contents()
    assert labels == ["nodea (1 rank)", "nodeb (4 ranks)", "host not named in the log"]
    assert page.locator("rect.nl-box").count() == 3 and page.locator("g.nl-rank").count() == 16
    drawn = svg.evaluate(
        "s => [...s.querySelectorAll('use')].map(u => [u.getAttribute('href'), u.getBBox().width])"
    )
    assert [href for href, _ in drawn] == ["#nl-hosts", "#nl-ranks"]
    assert all(width > 100 for _, width in drawn), drawn  # the boxes and discs show in it
    # Rank 12 sits in nodeb's box: its disc's centre is inside the box's rectangle.
    inside = layout.evaluate(
        """s => { const [a, b] = s.querySelectorAll('rect.nl-box');
          const c = s.querySelector('[data-rank="12"] circle');
          const x = +c.getAttribute('cx'), y = +c.getAttribute('cy');
          const n = (r, k) => +r.getAttribute(k);
          const within = r => x > n(r, 'x') && x < n(r, 'x') + n(r, 'width')
            && y > n(r, 'y') && y < n(r, 'y') + n(r, 'height');
          return [within(a), within(b)]; }"""
    )
    assert inside == [False, True]
    # With the script, one channel at a time: the picker, by keyboard, shows channel 1's tree.
    channel1 = page.locator('[data-role="channel-view"][data-channel="1"]')
    expect(channel1).to_be_hidden()
    page.focus('[data-role="channel"]')
    page.keyboard.press("ArrowDown")
    expect(channel1).to_be_visible()
    expect(channel0).to_be_hidden()
    # "[4] Trees ... [1] 13/4/-1->12->-1": 12 is a root with children 13 and 4
    tree = channel1.locator('[data-role="tree-svg"]')
    assert {(12, 13), (12, 4)} <= set(arrows(tree))
    expect(channel1.locator('[data-role="tree-text"]')).to_contain_text("root 12")


def test_an_uploaded_log_labels_each_arrow_with_its_transport(page, live_server):
    page.goto(f"{live_server.url}/nccl-log")
    page.set_input_files('[data-role="file"]', str(LOGS / "multi_node_ib_gdr.log"))
    page.click('[data-role="read"]')
    svg = page.locator('[data-channel="0"] [data-role="ring-svg"]')
    # "Channel 00 : 3[4a000] -> 6[44000] [send] via NET/IB/0/GDRDMA"
    net = svg.locator('path[data-src="3"][data-dst="6"]')
    expect(net).to_have_class("nl-edge nl-net-ib")
    expect(net.locator("title")).to_have_text("3 → 6: NET/IB/0/GDRDMA")
    ipc = svg.locator('path[data-src="1"][data-dst="0"]')  # "1[a000] -> 0[7000] via P2P/IPC/read"
    expect(ipc).to_have_class("nl-edge nl-p2p-ipc")
    # The two kinds have different strokes, and the legend names both
    strokes = [loc.evaluate("p => getComputedStyle(p).stroke") for loc in (net, ipc)]
    assert strokes[0] != strokes[1]
    expect(page.locator('[data-role="legend"] li')).to_have_text(["NET/IB", "P2P/IPC"])
    expect(page.locator('[data-role="summary"]')).to_contain_text("4 NET/IB")


def test_the_drawn_page_passes_axe_in_both_themes(browser, live_server):
    require(AXE.is_file(), f"axe-core is not installed ({AXE}); run npm ci --prefix tests/a11y")
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, color_scheme="light", bypass_csp=True
    )
    try:
        page = context.new_page()
        paste(page, live_server.url, "recent_two_nodes_trees.log")
        assert_no_violation_in_both_themes(page, "/nccl-log with a reading")
    finally:
        context.close()
