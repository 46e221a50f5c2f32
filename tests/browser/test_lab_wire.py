"""The lab and an embed show what POST /api/simulate says, step by step (issue 17).

The socket sends steps in a compact form (app/web/compact.py) that static/js/lab-client.js
expands; the pages must show exactly the trace the HTTP API gives for the same run: this
step's transfers table row for row, and the buffer grid's table cell for cell (how many
contributions each rank's copy of each chunk holds, replayed from the trace's holders).
"""

from __future__ import annotations

import contextlib
from urllib.parse import urlencode

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from app.collectives import COLLECTIVES
from tests.browser.test_lab_a11y_keys import chunk_label, holdings
from tests.browser.test_lab_narration import COUNTER, simulate, wait_ready

pytestmark = pytest.mark.browser

# Each run on one of the two pages: both expand the socket's steps with the same lab-client.js,
# so every kind of payload is played once and each page plays two of them.
RUNS = [
    ("embed", {"collective": "all_to_all", "algorithm": "pairwise", "ranks": 5, "elements": 10}),
    ("lab", {"collective": "allreduce", "algorithm": "hierarchical", "ranks": 8, "elements": 16,
             "ranks_per_node": 4}),
    ("embed", {"collective": "reduce", "algorithm": "ring", "ranks": 5, "elements": 10,
               "root": 2, "op": "max"}),
    ("lab", {"collective": "sendrecv", "algorithm": "pipeline", "ranks": 3, "elements": 6}),
]  # fmt: skip
ROWS = "trs => trs.map(tr => [...tr.cells].map(td => td.firstChild.textContent.trim()))"
# The tables redraw after the counter moves: wait (bounded) until a table reads as expected.
SAME = f"""([sel, want]) => JSON.stringify(({ROWS})([...document.querySelectorAll(sel)]))
  === JSON.stringify(want)"""


def url(base: str, kind: str, params: dict) -> str:
    if kind == "lab":
        return f"{base}/lab?{urlencode(params)}"
    rest = {k: v for k, v in params.items() if k not in ("collective", "algorithm")}
    return f"{base}/embed/{params['collective']}/{params['algorithm']}?{urlencode(rest)}&autoplay=0"


def transfers(doc: dict, k: int) -> list[list[str]]:
    """The transfers table after `k` steps, as the trace says (lab-tables.js's columns)."""
    itemsize = 4  # float32
    return [
        [f"r{t['src']}", f"r{t['dst']}", chunk_label(t["chunk"]), t["op"], str(t["elements"]),
         f"{t['elements'] * itemsize} B"]
        for t in (doc["steps"][k - 1]["transfers"] if k else [])
    ]  # fmt: skip


def grid(doc: dict, k: int) -> list[list[str]]:
    """The grid table after `k` steps: k/p contributions per cell (per rank's blocks from each
    source for all_to_all), "empty" where none, as lab-buffer.js counts them."""
    cells = holdings(doc, k)
    p = doc["ranks"]
    a2a = doc["collective"] == "all_to_all"
    full = p if a2a or COLLECTIVES[doc["collective"]].reduces else 1
    rows = []
    for r in range(p):
        row = [f"r{r}"]
        for c in range(p if a2a else len(doc["layout"]["chunks"])):
            if a2a:
                z = sum(1 for s in range(p) if cells.get((r, s * p + c)))
            else:
                z = (len(cells[r, c]) if full > 1 else 1) if cells.get((r, c)) else 0
            row.append(f"{z}/{full}" if z else "empty")
        rows.append(row)
    return rows


@pytest.mark.parametrize(
    ("kind", "params"), RUNS, ids=[f"{p['collective']}-{p['algorithm']}-{k}" for k, p in RUNS]
)
def test_every_step_shows_the_http_traces_transfers_and_grid(live_server, page, kind, params):
    doc = simulate(live_server, params)
    total = doc["total_steps"]
    page.goto(url(live_server.url, kind, params))
    wait_ready(page, total)
    tables = {}
    for name in ("transfers", "grid"):
        page.locator(f'[data-role="{name}-details"] summary').click()
        tables[name] = f'[data-role="{name}-table"] tbody tr'
    for k in range(total + 1):
        if k:
            page.locator('.player [data-role="forward"]').click()
        expect(page.locator(COUNTER)).to_have_text(f"step {k} of {total}")
        for name, want in (("transfers", transfers(doc, k)), ("grid", grid(doc, k))):
            with contextlib.suppress(PlaywrightTimeout):
                page.wait_for_function(SAME, arg=[tables[name], want], timeout=10_000)
            assert page.locator(tables[name]).evaluate_all(ROWS) == want, (name, k)
    assert page.console_errors == []
