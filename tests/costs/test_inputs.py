"""Impossible inputs raise CostError naming the field and the allowed range."""

from __future__ import annotations

import math

import pytest

from app.costs import CostError, cost

GOOD = dict(ranks=8, message_bytes=1e6, latency_us=5, bandwidth_gbs=25)


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("ranks", 0, "ranks must be an integer in 1..65536"),
        ("ranks", 2.5, "ranks must be an integer"),
        ("ranks", True, "ranks must be an integer"),
        ("message_bytes", -1, "message_bytes must be a number in [0,"),
        ("message_bytes", math.nan, "message_bytes must be"),
        ("latency_us", "5", "latency_us must be a number"),
        ("bandwidth_gbs", 0, "bandwidth_gbs must be a number in [1e-06,"),
        ("bandwidth_gbs", math.inf, "bandwidth_gbs must be"),
        ("gamma_s_per_byte", -1e-9, "gamma_s_per_byte must be"),
    ],
)
def test_bad_numbers_name_the_field(field, value, words):
    with pytest.raises(CostError, match=None) as caught:
        cost("allreduce", "ring", **{**GOOD, field: value})
    assert words in str(caught.value)


def test_unknown_names_list_what_is_allowed():
    with pytest.raises(CostError, match="collective must be one of allreduce"):
        cost("allsum", "ring", **GOOD)
    with pytest.raises(CostError, match="algorithm for allgather must be one of ring"):
        cost("allgather", "rabenseifner", **GOOD)


def test_hierarchical_needs_ranks_per_node_that_divides_ranks():
    with pytest.raises(CostError, match="ranks_per_node is required"):
        cost("allreduce", "hierarchical", **GOOD)
    with pytest.raises(CostError, match="ranks_per_node must divide ranks"):
        cost("allreduce", "hierarchical", ranks_per_node=3, **{**GOOD})


def test_segments_only_where_they_mean_something():
    with pytest.raises(CostError, match="segments does not apply to allreduce/ring"):
        cost("allreduce", "ring", segments=4, **GOOD)
    with pytest.raises(CostError, match="segments must be an integer in 1"):
        cost("broadcast", "pipelined_ring", segments=0, **GOOD)


def test_root_only_for_rooted_collectives_and_within_the_ranks():
    with pytest.raises(CostError, match="root must be an integer in 0..7, got 8"):
        cost("broadcast", "binomial_tree", root=8, **GOOD)
    with pytest.raises(CostError, match="root must be an integer in 0..7"):
        cost("gather", "direct", root=-1, **GOOD)
    with pytest.raises(CostError, match="root applies only to reduce, broadcast, gather, scatter"):
        cost("allreduce", "ring", root=3, **GOOD)
    rotated = cost("reduce", "binomial_tree", root=3, **GOOD).bytes_per_rank
    plain = cost("reduce", "binomial_tree", **GOOD).bytes_per_rank
    assert rotated == plain[-3:] + plain[:-3] and rotated[3] == 0


def test_cost_error_is_a_value_error():
    assert issubclass(CostError, ValueError)
