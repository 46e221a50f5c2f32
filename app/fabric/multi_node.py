"""Builders of multi-node fabrics: a rail-optimized two-level fat-tree, and 2D/3D tori.

Fat-tree (as DGX SuperPOD-style clusters are cabled): every node has g GPUs on an NVSwitch
and one NIC per GPU; NIC j of every node plugs into leaf j (rail j); every leaf has one
uplink to every spine. A leaf's downlinks carry N·B (N nodes, B the NIC rate); its uplinks
together carry N·B / oversubscription, split evenly over the spines. Traffic between GPUs of
the same rail crosses only its leaf; between rails it climbs to a spine, spread over the
spines by ECMP. GPUs never forward traffic here (NCCL's PXN is a library feature, not
routing). Latency (graph.py): α_intra on NVSwitch paths, α_net on paths through the network,
put on the NIC↔leaf links; GPU↔NIC and leaf↔spine links add none.

Torus: GPUs at the points of an x × y (× z) grid, each joined to its neighbours along every
axis with wrap-around (TPU-style). GPUs are the routers, so every hop is a link of the preset
and costs its α; dimension-order alternatives of equal length share the traffic (ECMP).
"""

from __future__ import annotations

from itertools import product

from app.i18n import N_

from .graph import GPU, LEAF, NIC, NVSWITCH, SPINE, Builder, Topology
from .presets import Resolved


def fat_tree(
    ranks: int,
    preset: Resolved,
    nodes: int,
    gpus_per_node: int,
    oversubscription: float,
    spines: int,
) -> Topology:
    """N nodes × g GPUs, one NIC per GPU, rail-optimized leaves, `spines` spines."""
    b = Builder()
    intra, net, pcie = preset.intra, preset.inter, preset.pcie
    leaves = [b.node(f"leaf {j}", LEAF) for j in range(gpus_per_node)]
    tops = [b.node(f"spine {s}", SPINE) for s in range(spines)]
    uplink_gbs = nodes * net.bandwidth_gbs / (oversubscription * spines)
    for leaf in leaves:
        for spine in tops:
            b.duplex(leaf, spine, "ib", uplink_gbs, 0.0, uplink=True)
    gpus, groups = [], []
    for n in range(nodes):
        switch = b.node(f"node{n} NVSwitch", NVSWITCH)
        group = []
        for j in range(gpus_per_node):
            gpu = b.node(f"node{n} GPU{j}", GPU)
            nic = b.node(f"node{n} NIC{j}", NIC)
            b.duplex(gpu, switch, "nvlink", intra.bandwidth_gbs, intra.latency_us / 2)
            b.duplex(gpu, nic, "pcie", pcie.bandwidth_gbs, 0.0)
            b.duplex(nic, leaves[j], "ib", net.bandwidth_gbs, net.latency_us / 2)
            group.append(len(gpus))
            gpus.append(gpu)
        groups.append(group)
    ratio = f"{oversubscription:g}:1"
    label = N_(
        "Fat-tree: %(nodes)s nodes × %(gpus)s GPUs, rail-optimized, %(ratio)s uplinks",
        nodes=nodes,
        gpus=gpus_per_node,
        ratio=ratio,
    )
    return b.build(
        "fat_tree", label, gpus, groups, gpus_per_node, oversubscription=oversubscription
    )


def torus(ranks: int, preset: Resolved, dims: tuple[int, ...]) -> Topology:
    """GPUs on a wrap-around grid of `dims`; each neighbour link is one preset link."""
    b = Builder()
    link = preset.inter
    points = list(product(*(range(d) for d in dims)))
    index = {point: b.node("GPU(" + ",".join(map(str, point)) + ")", GPU) for point in points}
    for point in points:
        for axis, size in enumerate(dims):
            if size < 2 or (size == 2 and point[axis] == 1):
                continue  # two points on an axis share one cable, not two
            step = list(point)
            step[axis] = (point[axis] + 1) % size
            b.duplex(index[point], index[tuple(step)], "ici", link.bandwidth_gbs, link.latency_us)
    row = dims[-1]
    gpus = [index[p] for p in points]
    groups = [list(range(i, i + row)) for i in range(0, len(points), row)]
    shape = " × ".join(map(str, dims))
    name = "torus2d" if len(dims) == 2 else "torus3d"
    label = N_("%(d)sD torus %(shape)s", d=len(dims), shape=shape)
    return b.build(name, label, gpus, groups, row, gpu_forwarding=True)
