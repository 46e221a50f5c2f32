"""Each calculator against numbers worked out by hand, and its validation."""

from __future__ import annotations

import re

import pytest

from app.costs import CostError
from app.costs.calculators import (
    CALCULATORS,
    compare,
    compression,
    crossover,
    ddp_overlap,
    hierarchical,
    moe,
    parallelism_3d,
    zero,
)

NDR = dict(latency_us=2.7, bandwidth_gbs=50)  # the ib_ndr preset
MIB = 1 << 20


def test_every_calculator_explains_itself_with_its_defaults():
    for name, spec in CALCULATORS.items():
        result = spec()
        assert result.calculator == name
        assert result.formula and result.substituted and result.interpretation
        assert set(result.inputs) == {f.name for f in spec.fields}
        assert result.outputs


def test_compare_finds_the_recursive_doubling_to_rabenseifner_crossover():
    # 6α + 6Mβ = 12α + 2·(63/64)·Mβ  →  M* = 6α / ((6 − 126/64)·β) = 6·2.7e-6·50e9 / 4.03125.
    result = compare(
        collective="allreduce",
        ranks=64,
        message_bytes=1024,
        hardware="ib_ndr",
        intra_hardware="custom",
        intra_latency_us=2.7,
        intra_bandwidth_gbs=50,
    )
    crossovers = result.table["crossovers"]
    first = crossovers[0]
    assert (first["from"], first["to"]) == ("recursive_doubling", "rabenseifner")
    assert first["bytes"] == pytest.approx(6 * 2.7e-6 * 50e9 / 4.03125)
    assert result.output("fastest") == "recursive_doubling"
    # Same links inside and across nodes: hierarchical never beats Rabenseifner's 12 steps, but
    # CollNet does once the switch's adding pays for its 47 steps (g = 8, k = 32 segments):
    # 12α + (126/64)·Mβ = 47α + (47/32)·Mβ  →  M* = 35α / (0.5·β) = 70·2.7e-6·50e9.
    assert [c["to"] for c in crossovers] == ["rabenseifner", "collnet"]
    assert crossovers[1]["bytes"] == pytest.approx(70 * 2.7e-6 * 50e9)


def test_compare_ranks_fastest_first_and_leaves_direct_out_unless_asked():
    result = compare(collective="all_to_all", ranks=16, message_bytes=2**30, **NDR)
    times = [row[1] for row in result.table["rows"]]
    assert times == sorted(times)
    assert "direct" not in [row[0] for row in result.table["rows"]]
    with_direct = compare(
        collective="all_to_all", ranks=16, message_bytes=64, include_direct=True, **NDR
    )
    assert with_direct.output("fastest") == "direct"  # one α: the model's all-port blind spot


def test_crossover_is_where_latency_equals_bandwidth():
    # Ring allreduce on 64 ranks: 126α = 2·(63/64)·M·β  →  M* = 126·2.7e-6·50e9 / 1.96875.
    result = crossover(collective="allreduce", algorithm="ring", ranks=64, message_bytes=MIB, **NDR)
    assert result.output("m_star_bytes") == pytest.approx(8.64e6)
    assert result.output("regime") == "latency-bound"
    assert result.output("peak_busbw_gbs") == pytest.approx(50)


def test_crossover_rejects_an_algorithm_of_another_collective():
    with pytest.raises(CostError, match="algorithm for allgather must be one of"):
        crossover(collective="allgather", algorithm="rabenseifner")


def test_ddp_schedules_buckets_behind_backward():
    # 2^20 FP32 gradients = 4 MiB in 4 tensors of 1 MiB, 1 ms of backward per layer.
    # Bucket 0 = tensor 0 (first cap 1 MiB), ready at 1 ms; bucket 1 = tensors 1-3, ready at 4 ms.
    # Two ranks at 1 GB/s, α = 0: a ring allreduce of M takes 2·(1/2)·M / 1e9 s.
    result = ddp_overlap(
        params=2**20,
        grad_bytes=4,
        layers=4,
        tensors_per_layer=1,
        backward_ms_per_layer=1,
        ranks=2,
        hardware="custom",
        latency_us=0,
        bandwidth_gbs=1,
    )
    assert result.output("buckets") == 2
    assert [row[1] for row in result.table["rows"]] == [MIB, 3 * MIB]
    assert result.output("backward_s") == pytest.approx(4e-3)
    # Bucket 1 starts at 4 ms (bucket 0 finished at 2.048576 ms) and takes 3.145728 ms.
    assert result.output("exposed_overlap_s") == pytest.approx(3 * MIB / 1e9)
    assert result.output("exposed_serial_s") == pytest.approx(4 * MIB / 1e9)


def test_compression_break_even_points():
    result = compression(
        params=2**30,
        rows=4096,
        cols=4096,
        powersgd_rank=4,
        topk_density=0.001,
        value_bytes=4,
        index_bytes=4,
        ranks=64,
        **NDR,
    )
    assert result.output("topk_break_even_density") == pytest.approx(8 / (64 * 8))
    assert result.output("powersgd_break_even_rank") == pytest.approx(4096 * 4096 / 8192)
    rows = {row[0]: row for row in result.table["rows"]}
    dense = 2 * 63 / 64 * 4 * 2**30
    assert rows["FP32 dense"][2] == pytest.approx(dense)
    assert rows["FP16 / BF16"][3] == pytest.approx(2)
    assert rows["1-bit"][3] == pytest.approx(32)
    assert rows["top-k"][2] == pytest.approx(63 * 0.001 * 2**30 * 8)  # (p−1)·k·(v+i)
    assert rows["PowerSGD r=4"][3] == pytest.approx(4096 * 4096 / (4 * 8192))


def test_zero_volumes_follow_the_papers():
    base = dict(params=1e9, param_bytes=2, ranks=64, gpus_per_node=8)
    m = 2e9  # bytes of FP16 parameters
    ring = 63 / 64
    assert zero(stage=0, **base).output("cross_node_bytes") == pytest.approx(2 * ring * m)
    assert zero(stage=2, **base).output("cross_node_bytes") == pytest.approx(2 * ring * m)
    three = zero(stage=3, **base)
    assert three.output("cross_node_bytes") == pytest.approx(3 * ring * m)
    assert three.output("vs_dp") == pytest.approx(1.5)
    plus = zero(stage=3, qwz=True, hpz=True, qgz=True, **base)
    assert plus.output("paper_volume_m") == pytest.approx(0.75)
    assert plus.output("cross_node_bytes") == pytest.approx(0.75 * ring * m)
    assert plus.output("intra_node_bytes") == pytest.approx(7 / 8 * m)


def test_zero_nodes_must_be_full_and_the_error_names_gpus_per_node():
    with pytest.raises(CostError, match=r"^gpus_per_node must divide ranks \(12\); got 8$"):
        zero(stage=3, ranks=12, gpus_per_node=8)


def test_zero_plus_plus_needs_stage_three():
    with pytest.raises(CostError, match="qwz .*stage 3"):
        zero(stage=2, qwz=True)


def test_moe_all_to_all_bytes():
    result = moe(
        tokens=8192,
        hidden=4096,
        top_k=2,
        capacity_factor=1.25,
        imbalance=2.0,
        ep=16,
        dtype_bytes=2,
        moe_layers=16,
        micro_batches=1,
        **NDR,
    )
    buffer = 1.25 * 8192 * 2 * 4096 * 2
    assert result.output("buffer_bytes") == pytest.approx(buffer)
    assert result.output("sent_bytes") == pytest.approx(15 / 16 * buffer)
    one = 15 * 2.7e-6 + 15 / 16 * buffer / 50e9  # pairwise: (p−1)α + (p−1)/p·M·β
    assert result.output("all_to_all_s") == pytest.approx(one)
    assert result.output("per_step_s") == pytest.approx(4 * 16 * one)
    assert result.output("dropped_pct") == pytest.approx(100 * (1 - 1.25 / 2))


def test_parallelism_3d_bytes_and_links():
    result = parallelism_3d(
        layers=32,
        hidden=4096,
        seq=4096,
        micro_batch=1,
        micro_batches=8,
        dtype_bytes=2,
        params=7e9,
        tp=8,
        pp=4,
        dp=4,
        gpus_per_node=8,
    )
    activation = 4096 * 4096 * 2
    assert result.output("tensor_bytes") == pytest.approx(4 * 8 * 8 * (2 * 7 / 8) * activation)
    assert result.output("pipeline_bytes") == pytest.approx(2 * 8 * activation)
    assert result.output("data_bytes") == pytest.approx(2 * 3 / 4 * 7e9 / 32 * 2)
    links = {row[0]: row[1] for row in result.table["rows"]}
    assert links == {"tensor": "intra-node", "pipeline": "inter-node", "data": "inter-node"}
    assert result.output("dominant") == "tensor"


@pytest.mark.parametrize(("pp", "sends"), [(1, 0), (2, 8), (4, 16)])
def test_parallelism_3d_counts_the_busiest_stages_pipeline_sends(pp, sends):
    # Two stages: the first sends activations only, the second gradients only (m each); an
    # interior stage sends both (2m).
    inputs = dict(layers=32, hidden=4096, seq=4096, micro_batch=1, micro_batches=8)
    result = parallelism_3d(**inputs, dtype_bytes=2, params=7e9, tp=8, pp=pp, dp=4)
    assert result.output("pipeline_bytes") == pytest.approx(sends * 4096 * 4096 * 2)


def test_parallelism_3d_needs_whole_stages():
    with pytest.raises(CostError, match="pp must divide layers"):
        parallelism_3d(layers=30, pp=4)


def test_hierarchical_beats_a_flat_ring_across_nodes():
    result = hierarchical(
        gpus_per_node=8,
        nodes=8,
        message_bytes=2**30,
        latency_us=2.7,
        bandwidth_gbs=50,
        intra_latency_us=0.6,
        intra_bandwidth_gbs=450,
    )
    m = 2**30
    flat = 126 * 2.7e-6 + 2 * 63 / 64 * m / 50e9
    rs_ar_ag = 14 * 0.6e-6 + 2 * 7 / 8 * m / 450e9 + 14 * 2.7e-6 + 2 * 7 / 8 * (m / 8) / 50e9
    assert result.output("flat_s") == pytest.approx(flat)
    assert result.output("hierarchical_s") == pytest.approx(rs_ar_ag)
    assert result.output("fastest").startswith("(b)")


def test_calculators_reject_unknown_inputs():
    with pytest.raises(CostError, match="unknown input 'preset'"):
        compare(preset="ib_ndr")


# -- one unit family per panel -------------------------------------------------------------------

SIZE_TEXT = re.compile(r"\d\s?(KiB|MiB|GiB|TiB|kB|MB|GB|TB)\b(?!/)")  # GB/s is a rate, not a size
FAMILIES = {"binary": {"KiB", "MiB", "GiB", "TiB"}, "decimal": {"kB", "MB", "GB", "TB"}}


def size_units(result) -> set[str]:
    """Return the size units written anywhere in a result's text: sentence, formula, labels."""
    data = result.as_dict()
    texts = [data["interpretation"], data["formula"], data["substituted"], *data["notes"]]
    texts += [o["label"] for o in data["outputs"]]
    for chart in data["charts"]:
        texts.append(chart["title"])
        texts += [m["label"] for m in chart.get("markers", [])]
    return {m.group(1) for text in texts for m in SIZE_TEXT.finditer(text)}


@pytest.mark.parametrize("name", list(CALCULATORS))
def test_a_calculator_writes_every_size_in_the_family_it_reports(name):
    result = CALCULATORS[name]()
    family = result.as_dict()["sizes"]
    assert family in FAMILIES
    assert size_units(result) <= FAMILIES[family], f"{name} mixes units: {size_units(result)}"


def test_a_message_size_given_in_decimal_units_keeps_the_panel_decimal():
    decimal = crossover(ranks=64, message_bytes=1e9, **NDR)
    assert decimal.as_dict()["sizes"] == "decimal"
    assert "At 1 GB the latency term" in decimal.interpretation
    assert size_units(decimal) <= FAMILIES["decimal"]
    binary = crossover(ranks=64, message_bytes=25 * MIB, **NDR)
    assert binary.as_dict()["sizes"] == "binary"
    assert "At 25 MiB the latency term" in binary.interpretation
    # M* = 126·2.7 µs · 50 GB/s / (2·63/64) = 8.64e6 B, written in MiB like the message size
    assert "latency-bound below 8.24 MiB" in binary.interpretation
    sweep = compare(ranks=64, message_bytes=1e9, **NDR)
    assert "From 1 B to 17.18 GB" in sweep.interpretation  # the 2^34 B sweep, in decimal
    assert size_units(sweep) <= FAMILIES["decimal"]


# -- compare: only the algorithms asked for ------------------------------------------------------


def test_compare_takes_only_the_algorithms_it_is_given():
    # NCCL's two AllReduce algorithms: Rabenseifner, the paper winner, is left out.
    result = compare(
        collective="allreduce",
        ranks=128,
        ranks_per_node=8,
        hardware="ib_ndr",
        algorithms=" ring , double_binary_tree,",
    )
    assert sorted(row[0] for row in result.table["rows"]) == ["double_binary_tree", "ring"]
    assert result.inputs["algorithms"] == "ring,double_binary_tree"
    everything = compare(collective="allreduce", ranks=128, ranks_per_node=8, hardware="ib_ndr")
    assert "rabenseifner" in [row[0] for row in everything.table["rows"]]


def test_compare_names_the_field_for_an_algorithm_outside_the_catalog():
    with pytest.raises(CostError, match=r"^algorithms: 'bruck' is not an algorithm of allreduce"):
        compare(collective="allreduce", algorithms="ring,bruck")
    with pytest.raises(CostError, match=r"^algorithms must be a comma-separated list"):
        compare(algorithms=7)
    with pytest.raises(CostError, match=r"^algorithms must be a comma-separated list"):
        compare(algorithms="ring," * 60)


def test_compare_says_why_when_none_of_the_algorithms_asked_for_can_run():
    with pytest.raises(CostError, match=r"^algorithms: none of them can run.*hierarchical: "):
        compare(collective="allreduce", ranks=12, ranks_per_node=8, algorithms="hierarchical")


def test_compare_compares_direct_when_it_is_named():
    result = compare(collective="all_to_all", ranks=16, algorithms="direct,pairwise", **NDR)
    assert sorted(row[0] for row in result.table["rows"]) == ["direct", "pairwise"]
