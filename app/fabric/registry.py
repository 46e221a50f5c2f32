"""The topologies by name, with their parameters, presets and ranges; `topology(...)` builds one.

A parameter is a calculator input spec (`app.costs.calculators.fields.Field`): the same check
and the same JSON form as the calculators' inputs. A bad one raises `FabricError` naming the
field, the allowed range and the value, e.g. "nodes must be an integer in 1..32, got 0
(topology fat_tree)". `/api/topologies` lists `TOPOLOGIES` so the race form is built from the
server.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from app.costs import CostError
from app.costs.calculators.fields import FLOAT, INT, Field
from app.costs.calculators.query import number_or_text

from ..i18n import N_
from . import multi_node, single_node
from .errors import FabricError
from .graph import Topology
from .presets import link_keys, resolve, system_keys


@dataclass(frozen=True)
class Spec:
    """A topology's name, what it is, its parameters and the presets its links may take."""

    name: str
    label: str
    description: str
    params: tuple[Field, ...]  # the calculators' input spec: one check, one widget format
    presets: Callable[[], tuple[str, ...]]
    default_preset: str
    build: Callable[..., Topology]
    sized_by_ranks: bool = False  # the GPU count is the rank count (the flat networks)

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "label": self.label,
            "description": self.description,
            "params": [p.as_dict() for p in self.params],
            "presets": list(self.presets()),
            "default_preset": self.default_preset,
            "sized_by_ranks": self.sized_by_ranks,
        }


def _param(name: str, kind: str, default: float, low: float, high: float, label: str) -> Field:
    """A topology parameter: a calculator-style input with its range."""
    return Field(name, label, kind, default, low, high)


GPUS_PER_NODE = _param("gpus_per_node", INT, 8, 1, 64, N_("GPUs per node (intra-node link)"))


def _flat(ranks, preset, gpus_per_node):
    return single_node.flat(ranks, preset, int(gpus_per_node))


def _torus(*axes: str) -> Callable[..., Topology]:
    def build(ranks, preset, **dims):
        return multi_node.torus(ranks, preset, tuple(int(dims[a]) for a in axes))

    return build


AXIS_LABELS = {
    "x": N_("GPUs along the x axis"),
    "y": N_("GPUs along the y axis"),
    "z": N_("GPUs along the z axis"),
}


def _axis(name: str, default: int, high: int) -> Field:
    return _param(name, INT, default, 2, high, AXIS_LABELS[name])


TOPOLOGIES: dict[str, Spec] = {
    s.name: s
    for s in (
        Spec(
            "flat",
            N_("Flat (α-β model)"),
            N_(
                "The α-β model's network: a dedicated wire per pair of GPUs, the preset's "
                "intra-node link inside a node and its network link between nodes."
            ),
            (GPUS_PER_NODE,),
            lambda: link_keys() + system_keys(),
            "ib_ndr",
            _flat,
            sized_by_ranks=True,
        ),
        Spec(
            "flat_switch",
            N_("Flat switch (one port per GPU)"),
            N_(
                "Each GPU has one port into an ideal non-blocking switch: what a GPU sends in a "
                "step shares its port (the α-β model's rule for the all-port direct algorithms)."
            ),
            (),
            lambda: link_keys() + system_keys(),
            "ib_ndr",
            lambda ranks, preset: single_node.flat_switch(ranks, preset),
            sized_by_ranks=True,
        ),
        Spec(
            "nvswitch",
            N_("NVSwitch node (HGX H100)"),
            N_("Up to 8 GPUs, any pair at full NVLink rate through NVSwitch."),
            (_param("gpus", INT, 8, 2, 8, N_("GPUs in the node")),),
            lambda: link_keys("nvlink", "nvswitch"),
            "nvswitch_h100",
            lambda ranks, preset, gpus: single_node.nvswitch(ranks, preset, int(gpus)),
        ),
        Spec(
            "pcie",
            N_("PCIe node (two sockets)"),
            N_(
                "GPUs under PCIe switches under two CPU sockets; pairs across sockets cross the "
                "SMP (UPI) link."
            ),
            (
                _param("gpus", INT, 8, 2, 16, N_("GPUs in the node")),
                _param("gpus_per_switch", INT, 2, 1, 8, N_("GPUs under each PCIe switch")),
            ),
            lambda: link_keys("pcie"),
            "pcie4",
            lambda ranks, preset, gpus, gpus_per_switch: single_node.pcie(
                ranks, preset, int(gpus), int(gpus_per_switch)
            ),
        ),
        Spec(
            "nvl72",
            N_("GB200 NVL72 rack"),
            N_("72 GPUs in 18 trays of 4, one NVLink domain through the NVLink switch trays."),
            (),
            lambda: ("nvl72",),
            "nvl72",
            lambda ranks, preset: single_node.nvl72(ranks, preset),
        ),
        Spec(
            "fat_tree",
            N_("Multi-node, rail-optimized fat-tree"),
            N_(
                "N nodes × g GPUs on NVSwitch, one NIC per GPU, NIC j on leaf j (rail j), every "
                "leaf joined to every spine; oversubscription = a leaf's down/up bandwidth ratio."
            ),
            (
                _param("nodes", INT, 2, 1, 32, N_("nodes (servers)")),
                _param("gpus_per_node", INT, 8, 1, 8, N_("GPUs (and NICs, rails) per node")),
                _param("oversubscription", FLOAT, 1, 1, 16, N_("leaf down:up bandwidth ratio")),
                _param(
                    "spines", INT, 4, 1, 32, N_("spine switches (equal-cost paths between rails)")
                ),
            ),
            system_keys,
            "dgx_h100",
            lambda ranks, preset, **p: multi_node.fat_tree(
                ranks,
                preset,
                int(p["nodes"]),
                int(p["gpus_per_node"]),
                float(p["oversubscription"]),
                int(p["spines"]),
            ),
        ),
        Spec(
            "torus2d",
            N_("2D torus"),
            N_(
                "GPUs on an x × y wrap-around grid, each linked to its four neighbours (TPU-style)."
            ),
            (_axis("x", 4, 16), _axis("y", 4, 16)),
            link_keys,
            "nvlink4",
            _torus("x", "y"),
        ),
        Spec(
            "torus3d",
            N_("3D torus"),
            N_("GPUs on an x × y × z wrap-around grid, each linked to its six neighbours."),
            (_axis("x", 4, 8), _axis("y", 4, 8), _axis("z", 4, 8)),
            link_keys,
            "nvlink4",
            _torus("x", "y", "z"),
        ),
    )
}


def _value(topology: str, param: Field, value: object) -> float:
    """Check one parameter (a number or its text) with its field's own check."""
    try:
        return param.check(number_or_text(value) if isinstance(value, str) else value)
    except CostError as error:
        raise FabricError(f"{error} (topology {topology})") from None


def check_params(name: object, params: Mapping[str, object]) -> tuple[Spec, dict]:
    """Return the spec and the full, checked parameters of topology `name` (defaults filled)."""
    if not isinstance(name, str) or name not in TOPOLOGIES:
        raise FabricError(f"topology must be one of {', '.join(TOPOLOGIES)}; got {name!r:.40}")
    spec = TOPOLOGIES[name]
    known = {p.name for p in spec.params}
    unknown = sorted(k for k in params if k not in known)
    if unknown:
        allowed = ", ".join(sorted(known)) or "none"
        raise FabricError(
            f"{unknown[0][:40]} is not a parameter of topology {name}; its parameters: {allowed}"
        )
    values = {p.name: _value(name, p, params.get(p.name, p.default)) for p in spec.params}
    return spec, values


def topology(name: str, *, ranks: int, preset: str | None = None, **params: object) -> Topology:
    """Build topology `name` for `ranks` ranks with checked parameters (cached; do not modify).

    `preset` is a link key of app.costs HARDWARE or a node type of SYSTEMS, as the topology
    allows (`TOPOLOGIES[name].presets()`); None takes its default.
    """
    spec, values = check_params(name, params)
    preset = spec.default_preset if preset is None else preset
    resolve(preset, spec.presets())
    size = int(ranks) if spec.sized_by_ranks else 0
    return _built(name, preset, size, tuple(sorted(values.items())))


@lru_cache(maxsize=16)  # ≤ 512 GPUs each: fat-tree 32 × 8, torus 16 × 16 or 8 × 8 × 8
def _built(name: str, preset: str, ranks: int, values: tuple) -> Topology:
    spec = TOPOLOGIES[name]
    topo = spec.build(ranks, resolve(preset, spec.presets()), **dict(values))
    topo.params = dict(values)
    topo.preset = preset
    return topo
