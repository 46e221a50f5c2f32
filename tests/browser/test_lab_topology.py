"""The topology view in real Chromium, as SVG: each step's arrows are its transfers (one per
chunk of a message up to four, coloured by chunk, dashed for a copy), a 64-rank ring's arrows
run along its circle, and the chunks fly as packets (on a worker's canvas, or as HTML dots where
the browser cannot hand a canvas to a worker) that are gone once they land."""

from __future__ import annotations

import math
import re
from collections import defaultdict

import pytest

from app.collectives import simulate
from app.drawing.palette import MANY_CHUNKS, chunk_color
from tests.browser.test_lab_views import DESKTOP, run_lab, show_step

pytestmark = pytest.mark.browser

FAN = 4  # static/js/lab-topology.js: a message of more chunks is one neutral arrow

# Every arrow on screen: its hover text, colour, op and whether its shaft is dashed; the
# points of its shaft in plot units.
DRAWN = """() => {
  const svg = document.querySelector('.lab [data-role="topology"] svg[data-role="topology-svg"]');
  return [...svg.querySelectorAll('.t-arrows .arrow')].map((g) => {
    const shaft = g.querySelector('.shaft');
    const points = shaft.getAttribute('d').slice(1).split('L').map((p) => p.split(',').map(Number));
    return {text: g.querySelector('title').textContent, color: g.getAttribute('stroke'),
            op: g.dataset.op, dashed: shaft.hasAttribute('stroke-dasharray'), points};
  });
}"""

HOVER = re.compile(r"^r(\d+) → r(\d+) · (?:chunk (\w+)|(\d+) chunks \(.*\)) · (copy|reduce)")


def label(chunk: int) -> str:
    return chr(65 + chunk) if chunk < 26 else f"C{chunk}"


def expected_arrows(step) -> list[tuple]:
    """(src, dst, chunk label or None, op, colour, dashed) for each arrow the step should draw."""
    messages = defaultdict(list)
    for t in step.transfers:
        messages[(t.src, t.dst, t.op)].append(t.chunk)
    out = []
    for (src, dst, op), chunks in messages.items():
        if len(chunks) > FAN:
            out.append((src, dst, None, op, MANY_CHUNKS["light"], op == "copy"))
        else:
            out += [(src, dst, label(c), op, chunk_color(c), op == "copy") for c in chunks]
    return sorted(out, key=str)


def drawn_arrows(page) -> list[tuple]:
    out = []
    for a in page.evaluate(DRAWN):
        m = HOVER.match(a["text"])
        assert m, a["text"]
        src, dst, chunk, _, op = m.groups()
        assert a["op"] == op
        out.append((int(src), int(dst), chunk, op, a["color"], a["dashed"]))
    return sorted(out, key=str)


@pytest.mark.parametrize(
    ("query", "steps"),
    [
        ("collective=allreduce&algorithm=ring&ranks=8&elements=64", (1, 8)),  # reduce, then copy
        ("collective=allreduce&algorithm=double_binary_tree&ranks=8&elements=64", (1, 5)),
        (
            "collective=allreduce&algorithm=hierarchical&ranks=8&ranks_per_node=4&elements=64",
            (1, 4),
        ),
        (
            "collective=allgather&algorithm=recursive_doubling&ranks=16&elements=64",
            (1, 4),
        ),  # 8 chunks: grey
        ("collective=broadcast&algorithm=binomial_tree&ranks=8&elements=64", (1, 3)),
    ],
    ids=["ring", "two-trees", "hierarchical", "hypercube", "binomial"],
)
def test_the_arrows_of_a_step_are_its_transfers(live_server, page, query, steps):
    run_lab(page, live_server, query + "&speed=8")
    params = dict(p.split("=") for p in query.split("&"))
    kwargs = {k: int(v) for k, v in params.items() if k in ("ranks", "elements", "ranks_per_node")}
    trace = simulate(params["collective"], params["algorithm"], **kwargs)
    for step in steps:
        show_step(page, step)
        assert drawn_arrows(page) == expected_arrows(trace.steps[step - 1]), step
    show_step(page, 0)
    assert page.evaluate(DRAWN) == []  # before the first step: no arrow
    assert page.console_errors == []


def test_a_64_rank_ring_draws_its_arrows_along_the_circle(live_server, page):
    """Neighbours 3 px apart get arcs just inside the circle (radius 1), not bow-ties."""
    run_lab(page, live_server, "collective=allreduce&algorithm=ring&ranks=64&speed=8")
    trace = simulate("allreduce", "ring", ranks=64, elements=64)
    for step in (1, 64):
        show_step(page, step)
        arrows = page.evaluate(DRAWN)
        assert 4 <= len(arrows) <= 24
        for a in arrows:
            radii = [math.hypot(x, y) for x, y in a["points"]]
            assert 0.85 < min(radii) and max(radii) < 1, a["text"]
            assert max(radii) - min(radii) < 1e-3, "an arc of the circle, not a chord"
            assert a["dashed"] == (trace.steps[step - 1].transfers[0].op == "copy")
    assert page.console_errors == []


PACKETS = """() => [...document.querySelectorAll('.lab .t-packets i')]
  .map((c) => getComputedStyle(c).backgroundColor)"""

# Where the browser can hand a canvas to a worker, the chunks fly on a canvas that
# static/js/lab-flight-worker.js draws: keep a handle on the page's workers (before its scripts
# run) to ask the worker what its canvas shows. NO_OFFSCREEN takes that ability away, as in a
# browser without it: the packets fly as HTML dots.
KEEP_WORKERS = """window.flightWorkers = [];
window.Worker = class extends window.Worker {
  constructor(...args) { super(...args); window.flightWorkers.push(this); } };"""
NO_OFFSCREEN = "delete HTMLCanvasElement.prototype.transferControlToOffscreen;"

# Until the flight has been seen and is gone again, ask the worker every 20 ms what its canvas
# shows (each packet in flight: from, to, where it is now and the colour of the canvas's pixel
# there; how many pixels hold any ink).
WATCH_CANVAS = """() => new Promise((resolve, reject) => {
  const w = window.flightWorkers[0], seen = [];
  if (!w) { reject(new Error('no worker')); return; }
  const ask = () => w.postMessage({type: 'probe', id: seen.length});
  w.addEventListener('message', (e) => {
    if (e.data.type !== 'probe') return;
    seen.push(e.data);
    const flew = seen.some((s) => s.packets.length);
    if (flew && !e.data.packets.length) resolve(seen);
    else if (seen.length > 500) reject(new Error('the flight did not land'));
    else setTimeout(ask, 20);
  });
  ask();
})"""


def rgb(colour: str) -> str:
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def on_its_line(p: dict) -> bool:
    """Whether a packet's position lies on the straight line from its sender to its receiver."""
    (x0, y0), (x1, y1), (x, y) = p["from"], p["to"], p["at"]
    k = p["k"]
    return abs(x - (x0 + (x1 - x0) * k)) < 0.5 and abs(y - (y0 + (y1 - y0) * k)) < 0.5


def first_flight(page, live_server, init: str):
    """Open the 8-rank ring at 1x (a step lasts a second, its chunks fly for 550 ms), step
    forward once, and return the step drawn."""
    page.add_init_script(init)
    query = "collective=allreduce&algorithm=ring&ranks=8&elements=64&speed=1"
    run_lab(page, live_server, query, DESKTOP)
    page.click('.player [data-role="forward"]')  # the step's chunks fly from sender to receiver
    page.wait_for_function("() => document.querySelector('[data-role=player]').dataset.drawnStep")
    drawn = page.evaluate("document.querySelector('[data-role=player]').dataset.drawnStep")
    return simulate("allreduce", "ring", ranks=8, elements=64).steps[int(drawn) - 1]


def test_the_chunks_fly_on_the_workers_canvas_and_are_gone_once_landed(live_server, page):
    step = first_flight(page, live_server, KEEP_WORKERS)
    seen = page.evaluate(WATCH_CANVAS)
    flying = [s for s in seen if s["packets"]]
    # every chunk is a disc of its colour on the canvas, on its way from sender to receiver
    assert sorted(p["color"] for p in flying[0]["packets"]) == sorted(
        rgb(chunk_color(t.chunk)) for t in step.transfers
    )
    assert all(on_its_line(p) for s in flying for p in s["packets"])
    assert all(p["from"] != p["to"] for p in flying[0]["packets"])
    # and it moves: the first packet is seen at more than one place along its line
    assert len({tuple(s["packets"][0]["at"]) for s in flying}) > 1
    assert seen[-1]["inked"] == 0  # landed: nothing left on the canvas
    assert len(page.evaluate(DRAWN)) == len(step.transfers)  # the arrows stay
    assert page.evaluate("document.querySelectorAll('.lab .t-packets i').length") == 0
    assert page.console_errors == []


def test_without_offscreen_canvas_the_chunks_fly_as_dots(live_server, page):
    step = first_flight(page, live_server, NO_OFFSCREEN)
    page.wait_for_function("() => document.querySelectorAll('.lab .t-packets i').length > 0")
    flying = page.evaluate(PACKETS)
    assert sorted(flying) == sorted(rgb(chunk_color(t.chunk)) for t in step.transfers)
    moving = page.evaluate(
        "() => document.querySelector('.lab .t-packets i').getAnimations().length"
    )
    assert moving == 1
    page.wait_for_function("() => document.querySelectorAll('.lab .t-packets i').length === 0")
    assert len(page.evaluate(DRAWN)) == len(step.transfers)  # the arrows stay
    assert page.console_errors == []


SWITCH_ARROWS = """() => {
  const svg = document.querySelector('.lab [data-role="topology"] svg[data-role="topology-svg"]');
  const box = svg.querySelector('.s0-switches rect');
  const name = svg.querySelector('.s0-switches text').textContent;
  return {switch: box && box.dataset.switch, name,
          arrows: [...svg.querySelectorAll('.t-arrows .arrow title')].map((t) => t.textContent)};
}"""


def test_nvls_draws_the_switch_and_arrows_into_it_and_out_of_it(live_server, page):
    run_lab(page, live_server, "collective=allreduce&algorithm=nvls&ranks=8&elements=64&speed=8")
    show_step(page, 2)  # segment B goes in while the sum of segment A comes out
    drawn = page.evaluate(SWITCH_ARROWS)
    assert drawn["switch"] == "8" and drawn["name"] == "NVSwitch"
    into = sorted(t.split(" · ")[0] for t in drawn["arrows"] if "· reduce" in t)
    out = sorted(t.split(" · ")[0] for t in drawn["arrows"] if "· copy" in t)
    assert into == sorted(f"r{r} → NVSwitch" for r in range(8))
    assert out == sorted(f"NVSwitch → r{r}" for r in range(8))
    assert all("chunk B" in t for t in drawn["arrows"] if "· reduce" in t)
    assert all("chunk A" in t for t in drawn["arrows"] if "· copy" in t)
    narration = page.inner_text('[data-role="narration"]')
    assert "adds the 8 contributions to chunk B" in narration
    assert page.console_errors == []
