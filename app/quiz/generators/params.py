"""A numeric template's parameters: how each is drawn, checked when submitted, and resolved.

`parameters` name what may be drawn (choices, integer ranges, hardware and system presets) and
what is derived from them (`expr`). A draw is a dict of the drawn values only; `environment`
adds the derived ones and turns preset keys into their attributes for expressions and prompts.
"""

from __future__ import annotations

import ast
import itertools
import math
import random
import re
from dataclasses import dataclass
from types import SimpleNamespace

from app import costs

from .expressions import MATH, TemplateError, evaluate, parse_expression

MAX_VALUES = 100_000
NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def _link(key: str) -> SimpleNamespace:
    link = costs.HARDWARE[key]
    return SimpleNamespace(
        key=key, label=link.label, bandwidth_gbs=link.bandwidth_gbs, latency_us=link.latency_us
    )


def _system(key: str) -> SimpleNamespace:
    system = costs.SYSTEMS[key]
    return SimpleNamespace(
        key=key,
        label=system.label,
        gpus_per_node=system.gpus_per_node,
        intra=_link(system.intra),
        inter=_link(system.inter),
    )


@dataclass(frozen=True)
class Param:
    """One template parameter: drawn from `values`, or derived by `expression`."""

    name: str
    kind: str  # choices | range | hardware | system | expr
    values: tuple = ()
    expression: ast.Expression | None = None
    source: str = ""

    @property
    def drawn(self) -> bool:
        return self.kind != "expr"

    def resolve(self, value):
        """Turn a drawn value into what expressions and prompts see."""
        if self.kind == "hardware":
            return _link(value)
        if self.kind == "system":
            return _system(value)
        return value


def _scalar(value) -> bool:
    return isinstance(value, int | float | str) and not isinstance(value, bool)


def parse_params(raw, field: str = "parameters") -> tuple[Param, ...]:
    """Check a `parameters` mapping and return the parameters in declaration order."""
    if not isinstance(raw, dict) or not raw:
        raise TemplateError(f"field '{field}' must map parameter names to how they are drawn")
    params: list[Param] = []
    names: set[str] = set()
    for name, spec in raw.items():
        where = f"{field}.{name}"
        if not isinstance(name, str) or not NAME.match(name) or name in MATH:
            raise TemplateError(f"field '{where}': names are lower_case identifiers")
        if not isinstance(spec, dict) or (len(spec) != 1 and set(spec) != {"range", "step"}):
            raise TemplateError(
                f"field '{where}' must be one of {{choices: [...]}}, {{range: [low, high]}}, "
                "{range: [low, high], step: n}, {hardware: [keys]}, {system: [keys]}, {expr: '...'}"
            )
        params.append(_param(name, spec, names, where))
        names.add(name)
    return tuple(params)


def _param(name: str, spec: dict, names: set[str], where: str) -> Param:
    """Read one parameter's spec, a one-key mapping (or `{range, step}`)."""
    if "step" in spec:
        kind, value = "range", spec
    else:
        ((kind, value),) = spec.items()
    if kind == "choices":
        if not isinstance(value, list) or not value or not all(_scalar(v) for v in value):
            raise TemplateError(f"field '{where}.choices' must be a non-empty list of scalars")
        return Param(name, "choices", tuple(value))
    if kind == "range":
        return Param(name, "range", _range(value, where))
    if kind in ("hardware", "system"):
        return Param(name, kind, _presets(kind, value, where))
    if kind == "expr":
        if not isinstance(value, str):
            raise TemplateError(f"field '{where}.expr' must be a string")
        return Param(name, "expr", (), parse_expression(value, names, f"{where}.expr"), value)
    raise TemplateError(
        f"field '{where}': unknown parameter kind {kind!r}; "
        "use choices, range, hardware, system or expr"
    )


def _range(value, where: str) -> tuple[int, ...]:
    """Return the integers of `[low, high]` or `{range: [low, high], step: n}`."""
    bounds = value["range"] if isinstance(value, dict) else value
    step = value.get("step", 1) if isinstance(value, dict) else 1
    ok = (
        isinstance(bounds, list)
        and len(bounds) == 2
        and all(isinstance(b, int) and not isinstance(b, bool) for b in bounds)
        and isinstance(step, int)
        and step > 0
        and bounds[0] <= bounds[1]
    )
    if not ok:
        raise TemplateError(
            f"field '{where}.range' must be [low, high] integers, low <= high, step >= 1"
        )
    values = tuple(range(bounds[0], bounds[1] + 1, step))
    if len(values) > MAX_VALUES:
        raise TemplateError(f"field '{where}.range' has more than {MAX_VALUES} values")
    return values


def _presets(kind: str, value, where: str) -> tuple[str, ...]:
    """Check a list of app.costs.HARDWARE or app.costs.SYSTEMS keys."""
    table = costs.HARDWARE if kind == "hardware" else costs.SYSTEMS
    if not isinstance(value, list) or not value:
        raise TemplateError(f"field '{where}.{kind}' must list {kind} keys")
    unknown = [k for k in value if k not in table]
    if unknown:
        raise TemplateError(
            f"field '{where}.{kind}': unknown {unknown!r}; known: {', '.join(table)}"
        )
    return tuple(value)


def draw(params: tuple[Param, ...], rng: random.Random) -> dict:
    """Draw a value for every drawn parameter (derived ones are computed when needed)."""
    return {p.name: rng.choice(p.values) for p in params if p.drawn}


def all_draws(params: tuple[Param, ...], limit: int, rng: random.Random) -> list[dict]:
    """Every combination of drawn values when there are at most `limit`, else `limit` samples."""
    drawn = [p for p in params if p.drawn]
    total = math.prod(len(p.values) for p in drawn)
    if total <= limit:
        return [
            dict(zip([p.name for p in drawn], combo, strict=True))
            for combo in itertools.product(*(p.values for p in drawn))
        ]
    return [draw(params, rng) for _ in range(limit)]


def check_draw(params: tuple[Param, ...], values) -> str | None:
    """Return None if `values` could have been drawn, else a message naming the bad field."""
    if not isinstance(values, dict):
        return "params must be an object"
    drawn = {p.name: p for p in params if p.drawn}
    extra = sorted(set(values) - set(drawn))
    missing = sorted(set(drawn) - set(values))
    if extra or missing:
        return f"params must have exactly the fields {sorted(drawn)}"
    for name, param in drawn.items():
        value = values[name]
        if isinstance(value, bool) or value not in param.values:
            return f"params.{name}: {value!r} is not a value this question draws"
    return None


def environment(params: tuple[Param, ...], values: dict) -> dict:
    """Return every parameter's value as expressions and prompts see it (derived included)."""
    env: dict = {}
    for p in params:
        env[p.name] = p.resolve(values[p.name]) if p.drawn else evaluate(p.expression, env)
    return env
