"""`make bench`: every benchmark in sequence, every figure printed; nonzero only on a crash.

engine (bench/engine.py), streaming (full stack vs bare python-socketio; with the app's run
cache off, where a second bare server also computes each run, then on), narration (what each
step's sentence adds to a run's time and bytes),
page (headless Chromium), wire (bench/wire.py: a run's bytes on the websocket against its
compact trace, Chromium and python-socketio behind a counting proxy), a short load run
(50 clients x 10 s), a short fault run, and the hostile clients (bench/hostile.py: eight
attacks, each against a fresh server, about 3.5 minutes), and the classroom
(bench/classroom.py: a room's fan-out against bare python-socketio, a poll of 200,
independent learners on one and two processes behind Redis; about 10 minutes). Figures that
miss their target are printed as such, not raised: the machines are noisy and this is not a
test.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable

from . import classroom, embed, engine, frame, hostile, load, narration, page, streaming, wire
from .common import loadavg


def machine() -> str:
    """Describe the machine: cores, CPU model, Python, and the load others put on it."""
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            model = next(
                line.split(":", 1)[1].strip() for line in f if line.startswith("model name")
            )
    except (OSError, StopIteration):
        pass
    return (
        f"{os.cpu_count()} cores ({model}), Python {platform.python_version()}, "
        f"load average {loadavg()}"
    )


def summary(results: dict) -> None:
    """Print the headline figure of every benchmark that ran, one line each."""
    print("\n=== summary ===")
    rows = results.get("engine")
    if rows:
        print(
            "engine: steps / numpy copy floor "
            + ", ".join(f"p={r['ranks']} {r['steps'] / r['floor']:.2f}x" for r in rows)
            + " (target p=8 <= 3x); steps / numpy's own chunk loop "
            + ", ".join(f"{r['steps'] / r['loop']:.2f}x" for r in rows)
        )
    streams = (("streaming", "run cache off"), ("streaming_cached", "repeated runs, cached"))
    for key, note in streams:
        s = results.get(key)
        if s:
            like = (
                f"; against bare python-socketio computing the same runs "
                f"{s['computing']['events_per_s']:.0f} events/s = {s['like_ratio']:.1%}"
                if "like_ratio" in s
                else ""
            )
            print(
                f"streaming ({note}): full stack {s['full']['events_per_s']:.0f} events/s vs "
                f"bare python-socketio replaying {s['bare']['events_per_s']:.0f} events/s = "
                f"{s['ratio']:.1%}{like} (target like for like >= {streaming.TARGET:.0%})"
            )
    n = results.get("narration")
    if n:
        narration.summary(n)
    p = dict(results.get("page") or {})
    for f in p.pop("frame", None) or []:
        print(
            f"main thread per arrow-key step, {f['name']}: CPU {f['cpu_mean']:.0f} ms "
            f"(target < {frame.TARGET_MS} ms), key -> frame median {f['key_median']:.0f} ms"
        )
    first_picture = p.pop("first_picture", None)
    if first_picture:
        embed.summary(first_picture)
    for kind, figures in p.items():
        colds = figures["cold"]
        sent = sorted(r["wire"] for r in colds)[len(colds) // 2]
        key = "nav_to_first_step_ms" if kind == "embed" else "first_step_ms"
        when = "navigation" if kind == "embed" else "Run click"
        first = sorted(r[key] for r in colds)[len(colds) // 2]
        print(
            f"page {colds[0]['url']}: {sent / 1e6:.3f} MB transferred, {when} -> first step "
            f"{first:.0f} ms"
        )
    w = results.get("wire")
    if w:
        wire.summary(w)
    r = results.get("load")
    if r:
        t = r.tally
        print(
            f"load: {r.clients} clients x {r.seconds:.0f} s: {t.runs_ok} runs, {t.error_count} "
            f"errors, {t.lost} lost, {t.out_of_order} out of order, p50 {r.p50 * 1e3:.0f} ms, "
            f"p99 {r.p99 * 1e3:.0f} ms, server RSS peak {r.rss_peak:.0f} MB"
        )
    f = results.get("faults")
    if f:
        problems = sum(sum(ph.problems.values()) for ph in f["phases"])
        print(
            f"faults: {problems} problems; server RSS baseline {f['baseline']:.0f} MB, peak "
            f"{f['peak']:.0f} MB, after {f['after']:.0f} MB; threads idle {f['idle_threads']}, "
            f"after {f['threads_after']}"
        )
    c = results.get("classroom")
    if c:
        classroom.summary(c)
    h = results.get("hostile")
    if h:
        print(
            f"hostile: {h['passed']} of {len(h['phases'])} phases met every target (peak RSS "
            f"within the memory budget, probe first step p95 < {hostile.PROBE_TARGET_MS} ms, "
            f"RSS after within +{hostile.AFTER_TARGET_MB} MB): "
            + ", ".join(f"{r.title} {'PASS' if r.passed() else 'FAIL'}" for r in h["phases"])
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument(
        "--only",
        help="comma-separated subset: engine,streaming,streaming_cached,narration,page,wire,load,"
        "faults,hostile,classroom",
    )
    parser.add_argument("--clients", type=int, default=50, help="load clients (default 50)")
    parser.add_argument("--seconds", type=float, default=10, help="load seconds (default 10)")
    parser.add_argument(
        "--hostile-seconds",
        type=float,
        default=hostile.DEFAULT_SECONDS,
        help=f"attack seconds per hostile phase (default {hostile.DEFAULT_SECONDS:g})",
    )
    args = parser.parse_args(argv)
    steps: dict[str, Callable[[], object]] = {
        "engine": engine.run,
        "streaming": streaming.run,
        "streaming_cached": lambda: streaming.run(cache=True),
        "narration": narration.run,
        "page": page.run,
        "wire": wire.run,
        "load": lambda: load.load(args.clients, args.seconds),
        "faults": lambda: load.faults(
            clients=10, flood_clients=5, flood=50, big_flood=20, settle_s=30
        ),
        "hostile": lambda: hostile.run(seconds=args.hostile_seconds),
        "classroom": classroom.run,
    }
    chosen = args.only.split(",") if args.only else list(steps)
    unknown = sorted(set(chosen) - set(steps))
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(unknown)}")
    print(f"bench {time.strftime('%Y-%m-%d %H:%M:%S %Z')}: {machine()}", flush=True)
    crashed = []
    results: dict[str, object] = {}
    for name in chosen:
        print(f"\n=== {name} (load average before: {loadavg()}) ===", flush=True)
        start = time.monotonic()
        try:
            results[name] = steps[name]()
        except Exception:  # noqa: BLE001 - a crash is reported and makes the exit code nonzero
            traceback.print_exc()
            crashed.append(name)
        print(f"--- {name}: {time.monotonic() - start:.0f} s", flush=True)
    summary(results)
    if crashed:
        print(f"\nbench: CRASHED in {', '.join(crashed)}", file=sys.stderr)
        return 1
    print(f"\nbench: done (load average {loadavg()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
