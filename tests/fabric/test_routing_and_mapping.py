"""ECMP spreads a transfer over equal-cost paths; the rank mapping changes the answer."""

from __future__ import annotations

import pytest

from app.fabric import place, race
from app.fabric.registry import topology as build
from app.fabric.routing import router


def shares(topo, src: str, dst: str) -> dict[str, float]:
    names = {n.name: i for i, n in enumerate(topo.nodes)}
    indices, fractions, _ = router(topo).route(names[src], names[dst])
    return {
        topo.links[i].name: f for i, f in zip(indices.tolist(), fractions.tolist(), strict=True)
    }


def test_a_cross_rail_transfer_spreads_evenly_over_the_spines():
    topo = build("fat_tree", ranks=4, nodes=2, gpus_per_node=2, spines=4)
    got = shares(topo, "node0 GPU1", "node1 GPU0")
    up = {name: f for name, f in got.items() if name.startswith("leaf 1 → spine")}
    down = {name: f for name, f in got.items() if name.endswith("→ leaf 0")}
    assert up == {f"leaf 1 → spine {s}": 0.25 for s in range(4)}
    assert down == {f"spine {s} → leaf 0": 0.25 for s in range(4)}
    assert got["node0 GPU1 → node0 NIC1"] == 1.0  # one NIC per GPU: no choice there
    assert got["node1 NIC0 → node1 GPU0"] == 1.0
    assert len(got) == 4 + 8  # GPU→NIC→leaf, 4 + 4 spine links, leaf→NIC→GPU
    same_rail = shares(topo, "node0 GPU1", "node1 GPU1")
    assert not any("spine" in name for name in same_rail)  # a rail stays on its leaf


def test_a_diagonal_on_a_torus_takes_both_dimension_orders():
    topo = build("torus2d", ranks=9, x=3, y=3)
    got = shares(topo, "GPU(0,0)", "GPU(1,1)")
    assert got == {
        "GPU(0,0) → GPU(0,1)": 0.5,
        "GPU(0,1) → GPU(1,1)": 0.5,
        "GPU(0,0) → GPU(1,0)": 0.5,
        "GPU(1,0) → GPU(1,1)": 0.5,
    }


def test_gpus_do_not_forward_traffic_between_nodes():
    """Between rails the path climbs to a spine; it never borrows another GPU's NIC."""
    topo = build("fat_tree", ranks=4, nodes=2, gpus_per_node=2, spines=1)
    got = shares(topo, "node0 GPU0", "node1 GPU1")
    assert not any("NVSwitch" in name for name in got)


def test_round_robin_deals_ranks_across_the_machines():
    topo = build("fat_tree", ranks=8, nodes=2, gpus_per_node=4)
    names = [topo.nodes[i].name for i in place(topo, 4, "round_robin")]
    assert names == ["node0 GPU0", "node1 GPU0", "node0 GPU1", "node1 GPU1"]
    names = [topo.nodes[i].name for i in place(topo, 4)]
    assert names == ["node0 GPU0", "node0 GPU1", "node0 GPU2", "node0 GPU3"]


def test_round_robin_makes_a_ring_on_a_pcie_node_cross_the_sockets_at_every_hop():
    """PCIe node, 8 GPUs, 2 per PCIe switch, switches 0-1 under CPU0 and 2-3 under CPU1;
    PCIe 4 (31.5 GB/s), α 1 µs, socket link 22 GB/s. M = 8 MB: ring messages of 1 MB, 14 steps.
    fill: one message a step crosses CPU0 → CPU1 (rank 3 → 4) and one crosses back
    (7 → 0): 1 MB / 22 GB/s = 45.45 µs beats the 31.7 µs of a PCIe hop; run 14 × (1 + 45.45).
    round_robin puts ranks 0, 2, 4, 6 on socket 0 and 1, 3, 5, 7 on socket 1: every hop
    crosses, 4 MB a step each way over the socket link: 181.8 µs; run 14 × (1 + 181.8)."""
    kw = {"ranks": 8, "message_bytes": 8e6, "topology": "pcie", "preset": "pcie4"}
    fill = race("allreduce", ["ring"], **kw).runs[0]
    dealt = race("allreduce", ["ring"], mapping="round_robin", **kw).runs[0]
    assert fill.time_s == pytest.approx(14 * (1e-6 + 1e6 / 22e9), rel=1e-12)
    assert dealt.time_s == pytest.approx(14 * (1e-6 + 4e6 / 22e9), rel=1e-12)
    topo = build("pcie", ranks=8, preset="pcie4")
    assert {topo.links[run.bottleneck].kind for run in (fill, dealt)} == {"smp"}
