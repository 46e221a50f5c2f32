"""The worked examples of the cost-and-choice lessons agree with the calculators beside them
(issue 16): the lower bound and Reduce + Broadcast, the log-p algorithms, how NCCL chooses."""

from __future__ import annotations

from tests.lessons.worked import assert_ties


def test_the_ring_and_the_star_for_the_case_on_one_node():
    assert_ties("allreduce-vs-reduce-broadcast", "compare", "time_s", "54.45 ms")
    assert_ties("allreduce-vs-reduce-broadcast", "compare", "runner_up_ratio", "8.0×")
