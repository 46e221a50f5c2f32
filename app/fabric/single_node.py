"""Builders of the flat networks and of one-box topologies: NVSwitch node, PCIe node, NVL72.

Latency rule (graph.py): a path between two GPUs costs its preset's α. A direct wire carries
the whole α; a path through switches puts α/2 on the GPU's way in and α/2 on the way out
(x/2 + x/2 == x exactly in binary floating point) and 0 on links between switches.
"""

from __future__ import annotations

from app.i18n import N_

from .graph import CPU, GPU, NVSWITCH, PCIE_SWITCH, SWITCH, Builder, Topology
from .presets import Resolved


def _node_name(gpu: int, gpus_per_node: int, multi: bool) -> str:
    return f"node{gpu // gpus_per_node} GPU{gpu % gpus_per_node}" if multi else f"GPU{gpu}"


def _machines(count: int, size: int) -> list[list[int]]:
    return [list(range(start, min(start + size, count))) for start in range(0, count, size)]


def flat(ranks: int, preset: Resolved, gpus_per_node: int) -> Topology:
    """The α-β model's ideal network: one dedicated wire per ordered pair of GPUs.

    Two GPUs in the same node (gpu // gpus_per_node) talk over the preset's intra-node link,
    others over its inter-node link (the same link for a one-link preset). Each wire carries
    the whole α of its class, so every transfer's path is one link with the model's α and β.
    """
    b = Builder()
    multi = preset.intra is not preset.inter
    gpus = [b.node(_node_name(g, gpus_per_node, multi), GPU) for g in range(ranks)]
    for i in gpus:
        for j in gpus:
            if i != j:
                same = i // gpus_per_node == j // gpus_per_node
                link = preset.intra if same else preset.inter
                b.link(i, j, "wire", link.bandwidth_gbs, link.latency_us)
    groups = _machines(ranks, gpus_per_node)
    label = N_("Flat: a wire per pair of GPUs")
    return b.build("flat", label, gpus, groups, gpus_per_node)


def flat_switch(ranks: int, preset: Resolved) -> Topology:
    """One port per GPU into an ideal non-blocking switch (the port carries all a GPU sends).

    The α-β model's own rule for the all-port `direct` algorithms: a rank's port carries
    everything it sends or receives in its one step (app/costs/terms.py).
    """
    b = Builder()
    link = preset.inter
    switch = b.node("switch", SWITCH)
    gpus = [b.node(f"GPU{g}", GPU) for g in range(ranks)]
    for gpu in gpus:
        b.duplex(gpu, switch, "wire", link.bandwidth_gbs, link.latency_us / 2)
    label = N_("Flat: one port per GPU into an ideal switch")
    return b.build("flat_switch", label, gpus, _machines(ranks, ranks), ranks)


def _switched(name: str, label: str, gpus: int, per_group: int, preset: Resolved, names):
    """GPUs each on one port of a single logical switch (an NVSwitch node, an NVL72 rack)."""
    b = Builder()
    link = preset.intra
    hub = b.node("NVSwitch" if name == "nvswitch" else "NVLink Switch", NVSWITCH)
    nodes = [b.node(names(g), GPU) for g in range(gpus)]
    for gpu in nodes:
        b.duplex(gpu, hub, "nvlink", link.bandwidth_gbs, link.latency_us / 2)
    groups = _machines(gpus, per_group)
    return b.build(name, label, nodes, groups, per_group)


def nvswitch(ranks: int, preset: Resolved, gpus: int) -> Topology:
    """An HGX/DGX node: `gpus` GPUs, any pair at the full NVLink rate through NVSwitch.

    The four NVSwitch chips are drawn as one switch: each GPU's NVLinks spread over them, and
    the preset's per-GPU figure is the total a GPU can send (REFERENCE § 3).
    """
    return _switched(
        "nvswitch",
        N_("NVSwitch node: %(gpus)s GPUs", gpus=gpus),
        gpus,
        gpus,
        preset,
        lambda g: f"GPU{g}",
    )


NVL72_TRAY = 4  # GPUs per compute tray (2 Grace CPUs + 4 Blackwell GPUs)


def nvl72(ranks: int, preset: Resolved) -> Topology:
    """A GB200 NVL72 rack: 72 GPUs in 18 trays, one NVLink domain through the switch trays."""
    return _switched(
        "nvl72",
        N_("GB200 NVL72 rack: 72 GPUs, one NVLink domain"),
        72,
        NVL72_TRAY,
        preset,
        lambda g: f"tray{g // NVL72_TRAY} GPU{g % NVL72_TRAY}",
    )


def pcie(ranks: int, preset: Resolved, gpus: int, gpus_per_switch: int) -> Topology:
    """A PCIe server: GPUs under PCIe switches, half the switches under each of two CPU
    sockets, the sockets joined by an SMP link (UPI). GPU↔switch and switch↔CPU run at the
    preset's PCIe rate; a pair under different sockets crosses both uplinks and the SMP link.
    """
    b = Builder()
    link, smp = preset.intra, preset.smp
    cpus = [b.node(f"CPU{s}", CPU) for s in range(2)]
    b.duplex(cpus[0], cpus[1], "smp", smp.bandwidth_gbs, 0.0)
    switches = -(-gpus // gpus_per_switch)
    nodes, groups = [], [[], []]
    for s in range(switches):
        socket = 0 if s < -(-switches // 2) else 1
        sw = b.node(f"PCIe switch {s}", PCIE_SWITCH)
        b.duplex(sw, cpus[socket], "pcie", link.bandwidth_gbs, 0.0)
        for g in range(s * gpus_per_switch, min((s + 1) * gpus_per_switch, gpus)):
            gpu = b.node(f"GPU{g}", GPU)
            b.duplex(gpu, sw, "pcie", link.bandwidth_gbs, link.latency_us / 2)
            nodes.append(gpu)
            groups[socket].append(g)
    label = N_(
        "PCIe node: %(gpus)s GPUs, %(switches)s PCIe switches, 2 sockets",
        gpus=gpus,
        switches=switches,
    )
    return b.build("pcie", label, nodes, [g for g in groups if g], gpus)
