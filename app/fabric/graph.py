"""A physical topology as a directed graph: nodes (GPUs, switches, CPUs, NICs) and links.

Every physical cable or on-board connection is two `Link`s, one per direction, because
bandwidths are per direction (REFERENCE § 1). A path's latency is the sum of its links'
latencies; the builders put a preset's per-step α on the links at a path's ends, so a path
between two GPUs costs the preset's α however many switches it crosses (`Builder.duplex`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Node kinds.
GPU, NVSWITCH, PCIE_SWITCH, CPU, NIC, LEAF, SPINE, SWITCH = (
    "gpu",
    "nvswitch",
    "pcie_switch",
    "cpu",
    "nic",
    "leaf",
    "spine",
    "switch",
)


@dataclass(frozen=True)
class Node:
    """One device: a GPU, a switch, a CPU socket or a NIC."""

    name: str  # readable and unique: "node0 GPU3", "leaf 3"
    kind: str


@dataclass(frozen=True)
class Link:
    """One direction of a connection between two nodes."""

    index: int
    src: int  # node index
    dst: int  # node index
    kind: str  # nvlink, pcie, smp, ib, ici (torus), wire (flat)
    bandwidth_gbs: float  # per direction, 1e9 bytes/s
    latency_us: float  # this link's share of a path's alpha
    name: str  # "node0 NIC3 → leaf 3"
    uplink: bool = False  # a leaf↔spine link of a fat-tree (where oversubscription bites)


@dataclass(eq=False)
class Topology:
    """A built topology: its graph, its GPUs in order, and how GPUs group into machines."""

    name: str
    label: str
    nodes: list[Node]
    links: list[Link]
    gpus: list[int]  # node indices of the GPUs, in the order "fill" assigns ranks
    groups: list[list[int]]  # GPU positions (into `gpus`) per machine/socket, for round-robin
    gpus_per_node: int  # ranks per node for hierarchical algorithms
    params: dict = field(default_factory=dict)
    preset: str = ""
    oversubscription: float = 1.0
    gpu_forwarding: bool = False  # GPUs route others' traffic (a torus); else only endpoints
    outgoing: list[list[int]] = field(default_factory=list)  # link indices per node
    incoming: list[list[int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.outgoing = [[] for _ in self.nodes]
        self.incoming = [[] for _ in self.nodes]
        for link in self.links:
            self.outgoing[link.src].append(link.index)
            self.incoming[link.dst].append(link.index)

    def as_dict(self) -> dict:
        """Return the graph as JSON-ready data (nodes and links by index)."""
        return {
            "name": self.name,
            "label": self.label,
            "params": dict(self.params),
            "preset": self.preset,
            "gpus_per_node": self.gpus_per_node,
            "nodes": [{"name": n.name, "kind": n.kind} for n in self.nodes],
            "gpus": list(self.gpus),
            "links": [
                {
                    "src": link.src,
                    "dst": link.dst,
                    "name": link.name,
                    "kind": link.kind,
                    "bandwidth_gbs": link.bandwidth_gbs,
                    "latency_us": link.latency_us,
                }
                for link in self.links
            ],
        }


class Builder:
    """Collects nodes and links, then makes the `Topology`."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.links: list[Link] = []

    def node(self, name: str, kind: str) -> int:
        """Add a node and return its index."""
        self.nodes.append(Node(name, kind))
        return len(self.nodes) - 1

    def link(
        self, src: int, dst: int, kind: str, gbs: float, latency_us: float, uplink: bool = False
    ) -> None:
        """Add one direction, named "src → dst"."""
        name = f"{self.nodes[src].name} → {self.nodes[dst].name}"
        self.links.append(Link(len(self.links), src, dst, kind, gbs, latency_us, name, uplink))

    def duplex(
        self, a: int, b: int, kind: str, gbs: float, latency_us: float = 0.0, uplink: bool = False
    ) -> None:
        """Add both directions of a connection (`uplink`: a leaf↔spine link, both ways)."""
        self.link(a, b, kind, gbs, latency_us, uplink)
        self.link(b, a, kind, gbs, latency_us, uplink)

    def build(self, name: str, label: str, gpus: list[int], groups, gpus_per_node: int, **kw):
        """Make the Topology."""
        return Topology(name, label, self.nodes, self.links, gpus, groups, gpus_per_node, **kw)
