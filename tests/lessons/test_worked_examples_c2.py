"""The worked examples of the software and hardware lessons agree with the calculators beside
them (issue 16): each line names the lesson, its @calc, the output and the number as written."""

from __future__ import annotations

from tests.lessons.worked import assert_ties


def test_communicators_tp_allreduce_is_bandwidth_bound():
    assert_ties("communicators", "crossover", "latency_share_pct", "3.1%")
