"""Tie a lesson's worked example to the live calculator beside it (issue 16).

    assert_ties("why-collectives", "parallelism_3d", "tp_bytes", "34.4 GB")

runs the lesson's own @calc directive (the first of that calculator in the lesson, or the
`index`-th), checks that the lesson's text writes the number exactly as given, and that the
calculator's output equals it to the precision it is written with. So a worked example and
the calculator beside it cannot drift apart: change one and the test names both numbers.
"""

from __future__ import annotations

import re
import shlex

from app.costs.calculators.query import run_calculator
from app.course import current_course

UNITS = {
    "TB": 1e12, "GB": 1e9, "MB": 1e6, "KB": 1e3, "kB": 1e3, "B": 1.0,
    "TiB": 2.0**40, "GiB": 2.0**30, "MiB": 2.0**20, "KiB": 2.0**10,
    "s": 1.0, "ms": 1e-3, "µs": 1e-6, "us": 1e-6, "ns": 1e-9,
    "%": 1.0, "×": 1.0, "GB/s": 1.0, "": 1.0,
}  # fmt: skip
WRITTEN = re.compile(r"^([0-9][0-9,]*(?:\.([0-9]+))?)\s*([A-Za-zµ%×/]*)$")


def calc_lines(slug: str, name: str) -> list[str]:
    """The lesson's @calc lines for calculator `name`, in order."""
    body = current_course().lessons[slug].body
    return [ln.strip() for ln in body.splitlines() if ln.strip().startswith(f"@calc {name}")]


def calc_outputs(slug: str, name: str, index: int = 0) -> dict[str, object]:
    """Run the lesson's `index`-th @calc of `name` as its embed does; return outputs by key."""
    lines = calc_lines(slug, name)
    assert len(lines) > index, f"{slug} has {len(lines)} @calc {name} directive(s)"
    words = shlex.split(lines[index])[2:]
    params = dict(w.split("=", 1) for w in words)
    params.pop("caption", None)
    params.pop("theme", None)
    result = run_calculator(name, params)
    return {o.key: o.value for o in result.outputs}


def parse_written(written: str) -> tuple[float, float]:
    """Return (value in base units, half a unit of the last digit written, in base units)."""
    match = WRITTEN.match(written.strip())
    assert match, f"cannot read {written!r} as a number with a unit"
    number, decimals, unit = match.groups()
    assert unit in UNITS, f"unknown unit {unit!r} in {written!r}"
    scale = UNITS[unit]
    step = 10.0 ** -len(decimals) if decimals else 1.0
    return float(number.replace(",", "")) * scale, 0.5 * step * scale


def assert_ties(slug: str, name: str, key: str, written: str, index: int = 0) -> None:
    """The lesson writes `written` and its @calc `name` computes the same number."""
    text = current_course().lessons[slug].body
    assert written in text, f"{slug} no longer writes {written!r}"
    value, half_step = parse_written(written)
    outputs = calc_outputs(slug, name, index)
    assert key in outputs, f"@calc {name} has no output {key!r}; it has {sorted(outputs)}"
    got = float(outputs[key])
    assert abs(got - value) <= half_step * 1.01 + 1e-12 * abs(value), (
        f"{slug} writes {written!r} but its @calc {name} computes {key} = {got:.6g}"
    )
