"""Validate cost-model inputs in one place, with messages that name the field and its range."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

from .errors import CostError


def _finite(name: str, value: object, allowed: str) -> float:
    """Return `value` as a float if it is a finite real number (not a bool), else raise: the
    check every numeric input starts with, before its own range check."""
    if value is None:
        raise CostError(f"{name} is required: {allowed}")
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise CostError(f"{name} must be {allowed}, got {value!r:.60}")
    as_float = float(value)
    if math.isnan(as_float) or math.isinf(as_float):
        raise CostError(f"{name} must be {allowed}, got {as_float}")
    return as_float


def number(
    name: str,
    value: object,
    *,
    low: float = 0.0,
    high: float = math.inf,
    low_inclusive: bool = True,
) -> float:
    """Return `value` as a float after checking it is finite and in range, naming `name`."""
    bracket = "[" if low_inclusive else "("
    allowed = f"a number in {bracket}{low:g}, {high:g}]"
    value = _finite(name, value, allowed)
    if value < low or value > high or (value == low and not low_inclusive):
        raise CostError(f"{name} must be {allowed}, got {value:g}")
    return value


def integer(name: str, value: object, *, low: int, high: int) -> int:
    """Return `value` as an int after checking it is a whole number in [low, high]."""
    allowed = f"an integer in {low}..{high}"
    as_float = _finite(name, value, allowed)
    if as_float != int(as_float):
        raise CostError(f"{name} must be {allowed}, got {value!r:.60}")
    result = int(as_float)
    if result < low or result > high:
        raise CostError(f"{name} must be {allowed}, got {result}")
    return result


def choice(name: str, value: object, allowed: Iterable[str]) -> str:
    """Return `value` if it is one of `allowed`, else raise naming the options."""
    options = list(allowed)
    if value not in options:
        raise CostError(f"{name} must be one of {', '.join(options)}; got {value!r:.60}")
    return str(value)
