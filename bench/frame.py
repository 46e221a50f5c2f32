"""Main-thread time per step drawn at 64 ranks, in headless Chromium (issue 17).

A learner steps with the arrow key through a run that has fully arrived. For each of STEPS
steps this measures, on the page:

- main thread: Chromium's own count of main-thread task time (`TaskDuration` from the DevTools
  protocol's Performance.getMetrics) from just before the key press until the step is fully
  drawn (the chunks have landed and every view has redrawn) and two more frames have passed;
  script, layout and style time beside it;
- key -> frame: from the keydown event's timestamp to the end of the first frame painted after
  it (a requestAnimationFrame, then a message posted from it, which runs after that frame);
- long tasks: the sum of the PerformanceObserver 'longtask' entries (tasks over 50 ms) in the
  same window, to cross-check the total from outside the protocol;
- per view: the synchronous time of each view's draw method and of each Plotly call on each
  plot (labelled by the plot's data-role), wrapped from outside so the page carries no
  instrumentation. A view method's time includes the Plotly calls it makes synchronously. The
  topology is SVG (no Plotly): its `render` (arrows and packets put in as markup) and
  `_arrows` (where they go), and the packets' `Element.animate` calls; the flight itself runs
  in the browser's animation ticks, which the main-thread totals count. The buffer grid is HTML
  too: its render includes the style and layout it causes, forced.

Median and p90 over the steps, for ring, double binary tree and hierarchical allreduce on 64
ranks, and ring on a phone-sized viewport. The lab's own `performance.measure("lab:step")`
(static/js/lab-views.js) gives the same draw in DevTools' timings track.
"""

from __future__ import annotations

import os
import statistics

from bench.common import process_tree

STEPS = 40
PHONE = {"width": 390, "height": 844}
CASES = [
    ("ring 64", "collective=allreduce&algorithm=ring&ranks=64", {"width": 1280, "height": 900}),
    (
        "double binary tree 64",
        "collective=allreduce&algorithm=double_binary_tree&ranks=64",
        {"width": 1280, "height": 900},
    ),
    (
        "hierarchical 64",
        "collective=allreduce&algorithm=hierarchical&ranks=64",
        {"width": 1280, "height": 900},
    ),
    ("ring 64, phone", "collective=allreduce&algorithm=ring&ranks=64", PHONE),
]
TARGET_MS = 50
RECEIVED = """() => {
  const b = document.querySelector('.player [data-role="badge"]');
  return b.textContent === 'checked against numpy at the end' || b.dataset.state === 'ok';
}"""

# Wrap the views' draw methods and Plotly's calls so each step's synchronous time is summed
# per label; mark key -> frame; collect long tasks.
INSTRUMENT = """() => {
  const CL = window.CollectiveLab, V = CL.views;
  const log = window.frameLog = { step: {}, done: 0, longtasks: [], keyToFrame: null, waiting: [] };
  const add = (label, ms) => { log.step[label] = (log.step[label] || 0) + ms; };
  const wrap = (obj, name, label) => {
    const fn = obj[name];
    if (!fn) return;
    obj[name] = function (...args) {
      const t0 = performance.now();
      try { return fn.apply(this, args); }
      finally {
        add(typeof label === 'function' ? label(this, args) : label, performance.now() - t0);
      }
    };
  };
  // The buffer grid is HTML: its render only touches the changed cells and leaves the style
  // and layout to the frame, which Plotly's heatmap did inside its react. Its render is timed
  // with a forced layout of the grid, so the figure counts the grid's whole cost; what the views
  // before it changed is laid out first, untimed (below), so it is not counted as the grid's.
  const bufferRender = V.BufferView.prototype.render;
  V.BufferView.prototype.render = function (...args) {
    const out = bufferRender.apply(this, args);
    if (this.grid) void this.grid.offsetWidth;
    return out;
  };
  const views = [
    [V.TopologyView, ['render', '_arrows']], [V.BufferView, ['update', 'render']],
    [V.TrafficView, ['render']], [V.Tables, ['render']], [V.Narration, ['step', 'cell']],
    [V.Inspector, ['render', 'show']], [CL.Player, ['_status']],
  ];
  for (const [cls, methods] of views) {
    if (!cls) continue;
    for (const m of methods) wrap(cls.prototype, m, `${cls.name}.${m}`);
  }
  const timedRender = V.BufferView.prototype.render;
  V.BufferView.prototype.render = function (...args) {
    void document.body.offsetWidth;
    return timedRender.apply(this, args);
  };
  const role = (gd) => (gd && gd.dataset && gd.dataset.role) || 'plot';
  for (const fn of ['react', 'newPlot', 'restyle', 'relayout', 'update', 'animate']) {
    if (window.Plotly) wrap(Plotly, fn, (_, args) => `Plotly.${fn}(${role(args[0])})`);
  }
  wrap(Element.prototype, 'animate', 'Element.animate (packets)');
  const render = V.Views.prototype.render;
  V.Views.prototype.render = function (...args) {
    return render.apply(this, args).finally(() => {
      log.done += 1;
      for (const wake of log.waiting.splice(0)) wake();
    });
  };
  window.addEventListener('keydown', (e) => {
    const t = e.timeStamp;
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => { log.keyToFrame = performance.now() - t; };
      ch.port2.postMessage(0);
    });
  }, true);
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) log.longtasks.push([e.startTime, e.duration]);
  }).observe({ type: 'longtask' });
  log.begin = () => { log.step = {}; log.keyToFrame = null; log.t0 = performance.now(); };
  // Settles once more than `n` draws have ended. Waiting by polling (Playwright's
  // wait_for_function polls on every animation frame) would make the page run a main-thread
  // frame, with its style and layout, through every frame of a chunk flight that otherwise runs
  // on the compositor: the measurement would cost what it measures.
  log.until = (n) => new Promise((resolve) => {
    const check = () => (log.done > n ? resolve() : log.waiting.push(check));
    check();
  });
  log.frames = (n) => new Promise((resolve) => {
    const next = (k) => (k ? requestAnimationFrame(() => next(k - 1)) : setTimeout(resolve, 0));
    next(n);
  });
}"""
METRICS = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")
TICK_MS = 1000 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 10.0


def renderer_cpu_ms() -> dict[int, float]:
    """CPU time (user + system) of each Chromium renderer's main thread so far, by pid, from /proc.

    Task durations are wall time: on a loaded machine they count the time the thread waited
    for a core. The main thread's CPU time does not, at the kernel's tick (10 ms) resolution,
    so it is summed over all the steps of a case and divided by their number. Only this
    process's own browser counts (its descendants): another Chromium on the machine (a test
    run beside the bench) would add its renderers' time to every step.
    """
    total = {}
    ours = set(process_tree(os.getpid()))
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) not in ours:
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                if b"--type=renderer" not in f.read():
                    continue
            with open(f"/proc/{entry.name}/task/{entry.name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        total[int(entry.name)] = (int(fields[11]) + int(fields[12])) * TICK_MS
    return total


def cpu_since(before: dict[int, float]) -> float:
    """Renderer main-thread CPU ms used since `before` (renderer_cpu_ms), by the renderers that
    are still running (a closed page's renderer takes its count with it)."""
    return sum(ms - before.get(pid, 0.0) for pid, ms in renderer_cpu_ms().items())


def _metrics(cdp) -> dict[str, float]:
    got = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {k: got.get(k, 0.0) * 1000 for k in METRICS}


def measure_case(context, base: str, query: str, viewport: dict, steps: int) -> list[dict]:
    """Step through one run with ArrowRight; return one record per step."""
    page = context.new_page()
    page.set_viewport_size(viewport)
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    page.goto(f"{base}/lab?{query}")
    page.wait_for_function("() => document.documentElement.dataset.socket === 'connected'")
    page.click("#run")
    page.wait_for_function(RECEIVED, timeout=90_000)
    page.evaluate(INSTRUMENT)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press("Home")
    page.wait_for_function("() => window.frameLog.done >= 1", timeout=30_000)
    page.evaluate("() => window.frameLog.frames(3)")
    total = page.evaluate(
        "() => Number(document.querySelector('.player [data-role=counter]')"
        ".textContent.split(' of ')[1])"
    )
    out = []
    cpu0 = renderer_cpu_ms()
    for _ in range(min(steps, total)):
        page.evaluate("() => window.frameLog.begin()")
        done = page.evaluate("() => window.frameLog.done")
        before = _metrics(cdp)
        page.keyboard.press("ArrowRight")
        page.evaluate(f"() => window.frameLog.until({done})")
        page.evaluate("() => window.frameLog.frames(2)")
        after = _metrics(cdp)
        step = page.evaluate(
            "() => { const l = window.frameLog;"
            " const long = l.longtasks.filter(([s]) => s >= l.t0).reduce((a, [, d]) => a + d, 0);"
            " return {views: l.step, keyToFrame: l.keyToFrame, longtasks: long,"
            " shown: document.querySelector('[data-role=player]').dataset.drawnStep}; }"
        )
        step.update({k: after[k] - before[k] for k in METRICS})
        out.append(step)
    cpu = cpu_since(cpu0) / max(1, len(out))
    for step in out:
        step["cpu_mean"] = cpu
    page.close()
    return out


def p90(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.9 * (len(xs) - 1)))]


def summarize(name: str, rows: list[dict]) -> dict:
    """Median and p90 of each figure over the steps; print them."""
    task = [r["TaskDuration"] for r in rows]
    key = [r["keyToFrame"] for r in rows if r["keyToFrame"] is not None]
    labels = sorted({k for r in rows for k in r["views"]})
    per_view = {k: statistics.median(r["views"].get(k, 0.0) for r in rows) for k in labels}
    s = {
        "name": name,
        "steps": len(rows),
        "cpu_mean": rows[0]["cpu_mean"] if rows else None,
        "task_median": statistics.median(task),
        "task_p90": p90(task),
        "script_median": statistics.median(r["ScriptDuration"] for r in rows),
        "layout_median": statistics.median(r["LayoutDuration"] for r in rows),
        "style_median": statistics.median(r["RecalcStyleDuration"] for r in rows),
        "key_median": statistics.median(key) if key else None,
        "key_p90": p90(key) if key else None,
        "longtask_median": statistics.median(r["longtasks"] for r in rows),
        "views": per_view,
    }
    met = "met" if s["cpu_mean"] < TARGET_MS else "NOT met"
    print(
        f"main thread per arrow-key step, {name}, {len(rows)} steps: CPU {s['cpu_mean']:.0f} ms"
        f" a step (mean; target < {TARGET_MS} ms: {met}); task time median "
        f"{s['task_median']:.0f} ms, p90 {s['task_p90']:.0f} ms (script {s['script_median']:.0f}"
        f", layout {s['layout_median']:.0f}, style {s['style_median']:.0f}); key -> frame median "
        f"{s['key_median']:.0f} ms, p90 {s['key_p90']:.0f} ms; long tasks "
        f"{s['longtask_median']:.0f} ms"
    )
    print(
        "  per view (median sync ms): "
        + ", ".join(f"{k} {v:.1f}" for k, v in sorted(per_view.items(), key=lambda kv: -kv[1]))
    )
    return s


def run(browser, base: str, steps: int = STEPS) -> list[dict]:
    """Measure every case in CASES; print and return the summaries."""
    results = []
    context = browser.new_context()
    try:
        for name, query, viewport in CASES:
            rows = measure_case(context, base, query, viewport, steps)
            results.append(summarize(name, rows))
    finally:
        context.close()
    return results
