"""`compare`: run every MPICH algorithm of one collective and say which wins at which size.

Beside each MPICH algorithm: the engine's step count for the matching catalog algorithm
(app.collectives.simulate) and the cost model's prediction (app.costs.cost) with the alpha and
beta fitted on MPICH's own choice ("auto"), so a learner sees where the model and the machine
agree and where they part.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from app.collectives import CollectiveError, simulate
from app.costs import CostError, cost

from .algorithms import CATALOG_MATCH, MPICH_ALGORITHMS
from .config import MeasureConfig
from .fit import Fit, FitError, fit_result
from .sweep import sweep

AUTO = "auto"


def engine_steps(collective: str, catalog_name: str | None, ranks: int) -> int | None:
    """Return the engine's step count for the catalog algorithm (None: no match or not here)."""
    if catalog_name is None:
        return None
    try:
        return simulate(collective, catalog_name, ranks=ranks, elements=ranks * 4).total_steps
    except CollectiveError:
        return None  # e.g. a power-of-two algorithm on 3 ranks


def predicted_us(collective: str, catalog_name: str | None, ranks: int, size: int, fit: Fit | None):
    """Return the cost model's time in µs with the fitted link (None when it cannot say)."""
    if catalog_name is None or fit is None:
        return None
    try:
        return (
            cost(
                collective,
                catalog_name,
                ranks=ranks,
                message_bytes=size,
                latency_us=max(fit.alpha_us, 1e-6),
                bandwidth_gbs=fit.bandwidth_gbs,
            ).time_s
            * 1e6
        )
    except CostError:
        return None


def compare(config: MeasureConfig, on_result: Callable[[str, dict], None] = lambda a, r: None):
    """Run MPICH's own choice, then each algorithm, within config's one time limit.

    Returns {config, fit, fit_error, algorithms: [{name, catalog, steps, status, error,
    times_us: {size: µs or None}, fallback_sizes, predicted_us: {size: µs}}], sizes,
    winners: {size: name}, model_winners: {size: name}}.
    """
    deadline = time.monotonic() + config.time_limit_s
    runs = {}
    for name in (AUTO, *MPICH_ALGORITHMS[config.collective]):
        left = deadline - time.monotonic()
        if left < 1:
            break
        one = replace(config, algorithm=None if name == AUTO else name, time_limit_s=left)
        runs[name] = sweep(one)
        on_result(name, runs[name])
    fit, fit_error = None, ""
    try:
        fit = fit_result(runs[AUTO])
    except (FitError, KeyError) as error:
        fit_error = str(error)
    return _summary(config, runs, fit, fit_error)


def _summary(config: MeasureConfig, runs: dict, fit: Fit | None, fit_error: str) -> dict:
    sizes = sorted({row["size"] for run in runs.values() for row in run["rows"]})
    entries = []
    for name, run in runs.items():
        catalog_name = CATALOG_MATCH.get((config.collective, name))
        # A size where MPICH ran its own choice instead is not this algorithm's time.
        times = {
            r["size"]: None if r["out_of_place"].get("fallback") else r["out_of_place"]["time_us"]
            for r in run["rows"]
        }
        fell_back = [r["size"] for r in run["rows"] if r["out_of_place"].get("fallback")]
        entries.append(
            {
                "name": name,
                "catalog": catalog_name,
                "steps": engine_steps(config.collective, catalog_name, config.ranks),
                "status": run["status"],
                "error": run["error"],
                "times_us": times,
                "fallback_sizes": fell_back,
                "predicted_us": {
                    s: predicted_us(config.collective, catalog_name, config.ranks, s, fit)
                    for s in sizes
                },
            }
        )
    return {
        "config": config.as_dict(),
        "fit": fit.as_dict() if fit else None,
        "fit_error": fit_error,
        "algorithms": entries,
        "sizes": sizes,
        "winners": {s: _winner(entries, s, "times_us") for s in sizes},
        "model_winners": {s: _winner(entries, s, "predicted_us") for s in sizes},
    }


def _winner(entries: list[dict], size: int, column: str) -> str | None:
    timed = [
        (e[column][size], e["name"])
        for e in entries
        if e["name"] != AUTO and e[column].get(size) is not None
    ]
    return min(timed)[1] if timed else None


def win_ranges(winners: dict[int, str | None]) -> list[tuple[str | None, int, int]]:
    """Return (winner, first size, last size) for each run of sizes with the same winner."""
    ranges: list[tuple[str | None, int, int]] = []
    for size in sorted(winners):
        name = winners[size]
        if ranges and ranges[-1][0] == name:
            ranges[-1] = (name, ranges[-1][1], size)
        else:
            ranges.append((name, size, size))
    return ranges
