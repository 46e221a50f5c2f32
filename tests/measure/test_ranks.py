"""Real MPICH ranks: every collective's answer is right, a spoiled one is counted, the
forced algorithm reaches MPICH, and a run stops at its limit or when cancelled."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from app.measure.config import COLLECTIVES, MeasureConfig
from app.measure.launcher import run
from app.measure.sweep import sweep
from app.measure.table import parse
from app.measure.worker import CORRUPT_ENV

pytestmark = pytest.mark.usefixtures("mpi")

SMALL = {"min_bytes": 8, "max_bytes": "4K", "factor": 8, "iters": 2, "oversubscribe": True}


# allreduce is checked by the CLI test below, allgather by the forcing test: one launch each.
OTHERS = [c for c in COLLECTIVES if c not in ("allreduce", "allgather")]


@pytest.mark.parametrize("collective", OTHERS)
def test_every_collective_is_right_on_three_ranks(collective):
    # Three ranks: not a power of two, and rank 0 is not the only non-root.
    result = sweep(MeasureConfig(collective, ranks=3, **SMALL))
    assert result["status"] == "done", result["error"]
    assert [row["size"] for row in result["rows"]] == _sizes(collective, 3)
    for row in result["rows"]:
        for placement in ("out_of_place", "in_place"):
            assert row[placement]["wrong"] == 0
            assert row[placement]["time_us"] > 0
            assert row[placement]["fallback"] is False  # MPICH's own choice never falls back
    assert result["machine"]["library"].startswith("MPICH")


def _sizes(collective: str, ranks: int) -> list[int]:
    unit = 4 * (ranks if collective in ("allgather", "reduce_scatter", "all_to_all") else 1)
    return [max(1, s // unit) * unit for s in (8, 64, 512, 4096)]


def test_a_spoiled_result_is_counted_in_wrong():
    result = sweep(MeasureConfig("allreduce", ranks=2, **SMALL), extra_env={CORRUPT_ENV: "3"})
    counts = [
        (row["count"], row["out_of_place"]["wrong"], row["in_place"]["wrong"])
        for row in result["rows"]
    ]
    assert counts == [(2, 2, 2), (16, 3, 3), (128, 3, 3), (1024, 3, 3)]


@pytest.mark.parametrize(
    ("algorithm", "ranks", "falls_back"),
    [
        ("recursive_doubling", 3, True),  # MPICH's needs a power of two: it says so and steps aside
        ("ring", 3, False),
    ],
)
def test_the_forced_algorithm_reaches_mpich(algorithm, ranks, falls_back):
    # Only an algorithm MPICH really tried can be refused for the rank count: without the CVAR
    # reaching the ranks, recursive doubling on 3 ranks would not fall back.
    config = MeasureConfig("allgather", ranks=ranks, algorithm=algorithm, **SMALL)
    result = sweep(config)
    assert result["status"] == "done", result["error"]
    for row in result["rows"]:
        assert row["out_of_place"]["fallback"] is falls_back
        assert row["in_place"]["fallback"] is falls_back
        assert row["out_of_place"]["wrong"] == row["in_place"]["wrong"] == 0


def test_the_time_limit_kills_every_rank_and_keeps_what_arrived():
    config = MeasureConfig(
        "allreduce", ranks=2, max_bytes="64M", factor=8, iters=10_000, time_limit_s=1
    )
    rows = []
    outcome = run(config, rows.append)
    assert outcome["status"] == "timeout"
    with pytest.raises(ProcessLookupError):
        os.killpg(outcome["process_group"], 0)  # no rank and no mpiexec helper left


def test_cancel_stops_after_the_rows_so_far():
    seen = []
    config = MeasureConfig("allreduce", ranks=2, max_bytes="64M", factor=8, iters=200)
    result = sweep(config, on_row=seen.append, cancelled=lambda: len(seen) >= 1)
    assert result["status"] == "cancelled"
    assert 1 <= len(result["rows"]) < 8
    assert result["rows"] == seen


def test_the_cli_prints_nccl_tests_table_and_json(tmp_path):
    out = tmp_path / "run.json"
    args = ["--ranks", "2", "allreduce", "-b", "8", "-e", "1K", "-f", "4", "-n", "2", "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "app.measure", *args, str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = parse(done.stdout)
    assert [(r["size"], r["count"], r["redop"], r["root"]) for r in rows] == [
        (8, 2, "sum", -1),
        (32, 8, "sum", -1),
        (128, 32, "sum", -1),
        (512, 128, "sum", -1),
    ]
    assert all(r[p]["wrong"] == 0 for r in rows for p in ("out_of_place", "in_place"))
    lines = done.stdout.splitlines()
    assert lines[0].startswith("# Collective test: allreduce")
    assert any(line.startswith("# Avg bus bandwidth    : ") for line in lines)
    saved = json.loads(out.read_text())
    assert [r["size"] for r in saved["rows"]] == [r["size"] for r in rows]
    assert saved["machine"]["cores"] >= 1 and saved["machine"]["backend"] == "mpi"
