"""The calculator registry: each calculator is a function with named, validated inputs."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace

from .. import units
from .fields import Field, fill_presets, validate
from .result import Result


@dataclass(frozen=True)
class Calculator:
    """A named calculator: its inputs and the function that answers."""

    name: str
    title: str
    summary: str
    fields: tuple[Field, ...]
    function: Callable[..., Result]
    sizes: str = units.BINARY  # the unit family of its sizes when the inputs do not decide

    def __call__(self, **values: object) -> Result:
        """Fill presets, validate every input and run the calculator, writing every size in
        one unit family (the result's `sizes`)."""
        checked = validate(self.fields, fill_presets(self.fields, values))
        family = self.size_family(checked)
        with units.size_family(family):
            result = self.function(**checked)
        return replace(result, sizes=family)

    def size_family(self, values: dict) -> str:
        """Return the unit family that writes the given sizes roundly: a message of 25 MiB
        keeps the panel binary, one of 1 GB decimal; otherwise the calculator's own family."""
        given = [values[f.name] for f in self.fields if f.unit == "bytes"]
        for family, other in ((units.DECIMAL, units.BINARY), (units.BINARY, units.DECIMAL)):
            if any(_round_in(family, v) and not _round_in(other, v) for v in given):
                return family
        return self.sizes

    def as_dict(self) -> dict:
        """Return the calculator's description and input specs for the widget."""
        return {
            "name": self.name,
            "title": self.title,
            "summary": self.summary,
            "fields": [f.as_dict() for f in self.fields],
        }


def _round_in(family: str, value_bytes: float) -> bool:
    """Whether `value_bytes` reads as at most three significant digits in `family`."""
    for scale, _unit in units.SIZE_UNITS[family]:
        if value_bytes >= scale:
            amount = value_bytes / scale
            return float(f"{amount:.3g}") == amount
    return True  # under 1 KiB: whole bytes either way


CALCULATORS: dict[str, Calculator] = {}


def calculator(
    name: str, title: str, summary: str, fields: tuple[Field, ...], sizes: str = units.BINARY
) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
    """Register the decorated function as calculator `name`; calls to it are validated.

    `sizes` is the unit family its sizes are written in when no size input decides it:
    DECIMAL where sizes come from parameter or token counts (as the lessons write them),
    BINARY otherwise.
    """

    def wrap(function: Callable[..., Result]) -> Callable[..., Result]:
        if name in CALCULATORS:
            raise RuntimeError(f"calculator {name} registered twice")
        spec = Calculator(name, title, summary, fields, function, sizes)
        CALCULATORS[name] = spec

        @functools.wraps(function)
        def validated(**values: object) -> Result:
            return spec(**values)

        return validated

    return wrap
