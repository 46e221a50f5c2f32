"""The calculator registry: each calculator is a function with named, validated inputs."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import CostError
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

    def __call__(self, **values: object) -> Result:
        """Fill presets, validate every input and run the calculator."""
        checked = validate(self.fields, fill_presets(self.fields, values))
        return self.function(**checked)

    def as_dict(self) -> dict:
        """Return the calculator's description and input specs for the widget."""
        return {
            "name": self.name,
            "title": self.title,
            "summary": self.summary,
            "fields": [f.as_dict() for f in self.fields],
        }


CALCULATORS: dict[str, Calculator] = {}


def calculator(
    name: str, title: str, summary: str, fields: tuple[Field, ...]
) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
    """Register the decorated function as calculator `name`; calls to it are validated."""

    def wrap(function: Callable[..., Result]) -> Callable[..., Result]:
        if name in CALCULATORS:
            raise RuntimeError(f"calculator {name} registered twice")
        spec = Calculator(name, title, summary, fields, function)
        CALCULATORS[name] = spec

        @functools.wraps(function)
        def validated(**values: object) -> Result:
            return spec(**values)

        return validated

    return wrap


def get(name: str) -> Calculator:
    """Return calculator `name`, or raise CostError listing the calculators."""
    if name not in CALCULATORS:
        raise CostError(f"calculator must be one of {', '.join(CALCULATORS)}; got {name!r}")
    return CALCULATORS[name]
