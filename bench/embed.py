"""The embed's first picture and its lazy start, in headless Chromium (run by bench/page.py).

- first paint: Chromium's first-contentful-paint entry (a PerformanceObserver for `paint`,
  installed before the page's own scripts), and whether the server-drawn picture of step 0
  (svg.step0 and the step-0 grid) was in the DOM at that moment; cold (a fresh browser
  context) and warm (the same context again), beside the 300 ms target.
- interactive: navigation -> first animated step, warm, from the page's own metrics
  (window.labMetrics: the embed "clicks" when its socket connects), beside the 600 ms target.
- lazy start: a lesson page with several embeds (`LESSON`), opened at the top: how many of the
  embeds below the fold have connected their socket before the reader scrolls (target 0),
  and then that the last one connects once scrolled to.
"""

from __future__ import annotations

import statistics
import time

from .common import loadavg

EMBED = "/embed/allreduce/ring?ranks=8&autoplay=1"
LESSON = "/lessons/primitives"  # seven @lab embeds
PAINT_TARGET_MS = 300
INTERACTIVE_TARGET_MS = 600
COLD_LOADS = 3
TIMEOUT_MS = 20_000
VIEWPORT = {"width": 1280, "height": 900}
# In every frame, before its scripts: note the first contentful paint, and what was on the page.
WATCH_PAINT = """
window.firstPaint = null;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (e.name !== "first-contentful-paint" || window.firstPaint) continue;
    window.firstPaint = {
      ms: e.startTime,
      svg: Boolean(document.querySelector("svg.step0 circle")),
      grid: Boolean(document.querySelector(".step0-grid .s0-cell")),
    };
  }
}).observe({ type: "paint", buffered: true });
"""
EMBEDS_BELOW = """() => [...document.querySelectorAll('iframe[src*="/embed/"]')]
  .filter((f) => !f.src.includes('/embed/calc/'))
  .map((f) => ({below: f.getBoundingClientRect().top >= innerHeight, src: f.src}))"""
NOTHING = {"socket": None, "picture": False, "emits": 0}
FRAME_STATE = """() => ({
  socket: document.documentElement.dataset.socket || null,
  picture: Boolean(document.querySelector("svg.step0")),
  emits: window.labMetrics ? window.labMetrics.simulateEmits : 0,
})"""


def load_embed(context, base: str) -> dict:
    """Open the embed in `context` until its first animated step; return paint and step times."""
    page = context.new_page()
    try:
        page.goto(base + EMBED, wait_until="load", timeout=TIMEOUT_MS)
        page.wait_for_function("() => window.firstPaint", timeout=TIMEOUT_MS)
        paint = page.evaluate("() => window.firstPaint")
        page.wait_for_function(
            "() => window.labMetrics && window.labMetrics.runs.length > 0", timeout=TIMEOUT_MS
        )
        run = page.evaluate("() => window.labMetrics.runs[0]")
    finally:
        page.close()
    return {
        "paint_ms": paint["ms"],
        "picture_at_paint": paint["svg"] and paint["grid"],
        "first_step_ms": run["clickedAt"] + run["firstStepMs"],
    }


def lesson_frames(browser, base: str) -> dict:
    """Open a lesson with several embeds; count the embeds below the fold that connected before
    any scrolling, then scroll to the last and see it connect."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    try:
        page.goto(base + LESSON, wait_until="load", timeout=TIMEOUT_MS)
        page.wait_for_timeout(2000)  # time for anything eager to connect
        embeds = page.evaluate(EMBEDS_BELOW)
        # A lazy frame not loaded yet is still about:blank: it has done nothing.
        done = {f.url: f.evaluate(FRAME_STATE) for f in page.frames if "/embed/" in f.url}
        below = [done.get(e["src"], NOTHING) for e in embeds if e["below"]]
        last = page.locator('iframe[src*="/embed/"]:not([src*="/embed/calc/"])').last
        last.scroll_into_view_if_needed()
        frame = last.element_handle().content_frame()
        frame.wait_for_function(
            "() => document.documentElement.dataset.socket === 'connected'", timeout=TIMEOUT_MS
        )
    finally:
        context.close()
    return {
        "embeds": len(embeds),
        "below": len(below),
        "below_loaded": sum(s["picture"] for s in below),
        "below_connected": sum(bool(s["socket"]) or s["emits"] > 0 for s in below),
    }


def measure(browser, base: str, cold_loads: int = COLD_LOADS) -> dict:
    """Measure and print the embed's first paint, first step and lazy start."""
    colds = []
    for _ in range(cold_loads):
        context = browser.new_context(viewport=VIEWPORT)
        context.add_init_script(WATCH_PAINT)
        try:
            colds.append(load_embed(context, base))
        finally:
            context.close()
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(WATCH_PAINT)
    try:
        load_embed(context, base)
        warm = load_embed(context, base)
    finally:
        context.close()
    lesson = lesson_frames(browser, base)
    out = {"cold": colds, "warm": warm, "lesson": lesson, "loadavg": loadavg()}
    _print(out)
    return out


def _verdict(ms: float, target: float) -> str:
    return f"{ms:.0f} ms (target < {target} ms: {'met' if ms < target else 'NOT met'})"


def _print(out: dict) -> None:
    colds, warm, lesson = out["cold"], out["warm"], out["lesson"]
    cold_paint = statistics.median(r["paint_ms"] for r in colds)
    pictured = all(r["picture_at_paint"] for r in [*colds, warm])
    print(f"embed {EMBED} first picture (load average {out['loadavg']}):")
    print(
        f"  first contentful paint: cold {_verdict(cold_paint, PAINT_TARGET_MS)} (all: "
        + ", ".join(f"{r['paint_ms']:.0f}" for r in colds)
        + f"); warm {_verdict(warm['paint_ms'], PAINT_TARGET_MS)}; step-0 picture in the DOM "
        f"at that paint: {'yes' if pictured else 'NO'}"
    )
    print(
        f"  navigation -> first animated step: warm "
        f"{_verdict(warm['first_step_ms'], INTERACTIVE_TARGET_MS)}; cold median "
        f"{statistics.median(r['first_step_ms'] for r in colds):.0f} ms"
    )
    print(
        f"  lesson {LESSON}: {lesson['embeds']} embeds, {lesson['below']} below the fold, "
        f"{lesson['below_loaded']} of them loaded, {lesson['below_connected']} connected before "
        f"scrolling (target 0: {'met' if lesson['below_connected'] == 0 else 'NOT met'}); the "
        "last connected once scrolled to"
    )


def summary(out: dict) -> None:
    """One line for `make bench`'s summary."""
    warm, colds = out["warm"], out["cold"]
    print(
        f"embed first picture: paint cold {statistics.median(r['paint_ms'] for r in colds):.0f}"
        f" ms, warm {warm['paint_ms']:.0f} ms (target < {PAINT_TARGET_MS}); first animated step"
        f" warm {warm['first_step_ms']:.0f} ms (target < {INTERACTIVE_TARGET_MS}); lesson embeds"
        f" connected below the fold {out['lesson']['below_connected']} (target 0); load average"
        f" {out['loadavg']}"
    )


def main() -> int:
    """Run on its own: `python -m bench.embed`."""
    from playwright.sync_api import sync_playwright

    from .common import app_server
    from .page import CHROMIUM_ARGS, chromium_path

    with app_server() as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            start = time.monotonic()
            measure(browser, server.url)
            print(f"  ({time.monotonic() - start:.0f} s)")
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
