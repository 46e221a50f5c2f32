"""Prompt placeholders: `{name}`, `{name.attr}` and `{name:format}` filled from a draw."""

from __future__ import annotations

import re
from types import SimpleNamespace

from app.costs import units

from .expressions import TemplateError

PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*)(?::([a-z]+))?\}")
FORMATS = {
    "size": lambda v: units.size(float(v)),
    "time": lambda v: units.seconds(float(v)),
    "us": lambda v: f"{float(v):g} µs",
    "gbs": lambda v: units.bandwidth(float(v)),
    "int": lambda v: f"{int(round(v)):,}",
    "g": lambda v: f"{float(v):.4g}",
}


def placeholders(template: str) -> list[tuple[str, str | None]]:
    """List the (path, format) placeholders in a template."""
    return PLACEHOLDER.findall(template)


def check_placeholders(template: str, names: set[str], field: str) -> None:
    """Raise TemplateError if `template` refers to an unknown name or format."""
    for path, fmt in placeholders(template):
        if path.split(".")[0] not in names:
            raise TemplateError(f"field '{field}': {{{path}}} is not a parameter")
        if fmt and fmt not in FORMATS:
            raise TemplateError(
                f"field '{field}': unknown format :{fmt} (formats: {', '.join(FORMATS)})"
            )


def fill(template: str, env: dict) -> str:
    """Substitute `{name}`, `{name.attr}` and `{name:format}` with values from `env`."""

    def value(match: re.Match) -> str:
        path, fmt = match.group(1), match.group(2)
        head, *rest = path.split(".")
        v = env[head]
        for attr in rest:
            v = getattr(v, attr)
        if isinstance(v, SimpleNamespace):
            v = v.label
        if fmt:
            return FORMATS[fmt](v)
        if isinstance(v, float):
            return f"{v:g}"
        if isinstance(v, int) and not isinstance(v, bool):
            return f"{v:,}" if abs(v) >= 10_000 else str(v)
        return str(v)

    return PLACEHOLDER.sub(value, template)
