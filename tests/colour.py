"""Colour arithmetic for tests: sRGB to CIE L*a*b*, as seen with normal vision or as a
deuteranope or protanope sees it, the CIE76 difference, and WCAG's contrast ratio."""

from __future__ import annotations

import re


def rgb(colour: str) -> tuple[float, float, float]:
    colour = colour.strip()
    if colour.startswith("#"):
        return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return tuple(float(v) for v in re.findall(r"[\d.]+", colour)[:3])


# How a colour looks to a dichromat: Machado, Oliveira & Fernandes (2009), severity 1, applied
# to linear RGB.
DICHROMATS = {
    "normal": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "deuteranope": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "protanope": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
}


def lab(colour: str, vision: str = "normal") -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an sRGB colour as seen with `vision`."""

    def linear(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    seen = [linear(c) for c in rgb(colour)]
    r, g, b = (
        min(1, max(0, sum(m * c for m, c in zip(row, seen, strict=True))))
        for row in DICHROMATS[vision]
    )
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def delta_e(a: str, b: str, vision: str = "normal") -> float:
    """CIE76 colour difference: about 2.3 is just noticeable, 20 is plainly another colour."""
    return sum((p - q) ** 2 for p, q in zip(lab(a, vision), lab(b, vision), strict=True)) ** 0.5


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two sRGB colours (AA: 4.5 for text, 3 for large text)."""

    def luminance(colour: str) -> float:
        def linear(c: float) -> float:
            c /= 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        r, g, b = (linear(c) for c in rgb(colour))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)
