"""Narration: what writing each step's sentence adds to a run's server time and to the wire.

The server's work for one Socket.IO run is the engine and encoding every payload
(`runcache.encode_run`, which writes the narration once per run). For the ring allreduce of
64 ranks x 64 elements (the streaming benchmark's run), runs alternate between

- with: the lab's own path, every `sim_step` carrying its narration;
- without: the same path with the narration left empty (`serialize.narrations` patched),

and report CPU seconds per run (process time, so other load on the machine counts less) and
bytes of JSON per run, each as the ratio with / without. The narration alone is timed too,
on fresh traces. Issue 15's target: under 10% on both.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from unittest import mock

PARAMS = {"collective": "allreduce", "algorithm": "ring", "ranks": 64, "elements": 64}
RUNS = 9
TARGET = 0.10


def _run(with_narration: bool) -> tuple[float, int, float]:
    """Run the lab's server-side work once; return CPU seconds, JSON bytes, narration seconds."""
    from app.collectives import simulate
    from app.web import serialize
    from app.web.live.runcache import encode_run

    start = time.process_time()
    trace = simulate(**PARAMS)
    spent = 0.0
    if with_narration:
        patch = contextlib.nullcontext()
    else:
        patch = mock.patch.object(
            serialize, "narrations", lambda t, lang="en": [""] * t.total_steps
        )
    with patch:
        encoded = encode_run(trace)
    total = time.process_time() - start
    if with_narration:  # the narration alone, on a fresh trace (it builds nothing it shares)
        fresh = simulate(**PARAMS)
        t0 = time.process_time()
        serialize.narrations(fresh)
        spent = time.process_time() - t0
    nbytes = len(encoded.start) + len(encoded.done) + sum(len(s) for s in encoded.steps)
    return total, nbytes, spent


def run(runs: int = RUNS) -> dict:
    """Alternate runs with and without narration; print and return the ratios."""
    runs = max(1, min(runs, 50))
    print(
        f"narration: ring allreduce {PARAMS['ranks']} ranks x {PARAMS['elements']}, engine + "
        f"encoding every payload in process, {runs} runs each (after a warm-up), alternating"
    )
    _run(True), _run(False)  # warm-up: imports, caches
    results: dict[bool, list[tuple[float, int, float]]] = {True: [], False: []}
    for _ in range(runs):
        for flag in (True, False):
            results[flag].append(_run(flag))
    with_s = statistics.median(r[0] for r in results[True])
    without_s = statistics.median(r[0] for r in results[False])
    alone_s = statistics.median(r[2] for r in results[True])
    with_b, without_b = results[True][0][1], results[False][0][1]
    out = {
        "with_ms": with_s * 1e3,
        "without_ms": without_s * 1e3,
        "narrate_ms": alone_s * 1e3,
        "time_ratio": with_s / without_s,
        "share": alone_s / without_s,
        "with_bytes": with_b,
        "without_bytes": without_b,
        "bytes_ratio": with_b / without_b,
    }
    print(
        f"  server CPU per run: {out['with_ms']:.0f} ms with narration, {out['without_ms']:.0f} "
        f"ms without: x{out['time_ratio']:.3f}; narrate() alone {out['narrate_ms']:.1f} ms = "
        f"{out['share']:.1%} of the run without it"
    )
    print(
        f"  JSON per run: {with_b / 1e6:.3f} MB with, {without_b / 1e6:.3f} MB without: "
        f"x{out['bytes_ratio']:.3f}"
    )
    met = out["share"] < TARGET and out["bytes_ratio"] < 1 + TARGET
    verdict = "met" if met else "NOT met"
    print(f"  target: narration adds < {TARGET:.0%} to time and bytes: {verdict}")
    return out


def summary(out: dict) -> None:
    print(
        f"narration (64x64 ring): server CPU x{out['time_ratio']:.3f} (narrate() alone "
        f"{out['share']:.1%}), bytes x{out['bytes_ratio']:.3f} (target < +10% each)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.narration", description=__doc__)
    parser.add_argument("--runs", type=int, default=RUNS, help="runs of each kind (max 50)")
    run(parser.parse_args(argv).runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
