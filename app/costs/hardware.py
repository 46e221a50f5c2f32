"""Link presets (bandwidth per direction, per GPU, and a typical per-step latency) with sources.

Bandwidths come from REFERENCE § 4 (vendor datasheets and specifications): they are peak
figures **per direction**, not measurements. No latency here is a measurement either: each
preset's alpha is a constant from NCCL's own cost model (REFERENCE § 4, [T] `tuning.cc`
`hwLat`, the LL protocol's per-step latency, the one that matters for the small messages where
alpha dominates): NVLink 0.6 µs, PCIe 1.0 µs, network 2.7 µs. NCCL adds a base latency of
6.6-14 µs per collective (`baseLat`) that the alpha-beta model leaves out, and its Simple
protocol pays 3.4-4.0 µs (NVLink) and 14 µs (network) per step. Vendor adapter figures are
noted where REFERENCE has them (ConnectX-6: sub-600 ns IB, sub-0.8 µs Ethernet): those are
NIC-only specifications, well below what a collective step costs end to end.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from app.i18n import N_

INTRA_NODE = "intra-node"
INTER_NODE = "inter-node"

NCCL_LAT = "NCCL model constant (tuning.cc hwLat, LL protocol), not a measurement"
NVLINK_LAT_US = 0.6
PCIE_LAT_US = 1.0
NET_LAT_US = 2.7


@dataclass(frozen=True)
class Link:
    """One link class a GPU communicates over, as the cost model sees it."""

    key: str
    label: str
    scope: str  # INTRA_NODE or INTER_NODE
    bandwidth_gbs: float  # per direction, per GPU, 1e9 bytes/s
    latency_us: float  # per step (alpha)
    bandwidth_source: str
    latency_source: str

    def as_dict(self) -> dict:
        """Return the preset as plain JSON-ready data."""
        return asdict(self)


def _nvlink(key: str, label: str, gbs: float, source: str) -> Link:
    return Link(key, label, INTRA_NODE, gbs, NVLINK_LAT_US, source, NCCL_LAT + ": NVLink")


def _net(key: str, label: str, gbs: float, source: str, adapter: str = "") -> Link:
    latency = NCCL_LAT + ": network (ring, LL)" + (f"; {adapter}" if adapter else "")
    return Link(key, label, INTER_NODE, gbs, NET_LAT_US, source, latency)


LINKS: tuple[Link, ...] = (
    _nvlink(
        "nvlink3",
        "NVLink 3 (A100 SXM)",
        300.0,
        "12 links × 50 GB/s bidir = 600 GB/s bidir, 300 GB/s per direction "
        "(NVIDIA NVLink page; A100 white paper; REFERENCE § 4)",
    ),
    _nvlink(
        "nvlink4",
        "NVLink 4 (H100 SXM)",
        450.0,
        "18 links × 50 GB/s bidir = 900 GB/s bidir, 450 GB/s per direction "
        "(NVIDIA NVLink page; H100 datasheet; REFERENCE § 4)",
    ),
    _nvlink(
        "nvlink5",
        "NVLink 5 (B200/GB200)",
        900.0,
        "18 links × 100 GB/s bidir = 1.8 TB/s bidir, 900 GB/s per direction "
        "(NVIDIA NVLink page; REFERENCE § 4)",
    ),
    _nvlink(
        "nvswitch_h100",
        N_("NVSwitch, HGX H100 (per GPU)"),
        450.0,
        "4 gen-3 NVSwitches, 7.2 TB/s total over 8 GPUs = 900 GB/s bidir per GPU, 450 GB/s "
        "per direction: any pair at full NVLink 4 rate (NVIDIA NVLink page; REFERENCE § 4)",
    ),
    _nvlink(
        "nvl72",
        N_("NVLink Switch, GB200 NVL72 (per GPU)"),
        900.0,
        "72 GPUs, 130 TB/s total ≈ 1.8 TB/s bidir per GPU, 900 GB/s per direction "
        "(NVIDIA NVLink page; REFERENCE § 4)",
    ),
    Link(
        "pcie4",
        "PCIe 4.0 x16",
        INTRA_NODE,
        31.5,
        PCIE_LAT_US,
        "16 GT/s × 16 lanes × 128/130 ≈ 31.5 GB/s per direction (PCI-SIG; A100 datasheet "
        "'64 GB/s' bidir; REFERENCE § 4)",
        NCCL_LAT + ": PCIe",
    ),
    Link(
        "pcie5",
        "PCIe 5.0 x16",
        INTRA_NODE,
        63.0,
        PCIE_LAT_US,
        "≈63 GB/s per direction, ~128 GB/s bidir (PCI-SIG; H100 datasheet; REFERENCE § 4)",
        NCCL_LAT + ": PCIe",
    ),
    _net(
        "ib_hdr",
        "InfiniBand HDR 200 Gb/s",
        25.0,
        "200 Gb/s 4x port = 25 GB/s per direction, ConnectX-6 (NVIDIA; REFERENCE § 4)",
        "ConnectX-6 adapter: sub-600 ns on IB (vendor specification)",
    ),
    _net(
        "ib_ndr",
        "InfiniBand NDR 400 Gb/s",
        50.0,
        "400 Gb/s 4x port = 50 GB/s per direction, ConnectX-7 (NVIDIA; REFERENCE § 4)",
    ),
    _net(
        "ib_xdr",
        "InfiniBand XDR 800 Gb/s",
        100.0,
        "800 Gb/s 4x port = 100 GB/s per direction, ConnectX-8 (NVIDIA; IBTA roadmap; "
        "REFERENCE § 4)",
    ),
    _net(
        "roce_100",
        "RoCE, 100 GbE",
        12.5,
        "100 Gb/s line rate (IEEE 802.3 100GBASE) ÷ 8 = 12.5 GB/s per direction",
        "ConnectX-6 adapter: sub-0.8 µs on Ethernet (vendor specification); fabric and "
        "congestion control (PFC/ECN) add more (REFERENCE § 6, Q25)",
    ),
    _net(
        "roce_400",
        "RoCE, 400 GbE",
        50.0,
        "400 Gb/s line rate (IEEE 802.3 400GBASE) ÷ 8 = 50 GB/s per direction",
        "fabric and congestion control (PFC/ECN) add to the adapter's latency (REFERENCE § 6)",
    ),
    _net(
        "efa_p4d",
        N_("AWS EFA, p4d (per GPU)"),
        6.25,
        "400 Gbps per p4d instance (AWS instance page; REFERENCE § 4) shared by its 8 A100s: "
        "50 Gb/s = 6.25 GB/s per GPU",
        "NCCL uses the same network constants for every net plugin (aws-ofi-nccl included)",
    ),
    _net(
        "efa_p5",
        N_("AWS EFA, p5 (per GPU)"),
        50.0,
        "3200 Gbps per p5 instance (AWS instance page; REFERENCE § 4) shared by its 8 H100s: "
        "400 Gb/s = 50 GB/s per GPU",
        "NCCL uses the same network constants for every net plugin (aws-ofi-nccl included)",
    ),
)

HARDWARE: dict[str, Link] = {link.key: link for link in LINKS}

# The link between the two CPU sockets of a PCIe server, for the physical topologies
# (app.fabric). Not a choice in the calculators (a collective never runs over it alone), so
# outside LINKS. The figure is NCCL's own: its topology model charges a Sapphire Rapids UPI path
# SRP_QPI_BW = 22 GB/s (NCCL src/graph/topo.h, 2.2x), the rate NCCL plans GPU traffic across
# sockets with; a single UPI 2.0 link peaks higher, and NCCL's figure includes the cost of
# splitting GPU P2P traffic into 64-byte transactions.
SMP_LINK = Link(
    "smp_upi",
    "CPU socket link (UPI, Sapphire Rapids)",
    INTRA_NODE,
    22.0,
    PCIE_LAT_US,
    "NCCL src/graph/topo.h SRP_QPI_BW = 22.0 GB/s: the bandwidth NCCL's topology search "
    "assumes for a path crossing the sockets of a Sapphire Rapids host",
    NCCL_LAT + ": PCIe (NCCL has no separate latency for the socket link)",
)


@dataclass(frozen=True)
class System:
    """A node type: GPUs per node, the link inside a node and the NIC each GPU uses."""

    key: str
    label: str
    gpus_per_node: int
    intra: str  # a HARDWARE key
    inter: str  # a HARDWARE key
    source: str

    def as_dict(self) -> dict:
        """Return the system as plain JSON-ready data."""
        return asdict(self)


SYSTEMS: dict[str, System] = {
    s.key: s
    for s in (
        System(
            "dgx_a100",
            "DGX A100: 8 × A100, NVLink 3, 8 × HDR",
            8,
            "nvlink3",
            "ib_hdr",
            "DGX A100 datasheet: 8× 200G HDR NICs, one per GPU (REFERENCE § 4)",
        ),
        System(
            "dgx_h100",
            "DGX H100: 8 × H100, NVSwitch, 8 × NDR",
            8,
            "nvswitch_h100",
            "ib_ndr",
            "DGX H100 datasheet: 8× 400G NDR NICs, one per GPU (REFERENCE § 4)",
        ),
        System(
            "aws_p4d",
            "AWS p4d: 8 × A100, NVLink 3, EFA 400 Gbps",
            8,
            "nvlink3",
            "efa_p4d",
            "AWS p4d instance page (REFERENCE § 4)",
        ),
        System(
            "aws_p5",
            "AWS p5: 8 × H100, NVLink 4, EFA 3200 Gbps",
            8,
            "nvlink4",
            "efa_p5",
            "AWS p5 instance page (REFERENCE § 4)",
        ),
    )
}


# A measured link ("this machine"): `python -m app.measure ... --save-preset` writes it to the
# instance folder; docs/measure.md describes the file. One file, any number of presets.
MEASURED_FILE = "measured_hardware.json"
MEASURED_FORMAT = 1
_MEASURED_TEXT = ("key", "label", "scope", "bandwidth_source", "latency_source")


def load_measured(path) -> dict[str, Link]:
    """Return the presets kept in the JSON file at `path` ({} when there is none).

    A malformed file raises ValueError naming the field, so a bad measurement never passes
    for a preset quietly.
    """
    import json
    from pathlib import Path

    file = Path(path)
    if not file.exists():
        return {}
    data = json.loads(file.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != MEASURED_FORMAT:
        raise ValueError(f"{file}: format: expected {MEASURED_FORMAT}")
    links = {}
    for i, entry in enumerate(data.get("presets") or []):
        link = _measured_link(entry, f"{file}: presets[{i}]")
        links[link.key] = link
    return links


def _measured_link(entry, where: str) -> Link:
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: not an object")
    for name in _MEASURED_TEXT:
        if not isinstance(entry.get(name), str) or not entry[name]:
            raise ValueError(f"{where}.{name}: missing or not text")
    if entry["scope"] not in (INTRA_NODE, INTER_NODE):
        raise ValueError(f"{where}.scope: not {INTRA_NODE} or {INTER_NODE}")
    numbers = {}
    for name in ("bandwidth_gbs", "latency_us"):
        value = entry.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e9:
            raise ValueError(f"{where}.{name}: not a number in (0, 1e9)")
        numbers[name] = float(value)
    if entry["key"] in {link.key for link in LINKS}:
        raise ValueError(f"{where}.key: {entry['key']!r} is a built-in preset's key")
    text = {name: entry[name] for name in _MEASURED_TEXT}
    return Link(**text, **numbers)


def add_measured(path) -> list[str]:
    """Add the presets kept at `path` to HARDWARE, so every calculator offers them; their keys."""
    measured = load_measured(path)
    HARDWARE.update(measured)
    return list(measured)
