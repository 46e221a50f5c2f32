"""Named, validated calculator inputs: one spec per input drives validation, HTTP parsing and
the widget (label, unit, range, slider scale, default).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from app.i18n import N_

from .. import units
from ..checks import choice, integer, number
from ..errors import CostError
from ..hardware import HARDWARE, INTER_NODE, INTRA_NODE
from ..model import MAX_BANDWIDTH_GBS, MAX_LATENCY_US, MAX_MESSAGE_BYTES, MIN_BANDWIDTH_GBS
from ..nccl_tests import MAX_RANKS

INT, FLOAT, CHOICE, PRESET, BOOL = "int", "float", "choice", "preset", "bool"
LIST = "list"  # a comma-separated list of names; the calculator checks the names themselves
MAX_LIST_CHARS = 200


@dataclass(frozen=True)
class Field:
    """One input of a calculator."""

    name: str
    label: str
    kind: str  # INT, FLOAT, CHOICE, PRESET (a HARDWARE key that fills `fills`), BOOL, LIST
    default: object
    low: float = 0.0
    high: float = math.inf
    low_inclusive: bool = True
    choices: tuple[str, ...] = ()
    unit: str = ""  # "bytes", "us", "gbs", "ms", "" — how the widget shows and converts it
    scale: str = "linear"  # "log2": the widget's slider moves in powers of two
    help: str = ""
    fills: tuple[str, ...] = ()  # for PRESET: the latency and bandwidth fields it sets
    choice_labels: tuple[str, ...] = field(default=())

    def check(self, value: object) -> object:
        """Return `value` validated and converted for this field, or raise CostError."""
        if self.kind == INT:
            return integer(self.name, value, low=int(self.low), high=int(self.high))
        if self.kind == FLOAT:
            return number(
                self.name, value, low=self.low, high=self.high, low_inclusive=self.low_inclusive
            )
        if self.kind in (CHOICE, PRESET):
            return choice(self.name, value, self.choices)
        if self.kind == BOOL:
            if not isinstance(value, bool):
                raise CostError(f"{self.name} must be true or false, got {value!r}")
            return value
        if self.kind == LIST:
            return name_list(self.name, value)
        raise RuntimeError(f"unknown field kind {self.kind}")

    def slider(self) -> dict | None:
        """Return the widget's slider range, or None when a number box alone fits better.

        log2 fields slide over whole powers of two; small integer ranges slide linearly.
        """
        if self.scale == "log2":
            low = math.ceil(math.log2(max(self.low, 1.0)))
            high = math.floor(math.log2(min(self.high, 2.0**45)))
            return {"min": low, "max": high, "step": 1, "log2": True}
        if self.kind == INT and self.high - self.low <= 128:
            return {"min": self.low, "max": self.high, "step": 1, "log2": False}
        return None

    def as_dict(self) -> dict:
        """Return the spec as JSON-ready data for the widget."""
        data = {
            "name": self.name,
            "label": self.label,
            "kind": self.kind,
            "default": self.default,
            "unit": self.unit,
            "scale": self.scale,
            "help": self.help,
        }
        if self.kind in (INT, FLOAT):
            data.update(low=self.low, high=None if math.isinf(self.high) else self.high)
            data["slider"] = self.slider()
        if self.kind in (CHOICE, PRESET):
            labels = self.choice_labels or self.choices
            data["choices"] = [
                {"value": v, "label": lab} for v, lab in zip(self.choices, labels, strict=True)
            ]
        if self.fills:
            data["fills"] = list(self.fills)
        return data


def name_list(name: str, value: object) -> str:
    """Return a comma list of names, spaces and empty items dropped ("" for none), or raise.

    Only the shape is checked here; which names are allowed depends on other inputs (the
    collective), so the calculator checks them.
    """
    if not isinstance(value, str) or len(value) > MAX_LIST_CHARS:
        raise CostError(
            f"{name} must be a comma-separated list of names, at most {MAX_LIST_CHARS} "
            f"characters, got {value!r:.60}"
        )
    return ",".join(item.strip() for item in value.split(",") if item.strip())


# How many GPUs a node holds, for the calculators that split GPUs into nodes.
GPUS_PER_NODE = Field("gpus_per_node", N_("GPUs per node"), INT, 8, low=1, high=1024)


def validate(fields: tuple[Field, ...], values: dict) -> dict:
    """Return every field's validated value: given ones checked, missing ones defaulted."""
    known = {f.name for f in fields}
    unknown = sorted(set(values) - known)
    if unknown:
        raise CostError(
            f"unknown input {unknown[0]!r}; allowed: {', '.join(f.name for f in fields)}"
        )
    out = {}
    for f in fields:
        out[f.name] = f.check(values.get(f.name, f.default))  # None: "... is required"
    return out


def within_one_message(size_bytes: float, made_of: str) -> float:
    """Return `size_bytes` if one collective may carry it, else raise naming the inputs.

    Calculators multiply their inputs into message sizes (b·s·h·bytes, c·T·k·h·s, Ψ·bytes);
    each input can be in range while the product is not, and the cost model's own error
    would name `message_bytes`, which the calculator's reader never typed.
    """
    if size_bytes > MAX_MESSAGE_BYTES:
        raise CostError(
            f"{made_of} = {units.size(size_bytes)}, more than the "
            f"{units.size(MAX_MESSAGE_BYTES)} one message may carry: lower one of them"
        )
    return size_bytes


def within_rank_limit(ranks: int, made_of: str) -> int:
    """Return `ranks` if the cost model takes that many, else raise naming the inputs."""
    if ranks > MAX_RANKS:
        raise CostError(f"{made_of} = {ranks:,} GPUs; the model takes at most {MAX_RANKS}")
    return ranks


def fill_presets(fields: tuple[Field, ...], values: dict) -> dict:
    """Return `values` with the latency and bandwidth of any chosen preset filled in where the
    caller did not give them; a preset's own value is kept for the echo."""
    out = dict(values)
    for f in fields:
        if f.kind != PRESET or not f.fills:
            continue
        key = out.get(f.name, f.default)
        if key == "custom" or key is None:
            continue
        link = HARDWARE.get(str(key))
        if link is None:
            f.check(key)  # raises with the list of presets
        latency_name, bandwidth_name = f.fills
        out.setdefault(latency_name, link.latency_us)
        out.setdefault(bandwidth_name, link.bandwidth_gbs)
    return out


def _presets(scope: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    links = [link for link in HARDWARE.values() if scope is None or link.scope == scope]
    keys = tuple(link.key for link in links) + ("custom",)
    labels = tuple(link.label for link in links) + (N_("Custom"),)
    return keys, labels


def link_fields(default: str = "ib_ndr", *, scope: str | None = None) -> tuple[Field, ...]:
    """Return the preset select plus latency and bandwidth inputs of the main link."""
    keys, labels = _presets(scope)
    link = HARDWARE[default]
    return (
        Field(
            "hardware",
            N_("Link"),
            PRESET,
            default,
            choices=keys,
            choice_labels=labels,
            fills=("latency_us", "bandwidth_gbs"),
            help=N_("A preset fills latency and bandwidth; edit them to try your own link."),
        ),
        Field(
            "latency_us",
            N_("Latency α per step"),
            FLOAT,
            link.latency_us,
            high=MAX_LATENCY_US,
            unit="us",
            help=N_("Seconds per message, in µs (NCCL model constants by default)."),
        ),
        Field(
            "bandwidth_gbs",
            N_("Bandwidth per direction"),
            FLOAT,
            link.bandwidth_gbs,
            low=MIN_BANDWIDTH_GBS,
            high=MAX_BANDWIDTH_GBS,
            unit="gbs",
            help=N_("Per GPU, per direction; GB/s = 1e9 bytes/s, as nccl-tests counts."),
        ),
    )


def intra_link_fields(default: str = "nvswitch_h100") -> tuple[Field, ...]:
    """Return the intra-node link's preset select, latency and bandwidth: the main link's
    fields under the intra_ names, offering the intra-node presets."""
    hardware, latency, bandwidth = link_fields(default, scope=INTRA_NODE)
    return (
        replace(
            hardware,
            name="intra_hardware",
            label=N_("Intra-node link"),
            fills=("intra_latency_us", "intra_bandwidth_gbs"),
            help=N_("The link between GPUs of one node."),
        ),
        replace(latency, name="intra_latency_us", label=N_("Intra-node latency")),
        replace(bandwidth, name="intra_bandwidth_gbs", label=N_("Intra-node bandwidth")),
    )


def link_inputs(values: dict, *, intra: bool = False) -> dict:
    """Return the main link's latency and bandwidth from a calculator's validated values, or
    the intra-node link's, under the names `cost` takes."""
    prefix = "intra_" if intra else ""
    return {
        "latency_us": values[prefix + "latency_us"],
        "bandwidth_gbs": values[prefix + "bandwidth_gbs"],
    }


def inter_link_fields(default: str = "ib_ndr") -> tuple[Field, ...]:
    """Return the main link's fields restricted to inter-node presets."""
    return link_fields(default, scope=INTER_NODE)
