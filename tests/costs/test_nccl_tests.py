"""nccl-tests' bus bandwidth factors (REFERENCE § 2 [PERF]) and algbw = S / t."""

from __future__ import annotations

import pytest

from app.costs import bus_factor, cost


@pytest.mark.parametrize(
    ("collective", "factor_at_8"),
    [
        ("allreduce", 2 * 7 / 8),
        ("allgather", 7 / 8),
        ("reduce_scatter", 7 / 8),
        ("all_to_all", 7 / 8),
        ("gather", 7 / 8),
        ("scatter", 7 / 8),
        ("broadcast", 1.0),
        ("reduce", 1.0),
        ("sendrecv", 1.0),
    ],
)
def test_bus_factors(collective, factor_at_8):
    assert bus_factor(collective, 8) == pytest.approx(factor_at_8)


def test_ring_allreduce_busbw_reaches_the_link_bandwidth_for_large_messages():
    # Bandwidth term 2(p-1)/p·M/B; busbw = (M/t)·2(p-1)/p → B as α stops mattering.
    c = cost("allreduce", "ring", ranks=8, message_bytes=1e12, latency_us=5, bandwidth_gbs=25)
    assert c.algbw_gbs == pytest.approx(1e12 / c.time_s / 1e9)
    assert c.busbw_gbs == pytest.approx(25, rel=1e-6)
    assert c.algbw_gbs == pytest.approx(25 * 8 / 14, rel=1e-6)


def test_allgather_busbw_is_the_link_bandwidth_without_latency():
    c = cost("allgather", "ring", ranks=4, message_bytes=4e9, latency_us=0, bandwidth_gbs=50)
    assert c.time_s == pytest.approx(3 / 4 * 4e9 / 50e9)
    assert c.busbw_gbs == pytest.approx(50)
