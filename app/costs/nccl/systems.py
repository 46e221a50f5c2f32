"""The systems NCCL's tuning model is run on: what its topology detection would find.

A system is a node type (GPUs, how they are linked, the NICs and the CPU) and the number of
nodes comes with each query. Link speeds come from `app.costs.hardware` (one source of truth):
a NIC's NCCL bandwidth is its line rate in GB/s, as NCCL reads it (topo.cc 418: `mbps /
8000`), and the α-β comparison uses the same `HARDWARE` presets. What NCCL assigns an NVLink
or a PCIe link is *not* the datasheet figure but its own constant (topo.h 17-35: 20 GB/s per
Ampere NVLink, 20.6 Hopper, 40.1 Blackwell; topo.cc 545-557 and 656-657: PCIe bandwidth =
lanes × per-lane rate / 80, so Gen4 x16 = 24 GB/s and Gen5 x16 = 48 GB/s).

Only NVSwitch systems (every GPU one hop from every other) and PCIe-only nodes are modelled:
NVLink meshes without a switch (DGX-1, 2-GPU bridges) need NCCL's path search to find rings.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from app.i18n import N_

from ..hardware import HARDWARE, SYSTEMS
from .constants import ARCHES, NVLINK_BW


@dataclass(frozen=True)
class NcclSystem:
    """One node type as NCCL's topology detection sees it."""

    key: str
    label: str
    arch: str  # one of constants.ARCHES
    gpus_per_node: int
    nvlinks_per_gpu: int  # 0: GPUs talk over PCIe only
    pci_gbs: float  # NCCL's bandwidth of the GPU's and NIC's PCIe link
    nics_per_node: int
    nic: str  # a HARDWARE key (inter-node)
    intra: str  # a HARDWARE key (intra-node), for the α-β comparison
    cpu: str  # "intel", "amd" or "other": NCCL's LL caps and network overhead depend on it
    source: str

    def __post_init__(self) -> None:
        if self.arch not in ARCHES:
            raise ValueError(f"{self.key}: arch {self.arch!r} not one of {ARCHES}")
        if self.nic not in HARDWARE or self.intra not in HARDWARE:
            raise ValueError(f"{self.key}: unknown HARDWARE link")

    @property
    def nvlink_gbs(self) -> float:
        """NCCL's bandwidth between a GPU and the NVSwitches: links × its per-link constant."""
        return self.nvlinks_per_gpu * NVLINK_BW[self.arch]

    @property
    def nic_gbs(self) -> float:
        """One NIC's bandwidth as NCCL reads it (the HARDWARE preset's line rate)."""
        return HARDWARE[self.nic].bandwidth_gbs

    def as_dict(self) -> dict:
        """Return JSON-ready data, with the derived bandwidths NCCL works from."""
        data = asdict(self)
        data.update(nvlink_gbs=self.nvlink_gbs, nic_gbs=self.nic_gbs)
        return data


def _from_hardware(key: str, **nccl: object) -> NcclSystem:
    """Build a preset on top of `hardware.SYSTEMS[key]`: GPUs per node and links come from it."""
    base = SYSTEMS[key]
    return NcclSystem(
        key=key,
        label=base.label,
        gpus_per_node=base.gpus_per_node,
        nic=base.inter,
        intra=base.intra,
        **nccl,
    )


NCCL_SYSTEMS: dict[str, NcclSystem] = {
    s.key: s
    for s in (
        _from_hardware(
            "dgx_a100",
            arch="ampere",
            nvlinks_per_gpu=12,
            pci_gbs=24.0,
            nics_per_node=8,
            cpu="amd",
            source="DGX A100 datasheet: 8 × A100 SXM4 (12 NVLink 3 each), 6 NVSwitches, "
            "8 × ConnectX-6 HDR 200 Gb/s on PCIe Gen4 switches, dual AMD EPYC 7742",
        ),
        _from_hardware(
            "dgx_h100",
            arch="hopper",
            nvlinks_per_gpu=18,
            pci_gbs=48.0,
            nics_per_node=8,
            cpu="intel",
            source="DGX H100 datasheet: 8 × H100 SXM5 (18 NVLink 4 each), 4 NVSwitches, "
            "8 × ConnectX-7 NDR 400 Gb/s on PCIe Gen5, dual Intel Xeon 8480C",
        ),
        NcclSystem(
            key="dgx_b200",
            label="DGX B200: 8 × B200, NVLink 5, 8 × NDR",
            arch="blackwell",
            gpus_per_node=8,
            nvlinks_per_gpu=18,
            pci_gbs=48.0,
            nics_per_node=8,
            nic="ib_ndr",
            intra="nvlink5",
            cpu="intel",
            source="DGX B200 datasheet: 8 × B200 (18 NVLink 5 each, 1.8 TB/s), 2 NVSwitch "
            "chips, 8 × ConnectX-7 400 Gb/s on PCIe Gen5, dual Intel Xeon 8570",
        ),
        NcclSystem(
            key="hgx_a100_4nic",
            label=N_("HGX A100 with 4 × HDR (one NIC per two GPUs)"),
            arch="ampere",
            gpus_per_node=8,
            nvlinks_per_gpu=12,
            pci_gbs=24.0,
            nics_per_node=4,
            nic="ib_hdr",
            intra="nvlink3",
            cpu="intel",
            source="A common HGX A100 build: the DGX A100 baseboard with four ConnectX-6 HDR "
            "NICs instead of eight (e.g. NVIDIA/nccl-tests#100, #119); CPU vendor assumed Intel",
        ),
    )
}
