"""The terminal view, run as a user would: `python -m app.collectives ...` in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from app.collectives import catalog

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "app.collectives", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )


def table_rows(stdout: str) -> list[list[str]]:
    """Return the table's message rows split into cells (rows have a src→dst cell)."""
    return [line.split() for line in stdout.splitlines() if "→" in line and "src" not in line]


def test_ring_allreduce_prints_the_steps_and_verifies():
    result = cli("allreduce", "ring", "--ranks", "4", "--elements", "8")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    header = next(line for line in out.splitlines() if line.startswith("step"))
    assert header.split() == ["step", "phase", "src→dst", "chunk", "elements", "op"]
    rows = table_rows(out)
    assert len(rows) == 2 * (4 - 1) * 4  # 2(p-1) steps, one message per rank each
    assert rows[0] == ["0", "reduce-scatter", "0→1", "A", "2", "reduce"]
    assert rows[-1][-1] == "copy"
    assert "steps: 6" in out
    # 2(p-1)/p · M with M = 8 float32 = 32 bytes: 48 per rank.
    assert "bytes sent per rank: 48 48 48 48" in out
    assert "verified against numpy: yes (max abs error 0)" in out


def test_chunks_past_z_are_named_as_the_lab_names_them():
    result = cli("all_to_all", "pairwise", "--ranks", "6", "--elements", "6")
    assert result.returncode == 0, result.stderr
    rows = table_rows(result.stdout)
    # Step 0: rank r sends chunk r·6 + (r+1) to rank r+1; 36 chunks run past Z to C26...C35.
    assert rows[0][:5] == ["0", "shift", "1", "0→1", "B"]
    assert rows[1] == ["1→2", "I", "1", "copy"]
    assert rows[4] == ["4→5", "C29", "1", "copy"]


def test_multi_chunk_messages_are_one_row():
    result = cli("all_to_all", "bruck", "--ranks", "4", "--elements", "4")
    assert result.returncode == 0, result.stderr
    rows = table_rows(result.stdout)
    # Step 0 on 4 ranks: offsets 1 and 3 have bit 0 set, so two blocks per message.
    assert rows[0] == ["0", "distance", "1", "0→1", "B", "D", "2", "copy"]  # chunks 1 and 3


def test_root_and_op_options_reach_the_engine():
    result = cli("allreduce", "ring", "--ranks", "3", "--elements", "6", "--op", "max")
    assert result.returncode == 0, result.stderr
    assert "op max" in result.stdout
    result = cli("gather", "binomial_tree", "--ranks", "5", "--elements", "2", "--root", "3")
    assert result.returncode == 0, result.stderr
    links = [next(cell for cell in row if "→" in cell) for row in table_rows(result.stdout)]
    assert links[-1].endswith("→3")  # the last message reaches the root
    assert not any(link.startswith("3→") for link in links)  # the root only receives
    assert "verified against numpy: yes" in result.stdout


def test_bad_rank_count_exits_2_with_a_clear_message():
    for ranks in ("0", "300"):
        result = cli("allreduce", "ring", "--ranks", ranks, "--elements", "8")
        assert result.returncode == 2
        assert "ranks must be an integer in 1..256" in result.stderr
        assert "Traceback" not in result.stderr
        assert result.stdout == ""


def test_unknown_algorithm_lists_the_allowed_ones():
    result = cli("allreduce", "spiral", "--ranks", "4", "--elements", "8")
    assert result.returncode == 2
    assert "algorithm" in result.stderr and "ring" in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_sizes_is_a_usage_error():
    result = cli("allreduce", "ring")
    assert result.returncode == 2
    assert "--ranks" in result.stderr and "--elements" in result.stderr


def test_list_prints_the_catalog():
    result = cli("--list")
    assert result.returncode == 0, result.stderr
    lines = [line.split()[:2] for line in result.stdout.splitlines()[2:]]
    assert lines == [[e["collective"], e["algorithm"]] for e in catalog()]  # in catalog order
