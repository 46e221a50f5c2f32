"""Worked examples of lessons 1-4 and benchmarking, tied to the calculators beside them
(issue 16): change a lesson's number or its @calc inputs and these name both."""

from __future__ import annotations

import shlex

import pytest

from app.costs.calculators.query import run_calculator
from app.course import current_course
from tests.lessons.worked import assert_ties, calc_lines, parse_written

TIES = [
    # why-collectives: the running case, tensor parallelism 8 inside a node, data 16 across.
    ("why-collectives", "parallelism_3d", "tensor_bytes", "481 GB", 0),
    ("why-collectives", "parallelism_3d", "data_bytes", "3.28 GB", 0),
    ("why-collectives", "parallelism_3d", "comm_s", "1.2 s", 0),
    # alpha-beta-model: the case's 14 GB on one node (NVLink), then a 25 MiB bucket on 128 GPUs.
    ("alpha-beta-model", "crossover", "busbw_gbs", "449.9 GB/s", 0),
    ("alpha-beta-model", "crossover", "busbw_gbs", "49.9 GB/s", 1),
    ("alpha-beta-model", "crossover", "m_star_bytes", "17.28 MB", 2),
    ("alpha-beta-model", "crossover", "latency_share_pct", "39.7 %", 2),
]


@pytest.mark.parametrize(("slug", "calc", "key", "written", "index"), TIES)
def test_worked_example_ties_to_its_calculator(slug, calc, key, written, index):
    assert_ties(slug, calc, key, written, index)


def crossover_time_s(slug: str, index: int) -> float:
    """The time the lesson's `index`-th @calc crossover shows for its message: the sum of the
    stacked terms (latency, bandwidth, compute) in its second chart, as the widget draws it."""
    words = shlex.split(calc_lines(slug, "crossover")[index])[2:]
    params = dict(w.split("=", 1) for w in words if not w.startswith(("caption=", "theme=")))
    chart = run_calculator("crossover", params).charts[1]
    return sum(stack["values"][0] for stack in chart["stacks"])


@pytest.mark.parametrize(
    ("slug", "written", "index"),
    [("alpha-beta-model", "54.45 ms", 0), ("alpha-beta-model", "556 ms", 1)],
)
def test_ring_time_ties_to_its_crossover_calculator(slug, written, index):
    assert written in current_course().lessons[slug].body
    value, half_step = parse_written(written)
    got = crossover_time_s(slug, index)
    assert abs(got - value) <= half_step * 1.01, f"{slug} writes {written!r}; calc gives {got}"
