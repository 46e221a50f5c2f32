"""Race speed: four allreduce algorithms at 64 ranks on an 8 × 8 fat-tree (issue 19).

Cold: every cache emptied (engine traces, routes, routed steps, built topologies), as the
first race of a shape after a restart. Warm: the same race again, only the step times for a
new size and the result's JSON. `python -m bench.race`
"""

from __future__ import annotations

import json
import time

from app.fabric import clock, race, registry, routing, traces

from .common import loadavg

ALGORITHMS = ["ring", "recursive_doubling", "rabenseifner", "double_binary_tree"]
SHAPE = {"topology": "fat_tree", "nodes": 8, "gpus_per_node": 8, "oversubscription": 2}


def _clear() -> None:
    for cached in (traces.shape, clock.profile, routing.router, registry._built):
        cached.cache_clear()


def _timed(message_bytes: float) -> tuple[float, float, int]:
    start = time.perf_counter()
    result = race("allreduce", ALGORITHMS, ranks=64, message_bytes=message_bytes, **SHAPE)
    raced = time.perf_counter()
    text = json.dumps(result.as_dict())
    return raced - start, time.perf_counter() - raced, len(text)


def main() -> dict:
    _clear()
    cold = _timed(16e6)
    warm = min((_timed(16e6 + i) for i in range(3)), key=lambda t: t[0] + t[1])
    figures = {
        "cold_s": cold[0],
        "warm_s": warm[0],
        "json_s": warm[1],
        "json_bytes": warm[2],
        "load": loadavg(),
    }
    print(
        f"race, 4 algorithms, 64 ranks, 8 x 8 fat-tree: cold {cold[0]:.3f} s, warm "
        f"{warm[0]:.3f} s + JSON {warm[1]:.3f} s ({warm[2] / 1e3:.0f} kB); load {figures['load']}"
    )
    return figures


if __name__ == "__main__":
    main()
