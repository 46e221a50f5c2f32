"""nccl-tests' size sweep: -b min, -e max (K/M/G suffixes, powers of 1024), -f factor."""

from __future__ import annotations

SUFFIXES = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_bytes(field: str, text: str | int) -> int:
    """Return `text` ("8", "1M", "4K") as bytes; ValueError names `field` when it is not one."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    raw = str(text).strip().upper().removesuffix("B")
    suffix = raw[-1:] if raw[-1:] in SUFFIXES else ""
    digits = raw[: len(raw) - len(suffix)]
    if not digits.isdigit():
        raise ValueError(f"{field}: {text!r} is not a size (digits with an optional K, M or G)")
    return int(digits) * SUFFIXES[suffix]


def sweep_sizes(min_bytes: int, max_bytes: int, factor: int) -> list[int]:
    """Return the sizes nccl-tests visits: min, min×f, min×f², ... up to and including max."""
    sizes, size = [], min_bytes
    while size <= max_bytes:
        sizes.append(size)
        size *= factor
    return sizes
