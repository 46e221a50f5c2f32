"""The lab and an embed show what POST /api/simulate says, step by step (issue 17).

The socket sends steps in a compact form (app/web/compact.py) that static/js/lab-client.js
expands; the pages must show exactly the trace the HTTP API gives for the same run: this
step's transfers table row for row, and the buffer grid and its table cell for cell (how many
contributions each rank's copy of each chunk holds, replayed from the trace's holders), with
the cells each step changed outlined.
"""

from __future__ import annotations

import contextlib
from urllib.parse import urlencode

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from app.collectives import COLLECTIVES
from tests.browser.buffer_cells import CELLS, OUTLINED, fills, painted
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


def counts(doc: dict, k: int) -> list[list[int | None]]:
    """Each grid cell's count after `k` steps: contributions held (1 when only arrival counts),
    for all_to_all the blocks meant for that destination the rank holds; None where empty."""
    cells = holdings(doc, k)
    p = doc["ranks"]
    a2a = doc["collective"] == "all_to_all"
    full = p if a2a or COLLECTIVES[doc["collective"]].reduces else 1
    rows = []
    for r in range(p):
        row = []
        for c in range(p if a2a else len(doc["layout"]["chunks"])):
            if a2a:
                z = sum(1 for s in range(p) if cells.get((r, s * p + c)))
            else:
                z = (len(cells[r, c]) if full > 1 else 1) if cells.get((r, c)) else 0
            row.append(z or None)
        rows.append(row)
    return rows


def grid(doc: dict, k: int) -> list[list[str]]:
    """The grid table after `k` steps: k/p contributions per cell (per rank's blocks from each
    source for all_to_all), "empty" where none, as lab-buffer.js counts them."""
    p = doc["ranks"]
    full = p if doc["collective"] == "all_to_all" or COLLECTIVES[doc["collective"]].reduces else 1
    return [
        [f"r{r}", *(f"{z}/{full}" if z else "empty" for z in row)]
        for r, row in enumerate(counts(doc, k))
    ]


def changed(doc: dict, k: int) -> list[list[int]]:
    """The grid cells step `k` changed, [rank, column], as the grid outlines them: none before
    the first step, nor when a step changes over a quarter of the grid (and at least 16)."""
    if not k:
        return []
    p, a2a = doc["ranks"], doc["collective"] == "all_to_all"
    cols = p if a2a else len(doc["layout"]["chunks"])
    state = doc["steps"][k - 1]["state"]
    if len(state) > max(16, p * cols / 4):
        return []
    return sorted({(c["rank"], c["chunk"] % p if a2a else c["chunk"]) for c in state})


# The live buffer grid (lab-buffer.js) once it shows step `k`: each cell's colour as drawn, and
# the cells outlined as changed by this step.
LIVE_GRID = f"""(k) => {{
  const el = document.querySelector('[data-role="buffer"]');
  if (el.dataset.drawnStep !== String(k)) return null;
  const grid = el.querySelector('[data-role="buffer-grid"]');
  return {{cells: ({CELLS})(grid), changed: ({OUTLINED})(grid).changed}};
}}"""


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
        live = page.wait_for_function(LIVE_GRID, arg=k).json_value()
        # the grid shows the trace's holdings, each count in its colour
        assert fills(live["cells"]) == painted(counts(doc, k), doc["layout"]["grid"]["paints"]), k
        assert sorted(map(tuple, live["changed"])) == changed(doc, k), k
        assert k == 0 or live["changed"], "each of these runs' steps outlines what it changed"
    assert page.console_errors == []
