"""The worked examples of the software and hardware lessons agree with the calculators beside
them (issue 16): each line names the lesson, its @calc, the output and the number as written."""

from __future__ import annotations

from tests.lessons.worked import assert_ties


def test_communicators_tp_allreduce_is_bandwidth_bound():
    assert_ties("communicators", "crossover", "latency_share_pct", "3.1%")


def test_overlap_crossover_of_a_bucket_on_128_ranks():
    assert_ties("overlap-and-bucketing", "crossover", "m_star_bytes", "17.3 MB")


def test_overlap_running_case_gradient_sync():
    for key, written in (
        ("buckets", "384"),
        ("comm_s", "0.82 s"),
        ("backward_s", "0.29 s"),
        ("exposed_overlap_s", "0.53 s"),
    ):
        assert_ties("overlap-and-bucketing", "ddp_overlap", key, written)


def test_compression_running_case_on_128_ranks():
    for key, written in (
        ("dense_bytes_per_rank", "55.6 GB"),
        ("dense_time_s", "1.11 s"),
        ("topk_time_s", "0.14 s"),
        ("powersgd_time_s", "3.5 ms"),
        ("topk_break_even_density", "0.0078"),
    ):
        assert_ties("gradient-compression", "compression", key, written)


def test_gpu_interconnects_case_allreduce_inside_a_node():
    assert_ties("gpu-interconnects", "crossover", "busbw_gbs", "450 GB/s")
    assert_ties("gpu-interconnects", "crossover", "m_star_bytes", "2.16 MB")


def test_networks_one_rail_of_the_case_runs_at_line_rate():
    assert_ties("networks", "crossover", "busbw_gbs", "50 GB/s")
