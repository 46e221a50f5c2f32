"""The worked examples of the Scaling-up and Operating lessons agree with their calculators
(issue 16): each number the lesson writes is the calculator's, run on the lesson's own @calc
inputs, or on those inputs with the few changes the lesson asks the reader to make."""

from __future__ import annotations

import shlex

import pytest

from app.costs.calculators.query import run_calculator
from app.course import current_course
from tests.lessons.worked import assert_ties, calc_lines, parse_written


def run_with(slug: str, name: str, changes: dict[str, str], index: int = 0):
    """Run the lesson's `index`-th @calc `name` with `changes` applied to its inputs."""
    words = shlex.split(calc_lines(slug, name)[index])[2:]
    params = dict(w.split("=", 1) for w in words)
    params.pop("caption", None)
    return run_calculator(name, {**params, **changes})


def assert_matches(slug: str, written: str, got: float, what: str) -> None:
    """The lesson writes `written`, and `got` rounds to it at the precision written."""
    assert written in current_course().lessons[slug].body, f"{slug} no longer writes {written!r}"
    value, half_step = parse_written(written)
    assert abs(got - value) <= half_step * 1.01, f"{slug} writes {written!r}; {what} = {got:.6g}"


def row(result, first: str) -> dict[str, float]:
    """The calculator table's row whose first cell starts with `first`, by column name."""
    cells = next(r for r in result.table["rows"] if str(r[0]).startswith(first))
    return dict(zip(result.table["columns"], cells, strict=True))


def output(result, key: str) -> float:
    return float(next(o.value for o in result.outputs if o.key == key))


# -- 3d-parallelism: the running case, TP 8 × DP 16, against its compute ------------------------

SLUG_3D = "3d-parallelism"


@pytest.mark.parametrize(
    ("key", "written"),
    [("tensor_bytes", "481 GB"), ("data_bytes", "3.28 GB"), ("comm_s", "1.20 s")],
)
def test_3d_case_bytes_tie_to_the_calculator(key, written):
    assert_ties(SLUG_3D, "parallelism_3d", key, written)


def measure(result, what: str) -> float:
    """An output by key, or "<dimension> time": that table row's latency plus bandwidth."""
    if what.endswith(" time"):
        cells = row(result, what.removesuffix(" time"))
        return cells["latency"] + cells["bandwidth"]
    return output(result, what)


TP4_DP32 = {"tp": "4", "dp": "32", "micro_batches": "32"}
TP8_PP2_DP8 = {"pp": "2", "dp": "8", "micro_batches": "128"}


@pytest.mark.parametrize(
    ("changes", "what", "written"),
    [
        ({}, "tensor time", "1.14 s"),
        ({}, "data time", "66 ms"),
        ({"gpus_per_node": "4"}, "tensor time", "9.93 s"),
        (TP4_DP32, "tensor_bytes", "206 GB"),
        (TP4_DP32, "tensor time", "0.47 s"),
        (TP4_DP32, "data_bytes", "6.78 GB"),
        (TP4_DP32, "data time", "0.14 s"),
        (TP8_PP2_DP8, "pipeline_bytes", "8.59 GB"),
        (TP8_PP2_DP8, "pipeline time", "0.17 s"),
        (TP8_PP2_DP8, "data_bytes", "1.53 GB"),
        (TP8_PP2_DP8, "tensor_bytes", "481 GB"),
    ],
)
def test_3d_times_and_other_layouts_tie_to_the_calculator(changes, what, written):
    got = measure(run_with(SLUG_3D, "parallelism_3d", changes), what)
    assert_matches(SLUG_3D, written, got, f"{what} with {changes}")


# -- hierarchical-allreduce: one 25 MiB bucket, then the whole gradient, on 16 × 8 GPUs ----------

SLUG_H = "hierarchical-allreduce"
WHOLE_GRADIENT = {"message_bytes": "14000000000"}


@pytest.mark.parametrize(
    ("key", "written"),
    [("flat_s", "1.73 ms"), ("leader_s", "1.42 ms"), ("hierarchical_s", "0.31 ms")],
)
def test_hierarchical_bucket_ties_to_the_calculator(key, written):
    assert_ties(SLUG_H, "hierarchical", key, written)


def eight_nic_flat_ring(result) -> float:
    """The flat ring with NCCL's channels spreading it over all 8 NICs: bandwidth time ÷ 8."""
    flat = row(result, "flat")
    return flat["inter latency"] + flat["inter bandwidth"] / 8


@pytest.mark.parametrize(
    ("changes", "written", "compute"),
    [
        ({}, "0.69 ms", lambda r: row(r, "flat")["inter latency"]),
        ({}, "1.04 ms", lambda r: row(r, "flat")["inter bandwidth"]),
        ({}, "0.08 ms", lambda r: row(r, "(b)")["inter latency"]),
        ({}, "81 µs", lambda r: row(r, "(b)")["inter latency"]),
        ({}, "0.12 ms", lambda r: row(r, "(b)")["inter bandwidth"]),
        ({}, "0.10 ms", lambda r: row(r, "(b)")["intra bandwidth"]),
        ({}, "8.4 µs", lambda r: row(r, "(b)")["intra latency"]),
        (
            {},
            "0.11 ms",
            lambda r: row(r, "(b)")["intra latency"] + row(r, "(b)")["intra bandwidth"],
        ),
        ({}, "0.13 ms", lambda r: row(r, "flat")["inter bandwidth"] / 8),
        ({}, "0.82 ms", eight_nic_flat_ring),
        (WHOLE_GRADIENT, "0.12 s", lambda r: output(r, "hierarchical_s")),
        (WHOLE_GRADIENT, "0.56 s", lambda r: output(r, "flat_s")),
        (WHOLE_GRADIENT, "70 ms", eight_nic_flat_ring),
        (WHOLE_GRADIENT, "54 ms", lambda r: row(r, "(b)")["intra bandwidth"]),
    ],
)
def test_hierarchical_phases_tie_to_the_calculator(changes, written, compute):
    got = compute(run_with(SLUG_H, "hierarchical", changes))
    assert_matches(SLUG_H, written, got, f"the calculator with {changes}")


ZERO_PLUS_PLUS = {"qwz": "true", "hpz": "true", "qgz": "true"}


@pytest.mark.parametrize(
    ("changes", "key", "written"),
    [
        ({}, "cross_node_bytes", "41.7 GB"),
        ({}, "time_s", "0.83 s"),
        (ZERO_PLUS_PLUS, "cross_node_bytes", "10.4 GB"),
        (ZERO_PLUS_PLUS, "intra_node_bytes", "12.25 GB"),
        (ZERO_PLUS_PLUS, "time_s", "0.24 s"),
    ],
)
def test_zero_plus_plus_on_the_case_ties_to_the_calculator(changes, key, written):
    got = output(run_with(SLUG_H, "zero", changes), key)
    assert_matches(SLUG_H, written, got, f"{key} with {changes}")
