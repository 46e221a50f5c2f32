"""The worked examples of the Scaling-up lessons agree with their calculators (issue 16): each
number a lesson writes is its calculator's, run on the lesson's own @calc inputs, or on those
inputs with the few changes the lesson asks the reader to make ("set GPUs per node to 4")."""

from __future__ import annotations

import shlex

import pytest

from app.costs.calculators.query import run_calculator
from app.course import current_course
from tests.lessons.worked import assert_ties, calc_lines, parse_written


def run_with(slug: str, name: str, changes: dict[str, str]):
    """Run the lesson's first @calc `name` with `changes` applied to its inputs."""
    words = shlex.split(calc_lines(slug, name)[0])[2:]
    params = dict(w.split("=", 1) for w in words)
    params.pop("caption", None)
    return run_calculator(name, {**params, **changes})


def row(result, first: str) -> dict[str, float]:
    """The calculator table's row whose first cell starts with `first`, by column name."""
    cells = next(r for r in result.table["rows"] if str(r[0]).startswith(first))
    return dict(zip(result.table["columns"], cells, strict=True))


def out(key: str):
    """Measure an output of the calculator."""
    return lambda result: float(next(o.value for o in result.outputs if o.key == key))


def took(dimension: str):
    """Measure a parallelism_3d row's time: its latency plus its bandwidth."""
    return lambda result: row(result, dimension)["latency"] + row(result, dimension)["bandwidth"]


def part(variant: str, *columns: str):
    """Measure the sum of some time columns of a variant's (an algorithm's) row."""
    return lambda result: sum(row(result, variant)[c] for c in columns)


def eight_nic_flat_ring(result) -> float:
    """The flat ring with NCCL's channels spreading it over all 8 NICs: bandwidth time ÷ 8."""
    flat = row(result, "flat")
    return flat["inter latency"] + flat["inter bandwidth"] / 8


# (slug, calculator, output, as written): the lesson's own @calc, unchanged.
DIRECT = [
    ("3d-parallelism", "parallelism_3d", "tensor_bytes", "481 GB"),
    ("3d-parallelism", "parallelism_3d", "data_bytes", "3.28 GB"),
    ("3d-parallelism", "parallelism_3d", "comm_s", "1.20 s"),
    ("hierarchical-allreduce", "hierarchical", "flat_s", "1.73 ms"),
    ("hierarchical-allreduce", "hierarchical", "leader_s", "1.42 ms"),
    ("hierarchical-allreduce", "hierarchical", "hierarchical_s", "0.31 ms"),
    ("moe-all-to-all", "moe", "buffer_bytes", "67.1 MB"),
    ("moe-all-to-all", "moe", "sent_bytes", "58.7 MB"),
    ("moe-all-to-all", "moe", "all_to_all_s", "0.13 ms"),
    ("moe-all-to-all", "moe", "per_step_s", "17 ms"),
]


@pytest.mark.parametrize(("slug", "name", "key", "written"), DIRECT)
def test_worked_example_ties_to_its_calculator(slug, name, key, written):
    assert_ties(slug, name, key, written)


TP4_DP32 = {"tp": "4", "dp": "32", "micro_batches": "32"}
TP8_PP2_DP8 = {"pp": "2", "dp": "8", "micro_batches": "128"}
WHOLE_GRADIENT = {"message_bytes": "14000000000"}
ZERO_PLUS_PLUS = {"qwz": "true", "hpz": "true", "qgz": "true"}
D3, H = ("3d-parallelism", "parallelism_3d"), ("hierarchical-allreduce", "hierarchical")
Z = ("hierarchical-allreduce", "zero")
MOE, NDR = ("moe-all-to-all", "moe"), {"hardware": "ib_ndr"}
SCHED = ("communication-scheduling", "compare")

# (lesson and calculator, input changes, what to measure, as written)
DERIVED = [
    (D3, {}, took("tensor"), "1.14 s"),
    (D3, {}, took("data"), "66 ms"),
    (D3, {"gpus_per_node": "4"}, took("tensor"), "9.93 s"),
    (D3, TP4_DP32, out("tensor_bytes"), "206 GB"),
    (D3, TP4_DP32, took("tensor"), "0.47 s"),
    (D3, TP4_DP32, out("data_bytes"), "6.78 GB"),
    (D3, TP4_DP32, took("data"), "0.14 s"),
    (D3, TP8_PP2_DP8, out("pipeline_bytes"), "4.29 GB"),
    (D3, TP8_PP2_DP8, took("pipeline"), "86 ms"),
    (D3, TP8_PP2_DP8, out("data_bytes"), "1.53 GB"),
    (D3, TP8_PP2_DP8, out("tensor_bytes"), "481 GB"),
    (H, {}, part("flat", "inter latency"), "0.69 ms"),
    (H, {}, part("flat", "inter bandwidth"), "1.04 ms"),
    (H, {}, part("(b)", "inter latency"), "0.08 ms"),
    (H, {}, part("(b)", "inter latency"), "81 µs"),
    (H, {}, part("(b)", "inter bandwidth"), "0.12 ms"),
    (H, {}, part("(b)", "intra bandwidth"), "0.10 ms"),
    (H, {}, part("(b)", "intra latency"), "8.4 µs"),
    (H, {}, part("(b)", "intra latency", "intra bandwidth"), "0.11 ms"),
    (H, {}, lambda r: row(r, "flat")["inter bandwidth"] / 8, "0.13 ms"),
    (H, {}, eight_nic_flat_ring, "0.82 ms"),
    (H, WHOLE_GRADIENT, out("hierarchical_s"), "0.12 s"),
    (H, WHOLE_GRADIENT, out("flat_s"), "0.56 s"),
    (H, WHOLE_GRADIENT, eight_nic_flat_ring, "70 ms"),
    (H, WHOLE_GRADIENT, part("(b)", "intra bandwidth"), "54 ms"),
    (Z, {}, out("cross_node_bytes"), "41.7 GB"),
    (Z, {}, out("time_s"), "0.83 s"),
    (Z, ZERO_PLUS_PLUS, out("cross_node_bytes"), "10.4 GB"),
    (Z, ZERO_PLUS_PLUS, out("intra_node_bytes"), "12.25 GB"),
    (Z, ZERO_PLUS_PLUS, out("time_s"), "0.24 s"),
    (MOE, NDR, out("all_to_all_s"), "1.19 ms"),
    (MOE, NDR, out("per_step_s"), "153 ms"),
    (SCHED, {}, part("ring", "bandwidth"), "1.60 ms"),
    (SCHED, {"hardware": "nvswitch_h100"}, part("ring", "bandwidth"), "0.11 ms"),
]


@pytest.mark.parametrize(("where", "changes", "measure", "written"), DERIVED)
def test_derived_number_ties_to_the_calculator(where, changes, measure, written):
    slug, name = where
    assert written in current_course().lessons[slug].body, f"{slug} no longer writes {written!r}"
    value, half_step = parse_written(written)
    got = measure(run_with(slug, name, changes))
    assert abs(got - value) <= half_step * 1.01, (
        f"{slug} writes {written!r}; @calc {name} with {changes} gives {got:.6g}"
    )
