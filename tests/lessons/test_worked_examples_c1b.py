"""The worked examples of the cost-and-choice lessons agree with the calculators beside them
(issue 16): the lower bound and Reduce + Broadcast, the log-p algorithms, how NCCL chooses."""

from __future__ import annotations

from app.costs.model import cost
from app.course import current_course
from tests.lessons.worked import assert_ties, parse_written


def test_the_ring_and_the_star_for_the_case_on_one_node():
    assert_ties("allreduce-vs-reduce-broadcast", "compare", "time_s", "54.45 ms")
    assert_ties("allreduce-vs-reduce-broadcast", "compare", "runner_up_ratio", "8.0×")


def test_the_log_p_algorithms_for_a_bucket_on_the_case():
    assert_ties("latency-optimal-algorithms", "compare", "time_s", "79.4 µs")


WINS_SIZES = {"8 KiB": 8 << 10, "1 MiB": 1 << 20, "16 MiB": 16 << 20, "256 MiB": 256 << 20}
WINS_SIZES["14 GB"] = 14e9


def model_times(m: float) -> list[float]:
    """Ring, recursive doubling, Rabenseifner and binomial Reduce + Broadcast on the case's 128
    GPUs over InfiniBand NDR (the ib_ndr preset), from the calculator's cost model."""
    link = dict(ranks=128, message_bytes=m, latency_us=2.7, bandwidth_gbs=50)
    times = [cost("allreduce", a, **link).time_s for a in ("ring", "recursive_doubling")]
    times.append(cost("allreduce", "rabenseifner", **link).time_s)
    tree = cost("reduce", "binomial_tree", **link).time_s
    times.append(tree + cost("broadcast", "binomial_tree", **link).time_s)
    return times


def test_the_when_each_wins_table_is_the_cost_model():
    body = current_course().lessons["latency-optimal-algorithms"].body
    rows = {
        cells[0]: cells[1:]
        for line in body.splitlines()
        if line.startswith("| ")
        for cells in [[c.strip().strip("*") for c in line.strip("|").split("|")]]
    }
    for label, m in WINS_SIZES.items():
        written = rows[label]
        for text, seconds in zip(written, model_times(m), strict=True):
            value, half_step = parse_written(text)
            assert abs(value - seconds) <= half_step * 1.01, (label, text, seconds)


def test_nccls_two_allreduce_algorithms_for_a_bucket_on_the_case():
    assert_ties("how-nccl-chooses", "compare", "time_s", "184.6 µs")
    assert_ties("how-nccl-chooses", "compare", "runner_up_ratio", "3.94×")


def test_pinning_the_ring_for_a_small_message_on_the_case():
    assert_ties("nccl-environment", "compare", "time_s", "46.98 µs")
    assert_ties("nccl-environment", "compare", "runner_up_ratio", "14.7×")
