"""Format seconds, bytes and bandwidths for the explanations the cost model writes."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

GB = 1e9  # REFERENCE § 1: GB/s means 1e9 bytes per second, as nccl-tests
BINARY, DECIMAL = "binary", "decimal"
SIZE_UNITS = {
    BINARY: ((2.0**40, "TiB"), (2.0**30, "GiB"), (2.0**20, "MiB"), (2.0**10, "KiB")),
    DECIMAL: ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")),
}
_FAMILY: ContextVar[str | None] = ContextVar("size_family", default=None)


@contextmanager
def size_family(family: str) -> Iterator[None]:
    """Within the block, `size` writes every byte count in one family (BINARY or DECIMAL).

    A calculator's panel uses this so its sentence, formula and labels never mix MiB and MB.
    """
    token = _FAMILY.set(family)
    try:
        yield
    finally:
        _FAMILY.reset(token)


def seconds(value_s: float) -> str:
    """Format a duration with a unit that keeps 3-4 significant digits (ns, µs, ms, s)."""
    if value_s == 0:
        return "0 s"
    magnitude = abs(value_s)
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if magnitude >= scale:
            return f"{value_s / scale:.4g} {unit}"
    return f"{value_s / 1e-9:.4g} ns"


def size(value_bytes: float) -> str:
    """Format a byte count: in the family `size_family` set, if any; otherwise binary units for
    exact powers of two and decimal units for the rest."""
    if value_bytes <= 0:
        return f"{value_bytes:g} B"
    family = _FAMILY.get()
    if family is not None:
        for scale, unit in SIZE_UNITS[family]:
            if value_bytes >= scale:
                return f"{value_bytes / scale:.4g} {unit}"
        return f"{value_bytes:.4g} B"
    exponent = math.log2(value_bytes)
    if exponent == int(exponent) and exponent >= 10:
        for shift, unit in ((40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")):
            if exponent >= shift:
                return f"{value_bytes / 2**shift:g} {unit}"
    for scale, unit in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if value_bytes >= scale:
            return f"{value_bytes / scale:.4g} {unit}"
    return f"{value_bytes:.4g} B"


def bandwidth(value_gbs: float) -> str:
    """Format a bandwidth given in GB/s (1e9 bytes per second)."""
    return f"{value_gbs:.4g} GB/s"


def number(value: float) -> str:
    """Format a coefficient compactly (integers without a decimal point)."""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.4g}"
