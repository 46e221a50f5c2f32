"""Inputs as text: a query string, an embed's URL or a lesson's @calc directive gives every
value as a string. This types them by the field specs, fills link presets, and names every
field as the caller spelled it, for the calculators and for /api/cost and /api/cost/compare.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ..checks import number
from ..errors import CostError
from ..model import MAX_MESSAGE_BYTES
from .fields import BOOL, FLOAT, INT, fill_presets, link_fields
from .registry import CALCULATORS, Calculator
from .result import Result

TRUE, FALSE = ("1", "true", "on", "yes"), ("0", "false", "off", "no")


def number_or_text(text: str) -> float | str:
    """Return `text` as a float, or unchanged so the field's check names the field and range."""
    try:
        return float(text)
    except ValueError:
        return text


def calculator_inputs(spec: Calculator, args: Mapping[str, str]) -> dict:
    """Type a calculator's text inputs by its field specs; an unknown name is an error."""
    kinds = {f.name: f.kind for f in spec.fields}
    values: dict = {}
    for key, text in args.items():
        kind = kinds.get(key)
        if kind is None:
            raise CostError(_unknown(spec, key))
        if kind in (INT, FLOAT):
            values[key] = number_or_text(text)
        elif kind == BOOL:
            lowered = text.lower()
            if lowered not in TRUE + FALSE:
                raise CostError(f"{key} must be true or false, got {text!r}")
            values[key] = lowered in TRUE
        else:
            values[key] = text
    return values


def run_calculator(name: str, args: Mapping[str, str]) -> Result:
    """Run calculator `name` on text inputs; raise CostError naming the input that is wrong."""
    spec = CALCULATORS[name]
    return spec(**calculator_inputs(spec, args))


def run_widget(name: str, args: Mapping[str, str]) -> tuple[Result, str | None]:
    """Run calculator `name` as a widget does, and return the result and the error to show.

    Inputs it does not know are left out and bad values fall back to the defaults, so the
    widget always has numbers to show beside the error a lesson's author must see.
    """
    spec = CALCULATORS[name]
    names = [f.name for f in spec.fields]
    unknown = [key for key in args if key not in names]
    error = _unknown(spec, unknown[0]) if unknown else None
    try:
        return run_calculator(name, {k: v for k, v in args.items() if k in names}), error
    except CostError as e:
        return spec(), str(e)


def _unknown(spec: Calculator, key: str) -> str:
    """Say that `key` is no input of the calculator, and list the inputs it has."""
    names = ", ".join(f.name for f in spec.fields)
    return f"unknown input {key!r} for {spec.name}; allowed: {names}"


# -- /api/cost and /api/cost/compare ---------------------------------------------------------

TEXT_INPUTS = ("collective", "algorithm", "hardware", "intra_hardware")
INTEGER_INPUTS = ("ranks", "ranks_per_node", "segments", "root")
FLOAT_INPUTS = (
    "bytes",
    "latency_us",
    "bandwidth_gbs",
    "gamma_s_per_byte",
    "intra_latency_us",
    "intra_bandwidth_gbs",
)
COST_PARAMS = (*TEXT_INPUTS, *INTEGER_INPUTS, *FLOAT_INPUTS)
COMPARE_PARAMS = tuple(p for p in COST_PARAMS if p not in ("algorithm", "segments", "root"))

# Any link may fill either link's latency and bandwidth; with no preset given, both are required.
_HARDWARE = replace(link_fields()[0], default=None)
LINK_PRESETS = (
    _HARDWARE,
    replace(_HARDWARE, name="intra_hardware", fills=("intra_latency_us", "intra_bandwidth_gbs")),
)


def cost_inputs(args: Mapping[str, str]) -> dict:
    """Return the keyword arguments of `cost` for /api/cost's query arguments."""
    values = _link_inputs(args, COST_PARAMS)
    _require(values, "collective", "algorithm")
    return _message_bytes(values)


def compare_inputs(args: Mapping[str, str]) -> dict:
    """Return the keyword arguments of `rank_algorithms` for /api/cost/compare's arguments."""
    values = _link_inputs(args, COMPARE_PARAMS)
    _require(values, "collective")
    return _message_bytes(values)


def _link_inputs(args: Mapping[str, str], allowed: tuple[str, ...]) -> dict:
    """Type the query's values, and fill latency and bandwidth from the link presets."""
    unknown = sorted(set(args) - set(allowed))
    if unknown:
        raise CostError(f"unknown parameter {unknown[0]!r}; allowed: {', '.join(allowed)}")
    values = {
        name: args[name] if name in TEXT_INPUTS else number_or_text(args[name])
        for name in allowed
        if name in args
    }
    _require(values, "ranks", "bytes")
    values = fill_presets(LINK_PRESETS, values)
    for preset in LINK_PRESETS:
        values.pop(preset.name, None)
    for name in ("latency_us", "bandwidth_gbs"):
        if name not in values:
            raise CostError(f"{name} is required (or give hardware=<preset>)")
    return values


def _require(values: dict, *names: str) -> None:
    """Raise naming the first of `names` the query left out."""
    for name in names:
        if name not in values:
            raise CostError(f"{name} is required")


def _message_bytes(values: dict) -> dict:
    """Check `bytes` under the name the URL gives it, then pass it on as `message_bytes`.

    The model would name its own parameter; the caller typed `bytes`. Checked after the
    query's other checks, which is where the model's turn to check it would come.
    """
    values["message_bytes"] = number("bytes", values.pop("bytes"), high=MAX_MESSAGE_BYTES)
    return values
