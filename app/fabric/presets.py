"""Which hardware preset a topology's links take their figures from (app.costs.hardware).

A preset is a link key of `HARDWARE` (one link class) or a node type of `SYSTEMS` (an
intra-node link, a NIC per GPU, GPUs per node). No figure is copied here: every bandwidth and
latency is read from the preset at build time.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.costs import HARDWARE, SYSTEMS, Link
from app.costs.hardware import SMP_LINK

from .errors import FabricError

# The PCIe generation between a system's GPUs and NICs: A100 hosts are PCIe 4, H100 hosts PCIe 5
# (the GPUs' datasheets, REFERENCE § 4). Keys only; the figures are HARDWARE's.
SYSTEM_PCIE = {"dgx_a100": "pcie4", "aws_p4d": "pcie4", "dgx_h100": "pcie5", "aws_p5": "pcie5"}


@dataclass(frozen=True)
class Resolved:
    """A preset read for a builder: the links it uses and its node size, if it has one."""

    key: str
    intra: Link
    inter: Link
    pcie: Link
    smp: Link
    gpus_per_node: int | None


def resolve(key: object, allowed: tuple[str, ...]) -> Resolved:
    """Return the links of preset `key`, which must be one of `allowed`."""
    if not isinstance(key, str) or key not in allowed:
        shown = repr(key)[:60]
        raise FabricError(f"preset must be one of {', '.join(allowed)}; got {shown}")
    if key in SYSTEMS:
        system = SYSTEMS[key]
        pcie = HARDWARE[SYSTEM_PCIE.get(key, "pcie5")]
        intra, inter = HARDWARE[system.intra], HARDWARE[system.inter]
        return Resolved(key, intra, inter, pcie, SMP_LINK, system.gpus_per_node)
    link = HARDWARE[key]
    return Resolved(key, link, link, link, SMP_LINK, None)


def link_keys(*prefixes: str) -> tuple[str, ...]:
    """Return the HARDWARE keys starting with one of `prefixes` (all keys when none given)."""
    return tuple(k for k in HARDWARE if not prefixes or k.startswith(prefixes))


def system_keys() -> tuple[str, ...]:
    """Return the node types (SYSTEMS keys)."""
    return tuple(SYSTEMS)
