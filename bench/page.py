"""Page weight and time to the first animated step, in headless Chromium against `python -m app`.

For `/lab` and an `/embed/...` page, each loaded cold (a fresh browser context, so an empty
cache) a few times and then once warm (the same context again):

- bytes transferred: the sum of Chrome's `encodedDataLength` for every HTTP response (bytes on
  the wire, headers included, compressed if the server compressed), from the DevTools
  protocol's Network events; the decoded size beside it; the websocket's frames apart.
- time to first step: the lab's own metrics (`window.labMetrics`, static/js/lab-client.js) give
  the time from the Run click to the first step drawn; the embed page "clicks" itself when its
  socket connects, so navigation -> first step is that click time + its firstStepMs, both on
  the page's `performance.now()` clock, which starts at navigation.

It also reports whether text assets came compressed and which cache headers they had, and what
gzip would make of the same bytes.

The embed's first picture (step 0 drawn on the server: first paint cold and warm, navigation ->
first animated step warm) and a lesson's embeds below the fold: bench/embed.py.

Playback rate: ring allreduce on 64 ranks at 8x, once every step has arrived, from the page's
own clock. Each time the player sets the step counter the page logs (performance.now(), step);
the least-squares slope of step against time is the rate achieved, to compare with the 8 steps
a second asked for. The same measurement is a browser test (tests/browser/test_lab_playback.py).

Main thread per step: arrow-key steps at 64 ranks, per view and in total (bench/frame.py).
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import statistics
import sys
import time
import urllib.request
from urllib.parse import urlsplit

from . import embed, frame
from .common import app_server

PAGES = {
    "lab": "/lab",
    "embed": "/embed/allreduce/ring?ranks=8&autoplay=1",
}
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
COLD_LOADS = 3
TIMEOUT_MS = 20_000
EMBED_TARGET_BYTES = 1.5e6
FIRST_STEP_TARGET_MS = 1000
TEXT_TYPES = ("text/", "javascript", "json", "svg", "xml")
PLAYBACK = {"ranks": 64, "speed": 8, "steps": 96}
# Log (page clock, step shown) each time the page sets the step counter: the time is taken as
# the text is set, before the page redraws, so it is when the player moved to that step.
WATCH_COUNTER = """() => {
  const el = document.querySelector('.player [data-role="counter"]');
  const text = Object.getOwnPropertyDescriptor(Node.prototype, 'textContent');
  window.counterLog = [];
  Object.defineProperty(el, 'textContent', {
    get() { return text.get.call(this); },
    set(v) {
      const k = Number(v.split(' ')[1]);
      if (v !== text.get.call(this)) window.counterLog.push([performance.now(), k]);
      text.set.call(this, v);
    },
  });
}"""
BADGE = '.player [data-role="badge"]'


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class NetLog:
    """Every HTTP response of one page, from the DevTools protocol, and its websocket frames."""

    def __init__(self, cdp) -> None:
        self.responses: dict[str, dict] = {}
        self.ws_frames = 0
        self.ws_bytes = 0
        cdp.on("Network.responseReceived", self._response)
        cdp.on("Network.loadingFinished", self._finished)
        cdp.on("Network.webSocketFrameReceived", self._frame)
        cdp.send("Network.enable")

    def _response(self, e: dict) -> None:
        r = e["response"]
        headers = {k.lower(): v for k, v in r.get("headers", {}).items()}
        self.responses[e["requestId"]] = {
            "url": r["url"],
            "status": r["status"],
            "type": headers.get("content-type", ""),
            "encoding": headers.get("content-encoding", ""),
            "cache": headers.get("cache-control", ""),
            "etag": bool(headers.get("etag")),
            "from_cache": bool(r.get("fromDiskCache") or r.get("fromMemoryCache")),
            "wire": None,
        }

    def _finished(self, e: dict) -> None:
        if e["requestId"] in self.responses:
            self.responses[e["requestId"]]["wire"] = e.get("encodedDataLength", 0)

    def _frame(self, e: dict) -> None:
        self.ws_frames += 1
        self.ws_bytes += len(e["response"].get("payloadData", ""))

    def http(self) -> list[dict]:
        return [r for r in self.responses.values() if r["url"].startswith("http")]

    def wire_bytes(self) -> int:
        return sum(r["wire"] or 0 for r in self.http())


def load_page(browser, base: str, kind: str, context=None) -> dict:
    """Load one page (in `context`, or a fresh one) until its first step; return the figures."""
    own = context is None
    context = context or browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    net = NetLog(context.new_cdp_session(page))
    url = base + PAGES[kind]
    try:
        page.goto(url, wait_until="load", timeout=TIMEOUT_MS)
        nav = page.evaluate(
            "() => { const n = performance.getEntriesByType('navigation')[0];"
            " return {dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd}; }"
        )
        if kind == "lab":
            deadline = time.monotonic() + TIMEOUT_MS / 1000
            while net.ws_frames < 2 and time.monotonic() < deadline:  # Engine.IO open + connect
                page.wait_for_timeout(20)
            page.click("#run")
        page.wait_for_function(
            "() => window.labMetrics && window.labMetrics.runs.length > 0", timeout=TIMEOUT_MS
        )
        run = page.evaluate("() => window.labMetrics.runs[0]")
        page.wait_for_timeout(500)  # let late requests (if any) finish before counting bytes
        resources = page.evaluate(
            "() => performance.getEntriesByType('resource').concat("
            "performance.getEntriesByType('navigation')).map(e => e.transferSize)"
        )
    finally:
        page.close()
        if own:
            context.close()
    http = net.http()
    return {
        "kind": kind,
        "url": PAGES[kind],
        "wire": net.wire_bytes(),
        "timing_transfer": sum(resources),
        "requests": len(http),
        "statuses": sorted({r["status"] for r in http}),
        "from_cache": sum(r["from_cache"] for r in http),
        "not_modified": sum(r["status"] == 304 for r in http),
        "responses": http,
        "ws_frames": net.ws_frames,
        "ws_bytes": net.ws_bytes,
        "dcl_ms": nav["dcl"],
        "load_ms": nav["load"],
        "click_ms": run["clickedAt"],
        "first_step_ms": run["firstStepMs"],  # from the click (embed: from socket connect)
        "nav_to_first_step_ms": run["clickedAt"] + run["firstStepMs"],
        "ranks": run.get("ranks"),
        "errors": errors,
    }


def steps_per_second(points: list[tuple[float, int]]) -> float:
    """Least-squares slope of step against page time in ms, in steps per second."""
    n = len(points)
    mt = sum(t for t, _ in points) / n
    mk = sum(k for _, k in points) / n
    cov = sum((t - mt) * (k - mk) for t, k in points)
    var = sum((t - mt) ** 2 for t, _ in points)
    return 1000 * cov / var


def measure_playback(page, base: str, ranks: int, speed: float, steps: int) -> dict:
    """Play ring allreduce on `ranks` at `speed` for `steps` steps once all have arrived; return
    the rate achieved on the page's clock and how often the counter moved.

    Playback stops after `steps` steps or twice the time they should take (page clock).
    """
    page.goto(f"{base}/lab?collective=allreduce&algorithm=ring&ranks={ranks}&speed={speed:g}")
    page.wait_for_function("() => document.documentElement.dataset.socket === 'connected'")
    page.click("#run")
    page.wait_for_function(  # every step has arrived: playback never waits for the stream
        f"() => document.querySelector('{BADGE}').textContent === "
        "'checked against numpy at the end' "
        f"|| document.querySelector('{BADGE}').dataset.state === 'ok'",
        timeout=60_000,
    )
    page.keyboard.press("Home")
    page.evaluate(WATCH_COUNTER)
    page.keyboard.press(" ")
    limit_ms = 2 * 1000 * steps / speed
    page.wait_for_function(
        "([last, limit]) => window.counterLog.length && (window.counterLog.at(-1)[1] >= last"
        " || performance.now() - window.counterLog[0][0] > limit)",
        arg=[steps + 1, limit_ms],
        timeout=60_000 + limit_ms,
    )
    page.keyboard.press(" ")
    shown = [(t, k) for t, k in page.evaluate("window.counterLog") if 1 <= k <= steps + 1]
    gaps = [b[0] - a[0] for a, b in zip(shown, shown[1:], strict=False)]
    return {
        "rate": steps_per_second(shown),
        "set": speed,
        "steps": shown[-1][1] - shown[0][1],
        "updates": len(shown),
        "ordered": [k for _, k in shown] == sorted(k for _, k in shown),
        "median_gap_ms": statistics.median(gaps) if gaps else None,
    }


def playback(browser, base: str) -> dict:
    """Measure and print the playback rate at PLAYBACK's ranks and speed."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        r = measure_playback(context.new_page(), base, **PLAYBACK)
    finally:
        context.close()
    print(
        f"playback, ring allreduce {PLAYBACK['ranks']} ranks at {r['set']:g}x: "
        f"{r['rate']:.2f} steps/s = {r['rate'] / r['set']:.2f} of the rate set, over "
        f"{r['steps']} steps; the counter moved {r['updates']} times, a median "
        f"{r['median_gap_ms']:.0f} ms apart (a step at {r['set']:g}x lasts "
        f"{1000 / r['set']:.0f} ms)"
    )
    return r


def gzip_estimate(base: str, responses: list[dict]) -> tuple[int, int]:
    """Return (raw bytes, gzip -6 bytes) of the text responses, fetched again uncompressed."""
    raw = packed = 0
    for r in responses:
        if r["status"] != 200 or not any(t in r["type"] for t in TEXT_TYPES):
            continue
        path = urlsplit(r["url"])
        req = urllib.request.Request(
            base + path.path + (f"?{path.query}" if path.query else ""),
            headers={"Accept-Encoding": "identity"},
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            body = resp.read()
        raw += len(body)
        packed += len(gzip.compress(body, 6))
    return raw, packed


def run(cold_loads: int = COLD_LOADS, pages: bool = True, frame_steps: int = frame.STEPS) -> dict:
    """Measure both pages (unless not `pages`), the playback rate and the main thread per step;
    print and return the pages' figures (and the per-step figures under "frame")."""
    from playwright.sync_api import sync_playwright

    chromium = chromium_path()
    if chromium is None:
        print("page: SKIPPED, no chromium on PATH")
        return {}
    cold_loads = max(1, min(cold_loads, 10))
    out: dict = {}
    with app_server() as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            load_page(browser, server.url, "embed")  # warm the server (imports, first run)
            for kind in PAGES if pages else ():
                colds = [load_page(browser, server.url, kind) for _ in range(cold_loads)]
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                try:
                    load_page(browser, server.url, kind, context)
                    warm = load_page(browser, server.url, kind, context)
                finally:
                    context.close()
                out[kind] = {"cold": colds, "warm": warm}
                _print_page(server.url, kind, colds, warm)
            if pages:  # the embed's server-drawn first picture and lazy start (bench/embed.py)
                out["first_picture"] = embed.measure(browser, server.url, cold_loads)
            playback(browser, server.url)
            out["frame"] = frame.run(browser, server.url, frame_steps)
        finally:
            browser.close()
    return out


def _median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def _print_page(base: str, kind: str, colds: list[dict], warm: dict) -> None:
    first = colds[0]
    wire = _median(colds, "wire")
    print(f"page {PAGES[kind]} (headless Chromium, {len(colds)} cold loads, medians):")
    print(
        f"  transferred {wire / 1e6:.3f} MB in {first['requests']} HTTP responses (statuses "
        f"{first['statuses']}; resource-timing transferSize {first['timing_transfer'] / 1e6:.3f}"
        f" MB); websocket {first['ws_frames']} frames, {first['ws_bytes'] / 1e3:.0f} kB payload"
    )
    if kind == "embed":
        print(
            f"  navigation -> first animated step {_median(colds, 'nav_to_first_step_ms'):.0f} "
            f"ms (socket connect at {_median(colds, 'click_ms'):.0f} ms, then "
            f"{_median(colds, 'first_step_ms'):.0f} ms to the first step); DOMContentLoaded "
            f"{_median(colds, 'dcl_ms'):.0f} ms, load {_median(colds, 'load_ms'):.0f} ms; all: "
            + ", ".join(f"{r['nav_to_first_step_ms']:.0f}" for r in colds)
        )
        small = wire < EMBED_TARGET_BYTES
        fast = _median(colds, "nav_to_first_step_ms") < FIRST_STEP_TARGET_MS
        print(
            f"  target < {EMBED_TARGET_BYTES / 1e6:.1f} MB compressed: "
            f"{'met' if small else 'NOT met'}; first step < {FIRST_STEP_TARGET_MS} ms: "
            f"{'met' if fast else 'NOT met'}"
        )
    else:
        print(
            f"  Run click -> first animated step {_median(colds, 'first_step_ms'):.0f} ms "
            f"({first['ranks']} ranks; all: "
            + ", ".join(f"{r['first_step_ms']:.0f}" for r in colds)
            + f"); DOMContentLoaded {_median(colds, 'dcl_ms'):.0f} ms, load "
            f"{_median(colds, 'load_ms'):.0f} ms; first step < {FIRST_STEP_TARGET_MS} ms: "
            f"{'met' if _median(colds, 'first_step_ms') < FIRST_STEP_TARGET_MS else 'NOT met'}"
        )
    text = [r for r in first["responses"] if any(t in r["type"] for t in TEXT_TYPES)]
    packed = [r for r in text if r["encoding"]]
    caches = sorted({r["cache"] or "(none)" for r in first["responses"]})
    raw, gz = gzip_estimate(base, first["responses"])
    print(
        f"  compression: {len(packed)} of {len(text)} text responses compressed "
        f"({', '.join(sorted({r['encoding'] for r in packed})) or 'none'}); their raw size "
        f"{raw / 1e6:.3f} MB, gzip -6 would send {gz / 1e6:.3f} MB"
    )
    print(f"  cache headers: {'; '.join(caches)}")
    print(
        f"  warm reload (same context): {warm['wire'] / 1e6:.3f} MB, {warm['requests']} "
        f"responses, {warm['not_modified']} x 304, {warm['from_cache']} from cache; "
        + (
            f"first step {warm['nav_to_first_step_ms']:.0f} ms after navigation"
            if kind == "embed"
            else f"Run -> first step {warm['first_step_ms']:.0f} ms"
        )
    )
    errors = sorted({e for r in [*colds, warm] for e in r["errors"]})
    if errors:
        print(f"  page errors: {len(errors)}: {errors[0][:160]}")
    largest = sorted(first["responses"], key=lambda r: -(r["wire"] or 0))[:3]
    print(
        "  largest: "
        + "; ".join(f"{urlsplit(r['url']).path} {(r['wire'] or 0) / 1e3:.0f} kB" for r in largest)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.page", description=__doc__)
    parser.add_argument("--cold", type=int, default=COLD_LOADS, help="cold loads per page (max 10)")
    parser.add_argument(
        "--playback-only", action="store_true", help="measure only the playback rate"
    )
    parser.add_argument(
        "--frame-steps", type=int, default=frame.STEPS, help="arrow-key steps per case (max 120)"
    )
    args = parser.parse_args(argv)
    run(args.cold, pages=not args.playback_only, frame_steps=max(1, min(args.frame_steps, 120)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
