"""What a race and a sweep report: busbw as nccl-tests does, the finish order, crossovers."""

from __future__ import annotations

import pytest

from app.costs import bus_factor
from app.costs.ranking import fastest_segments, lines
from app.fabric import race, sweep


def test_busbw_is_algbw_times_the_nccl_tests_factor():
    result = race("allgather", ["ring", "bruck"], ranks=8, message_bytes=8e6, topology="nvswitch")
    for run in result.runs:
        assert run.algbw_gbs == pytest.approx(8e6 / run.time_s / 1e9)
        assert run.busbw_gbs == pytest.approx(run.algbw_gbs * 7 / 8)
        assert bus_factor("allgather", 8) == pytest.approx(7 / 8)


def test_finish_order_and_step_clock_add_up():
    result = race(
        "allreduce", ["ring", "recursive_doubling"], ranks=8, message_bytes=1e3, topology="nvswitch"
    )
    by_name = {r.algorithm: r for r in result.runs}
    assert result.order == sorted(by_name, key=lambda n: by_name[n].time_s)
    # 1 kB is latency-bound: 3 butterfly steps against 14 ring steps, both 0.6 µs each.
    assert result.order[0] == "recursive_doubling"
    assert "latency-bound" in result.verdict and "wins on latency" in result.verdict
    for run in result.runs:
        last = run.steps[-1]
        assert last["start_s"] + last["time_s"] == pytest.approx(run.time_s)
        assert run.place == result.order.index(run.algorithm) + 1


def test_the_flat_sweep_finds_the_models_crossovers():
    chosen = ["ring", "recursive_doubling", "rabenseifner"]
    got = sweep("allreduce", chosen, ranks=16, topology="flat", preset="ib_ndr")
    model = lines("allreduce", ranks=16, latency_us=2.7, bandwidth_gbs=50.0)
    model = {name: model[name] for name in chosen}
    want = fastest_segments(model, got["sizes_bytes"][0], got["sizes_bytes"][-1])
    for ours in (got["clock"]["crossovers"], got["model"]["crossovers"]):
        assert [c["bytes"] for c in ours] == pytest.approx([s.high_bytes for s in want[:-1]])
        assert [c["above"] for c in ours] == [s.algorithm for s in want[1:]]


def test_a_fat_tree_moves_the_crossover_by_hand():
    """2 nodes × 8 H100 (NVSwitch 450 GB/s, α 0.6 µs; NDR 50 GB/s, α 2.7 µs), 1:1, fill.
    Recursive doubling: partners at distance 1, 2, 4 inside the node, 8 on the same rail:
    3·0.6 + 2.7 = 4.5 µs and M·(3/450 + 1/50) / 1e9 s. Rabenseifner halves at distance 1
    first (M/2, M/4, M/8 inside the node, M/16 across) and doubles back:
    2·(3·0.6 + 2.7) = 9 µs and 2·M·(7/8/450 + 1/16/50) / 1e9 s.
    Crossover: 4.5 µs / ((3/450 + 1/50) − 2·(7/8/450 + 1/16/50)) ns/B = 221,918 bytes.
    The α-β model (every step α 2.7, 50 GB/s): 4 vs 8 steps, 4M vs 2·15/16·M:
    10.8 µs / ((4 − 30/16)/50) ns/B = 254,118 bytes."""
    got = sweep(
        "allreduce",
        ["recursive_doubling", "rabenseifner"],
        ranks=16,
        topology="fat_tree",
        nodes=2,
        gpus_per_node=8,
    )
    clock = 4.5e-6 / ((3 / 450 + 1 / 50) - 2 * (7 / 8 / 450 + 1 / 16 / 50)) * 1e9
    model = 10.8e-6 / ((4 - 30 / 16) / 50) * 1e9
    assert [c["bytes"] for c in got["clock"]["crossovers"]] == pytest.approx([clock])
    assert [c["bytes"] for c in got["model"]["crossovers"]] == pytest.approx([model])
    assert got["clock"]["crossovers"][0]["above"] == "rabenseifner"
