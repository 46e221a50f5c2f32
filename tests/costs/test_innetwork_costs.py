"""The in-network cost terms: what they teach, with numbers worked by hand.

NVLS allreduce on 8 GPUs at 450 GB/s, 1 GB, latency 0: k = 4 segments, so 5 steps of M/4 each,
t = 5/4 · 1e9 / 450e9 s; algbw = 450 · 4/5 = 360 GB/s; busbw = 360 · 2·7/8 = 630 GB/s, above the
link's 450 GB/s, where the ring's busbw is at most 450.
"""

from __future__ import annotations

import pytest

from app.costs import CostError, cost
from app.costs.ranking import rank_algorithms

GB = 1e9


def _cost(collective: str, algorithm: str, p: int, **extra):
    return cost(
        collective,
        algorithm,
        ranks=p,
        message_bytes=GB,
        latency_us=0,
        bandwidth_gbs=450,
        **extra,
    )


def test_nvls_allreduce_busbw_exceeds_the_link():
    nvls = _cost("allreduce", "nvls", 8)
    assert nvls.steps == 5
    assert nvls.time_s == pytest.approx(1.25 / 450)
    assert nvls.algbw_gbs == pytest.approx(360)
    assert nvls.busbw_gbs == pytest.approx(630)
    ring = _cost("allreduce", "ring", 8)
    assert ring.busbw_gbs == pytest.approx(450)  # the point-to-point bound, met
    assert "above the point-to-point bound" in nvls.formula


@pytest.mark.parametrize("collective", ["reduce_scatter", "allgather"])
def test_nvls_blocks_win_on_latency_not_on_bandwidth(collective):
    # 2 steps of M and M/8: t = (1 + 1/8)/450 GB; busbw = algbw · 7/8 = 450 · 8/9 · 7/8 = 350.
    nvls = _cost(collective, "nvls", 8)
    assert nvls.steps == 2
    assert nvls.busbw_gbs == pytest.approx(350)
    ring = _cost(collective, "ring", 8)
    assert ring.steps == 7 and ring.busbw_gbs == pytest.approx(450)
    slow = dict(latency_us=10, bandwidth_gbs=450, ranks=8, message_bytes=64 * 1024)
    assert cost(collective, "nvls", **slow).time_s < cost(collective, "ring", **slow).time_s


@pytest.mark.parametrize("nodes", [2, 8, 64])
def test_collnet_network_time_does_not_grow_with_nodes(nodes):
    # g = 1: k = 4 segments, all k + 1 = 5 steps cross the network: 5/4 · M / 50 GB/s.
    c = cost(
        "allreduce",
        "collnet",
        ranks=nodes,
        ranks_per_node=1,
        message_bytes=GB,
        latency_us=0,
        bandwidth_gbs=50,
    )
    assert c.steps == 5
    assert c.time_s == pytest.approx(1.25 / 50)


def test_collnet_chain_inside_the_node_uses_the_intra_link():
    # g = 4: k = 16; 3 + 3 chain-only steps on NVLink, 17 switch steps on the NIC.
    c = cost(
        "allreduce",
        "collnet",
        ranks=16,
        ranks_per_node=4,
        message_bytes=16 * GB,
        latency_us=0,
        bandwidth_gbs=50,
        intra_latency_us=0,
        intra_bandwidth_gbs=450,
    )
    assert c.steps == 23
    assert c.time_s == pytest.approx(6 / 450 + 17 / 50)
    assert c.bytes_per_rank[:4] == [32 * GB, 32 * GB, 32 * GB, 16 * GB]


def test_the_model_refuses_what_the_hardware_cannot_do():
    with pytest.raises(CostError, match="ranks must be an integer in 1..32"):
        _cost("allgather", "nvls", 64)
    with pytest.raises(CostError, match="ranks_per_node must be an integer in 1..8"):
        _cost("allreduce", "collnet", 32, ranks_per_node=16)


def test_compare_says_why_an_in_network_algorithm_cannot_run():
    _, unavailable = rank_algorithms(
        "allreduce", ranks=16, message_bytes=GB, latency_us=1, bandwidth_gbs=50, ranks_per_node=4
    )
    reasons = {u["algorithm"]: u["reason"] for u in unavailable}
    assert "all ranks on one node" in reasons["nvls"] and "collnet" not in reasons


def test_compare_prices_nvls_on_the_nodes_nvlink():
    # One node of 8: NVLS runs on the 450 GB/s NVLink, not on the 50 GB/s network link.
    costs, _ = rank_algorithms(
        "allreduce",
        ranks=8,
        message_bytes=GB,
        latency_us=0,
        bandwidth_gbs=50,
        ranks_per_node=8,
        intra_latency_us=0,
        intra_bandwidth_gbs=450,
    )
    nvls = next(c for c in costs if c.algorithm == "nvls")
    assert nvls.time_s == pytest.approx(1.25 / 450)
    assert costs[0].algorithm == "nvls"
    _, unavailable = rank_algorithms(
        "allreduce", ranks=8, message_bytes=GB, latency_us=1, bandwidth_gbs=50
    )
    assert "one NVSwitch node" in {u["algorithm"]: u["reason"] for u in unavailable}["nvls"]
