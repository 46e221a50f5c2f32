"""Engine speed: ring allreduce on 1M float32 per rank, against numpy's own copy of the same bytes.

The floor is the time numpy needs just to copy the bytes the algorithm moves (every rank's
bytes_sent summed), between two buffers already touched, so page faults are not counted
against the floor. Two engine times are reported: the steps alone (what the algorithm costs)
and the whole `simulate` call (inputs, steps, and the check against numpy).

A third reference separates the engine's own overhead from the shape of the work: numpy alone
replaying the same chunk moves (one slice add or copy per transfer of the trace, no checks, no
records). The ring makes p² transfers of M/p for p× the bytes, so per-call costs and the cache
(at p=8 a chunk is 0.5 MB and the buffers fit in the last-level cache; at p=256 there are
130,560 calls on 1 GiB) make even that loop grow faster than the bytes.
"""

from __future__ import annotations

import time

import numpy as np

from app.collectives import simulate
from app.collectives.layouts import layout_for
from app.collectives.machine import Machine
from app.collectives.registry import REGISTRY

ELEMENTS = 1_000_000
RANKS = (8, 64, 256)


def _best(fn, repeat: int) -> float:
    """Return the fastest of `repeat` timed calls of `fn`, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def steps_only(ranks: int, inputs: np.ndarray) -> float:
    """Time the ring's steps on a prepared machine, without setup or verification."""
    algo = REGISTRY[("allreduce", "ring")]
    layout = layout_for("allreduce", inputs, root=0, parts=algo.parts(ranks, ELEMENTS))
    machine = Machine(
        buffers=layout.buffers, chunks=layout.chunks, holdings=layout.holdings, op="sum"
    )
    start = time.perf_counter()
    algo.run(machine)
    return time.perf_counter() - start


def chunk_loop(trace, inputs: np.ndarray) -> float:
    """Time numpy alone doing the trace's chunk moves, one slice operation per transfer.

    The ring never reads a cell the same step writes, so replaying in order is exact here.
    """
    rows = list(inputs.copy())
    chunks, add = trace.chunks, np.add
    moves = [
        (t.src, t.dst, slice(*chunks[t.chunk]), t.op) for s in trace.steps for t in s.transfers
    ]
    start = time.perf_counter()
    for src, dst, span, op in moves:
        if op == "copy":
            rows[dst][span] = rows[src][span]
        else:
            target = rows[dst][span]
            add(target, rows[src][span], out=target)
    return time.perf_counter() - start


def copy_floor(nbytes: int) -> float:
    """Time numpy copying `nbytes` between two warm buffers."""
    src = np.ones(nbytes // 4, dtype=np.float32)
    dst = np.zeros_like(src)
    np.copyto(dst, src)  # touch every page first
    return _best(lambda: np.copyto(dst, src), 3)


def run() -> list[dict]:
    """Measure every rank count and print one line each."""
    rows = []
    print(f"engine: ring allreduce, {ELEMENTS:,} float32 per rank")
    print(
        f"{'ranks':>6} {'moved MB':>9} {'floor s':>8} {'loop s':>7} {'steps s':>8} "
        f"{'simulate s':>10} {'loop/floor':>10} {'steps/floor':>11} {'steps/loop':>10} "
        f"{'simulate/floor':>14}"
    )
    for ranks in RANKS:
        inputs = np.random.default_rng(0).integers(1, 10, (ranks, ELEMENTS)).astype(np.float32)
        trace = simulate("allreduce", "ring", ranks=ranks, elements=ELEMENTS, inputs=inputs)
        moved = int(trace.bytes_sent.sum())
        floor = copy_floor(moved)
        loop = min(chunk_loop(trace, inputs) for _ in range(2))
        del trace
        steps = min(steps_only(ranks, inputs) for _ in range(2))
        whole = _best(
            lambda r=ranks, x=inputs: simulate(
                "allreduce", "ring", ranks=r, elements=ELEMENTS, inputs=x
            ),
            1,
        )
        row = {
            "ranks": ranks,
            "moved": moved,
            "floor": floor,
            "loop": loop,
            "steps": steps,
            "whole": whole,
        }
        rows.append(row)
        print(
            f"{ranks:>6} {moved / 1e6:>9.0f} {floor:>8.3f} {loop:>7.3f} {steps:>8.3f} "
            f"{whole:>10.3f} {loop / floor:>10.2f} {steps / floor:>11.2f} {steps / loop:>10.2f} "
            f"{whole / floor:>14.2f}"
        )
    base = rows[0]
    for row in rows[1:]:
        growth = (row["steps"] / base["steps"]) / (row["moved"] / base["moved"])
        print(
            f"  p={row['ranks']}: step time grew {row['steps'] / base['steps']:.1f}x for "
            f"{row['moved'] / base['moved']:.1f}x the bytes (ratio {growth:.2f}; <= 1 means no "
            f"faster than the bytes moved); numpy's chunk loop alone grew "
            f"{row['loop'] / base['loop']:.1f}x; the engine's overhead over that loop went from "
            f"{base['steps'] / base['loop']:.2f}x to {row['steps'] / row['loop']:.2f}x"
        )
    return rows


if __name__ == "__main__":
    run()
