"""Numeric templates: an `app.costs` call over drawn parameters answers each draw.

`answer` names an `app.costs` function, its arguments (expressions over the parameters) and the
field of its result; `plus`, `scale` and `divide_by` combine further calls. The answer is
computed at grading time from the signed parameters (`solve`), and the feedback shows the cost
model's formula with the numbers substituted.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from app import costs
from app.costs import units

from .expressions import TemplateError, evaluate, parse_expression
from .params import Param, environment, parse_params

# unit -> (dimension, size of one unit in the base unit: seconds, bytes, GB/s, or a pure number)
UNITS: dict[str, tuple[str, float]] = {
    "s": ("time", 1.0),
    "ms": ("time", 1e-3),
    "µs": ("time", 1e-6),
    "B": ("bytes", 1.0),
    "kB": ("bytes", 1e3),
    "MB": ("bytes", 1e6),
    "GB": ("bytes", 1e9),
    "KiB": ("bytes", 2.0**10),
    "MiB": ("bytes", 2.0**20),
    "GiB": ("bytes", 2.0**30),
    "GB/s": ("bandwidth", 1.0),
    "×": ("ratio", 1.0),
    "%": ("ratio", 0.01),
    "steps": ("count", 1.0),
}

# The app.costs functions a template may name, and the dimension of each result field.
COST_RESULTS = {
    "time_s": "time",
    "latency_s": "time",
    "bandwidth_s": "time",
    "compute_s": "time",
    "steps": "count",
    "algbw_gbs": "bandwidth",
    "busbw_gbs": "bandwidth",
    "bus_factor": "ratio",
    "max_bytes_per_rank": "bytes",
}
FUNCTIONS: dict[str, dict[str, str]] = {
    "cost": COST_RESULTS,
    "busbw_gbs": {"value": "bandwidth"},
    "algbw_gbs": {"value": "bandwidth"},
    "bus_factor": {"value": "ratio"},
}
LITERAL_ARGS = ("collective", "algorithm")  # strings that are names, not expressions


@dataclass(frozen=True)
class Call:
    """One call of an app.costs function and the field of its result that is the answer."""

    function: str
    args: tuple[tuple[str, object], ...]  # name -> literal, or a parsed expression
    result: str

    @property
    def dimension(self) -> str:
        return FUNCTIONS[self.function][self.result]


@dataclass(frozen=True)
class NumericSpec:
    """A numeric template: what is drawn, what answers it, in which unit, how exactly."""

    params: tuple[Param, ...]
    answer: Call
    divide_by: Call | None
    unit: str
    tolerance: tuple[str, float]  # ("relative", 0.01) or ("absolute", 0.5)
    plus: tuple[Call, ...] = ()  # added to `answer` (e.g. the two all-reduces of PowerSGD)
    scale: ast.Expression | None = None  # multiplies the sum (e.g. 4 all-to-alls per layer)
    scale_source: str = ""

    @property
    def names(self) -> set[str]:
        return {p.name for p in self.params}


@dataclass(frozen=True)
class NumericResult:
    """The graded answer of one draw: the value in the template's unit and how it was found."""

    value: float  # in `unit`
    unit: str
    formula: list[str]  # lines: symbolic, substituted, result


# -- checking a template -------------------------------------------------------------------------


def parse_call(raw, names: set[str], field: str) -> Call:
    """Check one `{function, args, result}` mapping."""
    if not isinstance(raw, dict):
        raise TemplateError(f"field '{field}' must be a mapping with function, args, result")
    function = raw.get("function")
    if function not in FUNCTIONS:
        raise TemplateError(
            f"field '{field}.function' must name an app.costs function: {', '.join(FUNCTIONS)}"
        )
    results = FUNCTIONS[function]
    result = raw.get("result", "value")
    if result not in results:
        raise TemplateError(
            f"field '{field}.result' must be one of {', '.join(results)} for {function}"
        )
    args = raw.get("args")
    if not isinstance(args, dict) or not args:
        raise TemplateError(f"field '{field}.args' must map argument names to values")
    parsed = [
        (key, _argument(key, value, names, f"{field}.args.{key}")) for key, value in args.items()
    ]
    for key in ("collective", "ranks") if function in ("cost", "bus_factor", "busbw_gbs") else ():
        if key not in args:
            raise TemplateError(f"field '{field}.args' needs {key}")
    extra = set(raw) - {"function", "args", "result"}
    if extra:
        raise TemplateError(f"field '{field}': unknown keys {sorted(extra)}")
    return Call(function, tuple(parsed), result)


def _argument(key: str, value, names: set[str], where: str):
    """Return a call argument: a number, a literal name, or a parsed expression."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise TemplateError(f"field '{where}' must be a number or an expression string")
    if isinstance(value, str) and not (key in LITERAL_ARGS and value not in names):
        return parse_expression(value, names, where)
    return value


def parse_numeric(raw: dict) -> NumericSpec:
    """Check the numeric part of a question (parameters, answer, divide_by, unit, tolerance)."""
    params = parse_params(raw.get("parameters"))
    names = {p.name for p in params}
    answer = parse_call(raw.get("answer"), names, "answer")
    divide_by = None
    if raw.get("divide_by") is not None:
        divide_by = parse_call(raw.get("divide_by"), names, "divide_by")
    plus = _plus(raw.get("plus") or [], names, answer)
    scale_source, scale = _scale(raw.get("scale"), names)
    unit = _unit(raw.get("unit"), answer, divide_by)
    tolerance = _tolerance(raw.get("tolerance", 0.01))
    return NumericSpec(params, answer, divide_by, unit, tolerance, plus, scale, scale_source or "")


def _plus(raw, names: set[str], answer: Call) -> tuple[Call, ...]:
    """Check the calls added to the answer: each must have the answer's dimension."""
    if not isinstance(raw, list):
        raise TemplateError("field 'plus' must be a list of {function, args, result}")
    plus = tuple(parse_call(c, names, f"plus[{i}]") for i, c in enumerate(raw, start=1))
    for i, c in enumerate(plus, start=1):
        if c.dimension != answer.dimension:
            raise TemplateError(f"field 'plus[{i}]': adds a {c.dimension} to a {answer.dimension}")
    return plus


def _scale(source, names: set[str]) -> tuple[str | None, ast.Expression | None]:
    """Return the scale's source text and its parsed expression (None, None without one)."""
    if source is None:
        return None, None
    if isinstance(source, int | float) and not isinstance(source, bool):
        source = repr(source)
    if not isinstance(source, str):
        raise TemplateError("field 'scale' must be a number or an expression")
    return source, parse_expression(source, names, "scale")


def _unit(unit, answer: Call, divide_by: Call | None) -> str:
    """Check that `unit` measures the answer (a ratio when dividing like by like)."""
    if unit not in UNITS:
        raise TemplateError(f"field 'unit' must be one of {', '.join(UNITS)}, got {unit!r}")
    want = "ratio" if divide_by and divide_by.dimension == answer.dimension else answer.dimension
    if divide_by and divide_by.dimension != answer.dimension and divide_by.dimension != "ratio":
        raise TemplateError(
            f"field 'divide_by': dividing {answer.dimension} by {divide_by.dimension} "
            "gives no unit this quiz knows"
        )
    if UNITS[unit][0] != want:
        fitting = [u for u, (dim, _) in UNITS.items() if dim == want]
        raise TemplateError(
            f"field 'unit': the answer is a {want}, so the unit must be one of {', '.join(fitting)}"
        )
    return unit


def _tolerance(raw) -> tuple[str, float]:
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        raw = {"relative": raw}
    if not isinstance(raw, dict) or len(raw) != 1:
        raise TemplateError(
            "field 'tolerance' must be a number (relative) or {relative|absolute: x}"
        )
    ((kind, value),) = raw.items()
    if kind not in ("relative", "absolute") or isinstance(value, bool):
        raise TemplateError("field 'tolerance' must be {relative: x} or {absolute: x}")
    if not isinstance(value, int | float) or not 0 <= value <= (0.5 if kind == "relative" else 1e9):
        raise TemplateError("field 'tolerance': relative tolerance must be in 0..0.5")
    return kind, float(value)


# -- answering a draw ----------------------------------------------------------------------------


def _call(call: Call, env: dict):
    """Run one app.costs call; return (value, lines explaining it)."""
    args = {k: (evaluate(v, env) if isinstance(v, ast.AST) else v) for k, v in call.args}
    if call.function == "cost":
        return _cost(call.result, args)
    if call.function == "bus_factor":
        value = costs.bus_factor(**args)
        return value, [
            f"busbw/algbw factor for {args['collective']} on {args['ranks']} ranks = {value:.4g}"
        ]
    if call.function == "algbw_gbs":
        value = costs.algbw_gbs(**args)
        if value is None:
            raise costs.CostError("algbw is undefined for a zero time")
        return value, [
            f"algbw = S / t = {units.size(args['message_bytes'])} / "
            f"{units.seconds(args['time_s'])} = {units.bandwidth(value)}"
        ]
    if call.function == "busbw_gbs":
        return _busbw(args)
    raise TemplateError(f"unknown function {call.function}")  # parse_call prevents this


def _cost(result: str, args: dict) -> tuple[float, list[str]]:
    """Call `costs.cost`; return the `result` field and the formula that gives it."""
    c = costs.cost(**args)
    value = max(c.bytes_per_rank) if result == "max_bytes_per_rank" else getattr(c, result)
    if value is None:
        raise costs.CostError(f"{result} is undefined for these parameters")
    lines = [
        f"{c.collective}/{c.algorithm}, p = {c.ranks}, M = {units.size(c.message_bytes)}: "
        f"T = {c.formula}",
        f"T = {c.formula_substituted}",
    ]
    if result in ("algbw_gbs", "busbw_gbs"):
        lines.append(
            f"algbw = M / T = {units.size(c.message_bytes)} / {units.seconds(c.time_s)} = "
            f"{units.bandwidth(c.algbw_gbs)}"
        )
        if result == "busbw_gbs":
            lines.append(
                f"busbw = algbw × {units.number(round(c.bus_factor, 4))} = "
                f"{units.bandwidth(c.busbw_gbs)}"
            )
    elif result == "steps":
        lines.append(f"steps (α terms) = {c.steps}")
    elif result == "max_bytes_per_rank":
        lines.append(f"largest per-rank send = {units.size(value)}")
    elif result in ("latency_s", "bandwidth_s", "compute_s"):
        lines.append(f"{result.removesuffix('_s')} term = {units.seconds(value)}")
    return float(value), lines


def _busbw(args: dict) -> tuple[float, list[str]]:
    """Call `costs.busbw_gbs`; return it with the algbw and the factor that give it."""
    value = costs.busbw_gbs(**args)
    if value is None:
        raise costs.CostError("busbw is undefined for a zero time")
    factor = costs.bus_factor(args["collective"], args["ranks"])
    return value, [
        f"algbw = S / t = {units.size(args['message_bytes'])} / "
        f"{units.seconds(args['time_s'])} = {units.bandwidth(value / factor)}",
        f"busbw = algbw × factor({args['collective']}, n = {args['ranks']}) = "
        f"{units.bandwidth(value / factor)} × {factor:.4g} = {units.bandwidth(value)}",
    ]


def solve(spec: NumericSpec, values: dict) -> NumericResult:
    """Compute the answer of one draw with app.costs, in the template's unit, with its formula."""
    env = environment(spec.params, values)
    value, lines = _call(spec.answer, env)
    for call in spec.plus:
        more_value, more = _call(call, env)
        lines = [*lines, "plus", *more]
        value += more_value
    if spec.plus:
        lines.append(f"sum = {_pretty(value, spec.answer.dimension)}")
    if spec.scale is not None:
        factor = evaluate(spec.scale, env)
        lines.append(
            f"× {spec.scale_source} = × {factor:g}: "
            f"{_pretty(value * factor, spec.answer.dimension)}"
        )
        value *= factor
    if spec.divide_by is not None:
        value, lines = _divide(spec, env, value, lines)
    scaled = value / UNITS[spec.unit][1]
    lines.append(f"answer = {scaled:.4g} {spec.unit}".rstrip())
    return NumericResult(scaled, spec.unit, lines)


def _divide(spec: NumericSpec, env: dict, value: float, lines: list[str]):
    """Divide the answer by the `divide_by` call; return (ratio, the lines with the division)."""
    other, more = _call(spec.divide_by, env)
    if other == 0:
        raise costs.CostError("the divisor is zero for these parameters")
    dim = spec.answer.dimension
    lines = [
        *lines,
        "divided by",
        *more,
        f"ratio = {_pretty(value, dim)} / {_pretty(other, spec.divide_by.dimension)} = "
        f"{value / other:.4g}",
    ]
    return value / other, lines


def _pretty(value: float, dimension: str) -> str:
    if dimension == "time":
        return units.seconds(value)
    if dimension == "bytes":
        return units.size(value)
    if dimension == "bandwidth":
        return units.bandwidth(value)
    return f"{value:.4g}"


def within(spec: NumericSpec, truth: float, guess: float) -> bool:
    """Return True when `guess` is within the template's tolerance of `truth`."""
    kind, tol = spec.tolerance
    if kind == "absolute":
        return abs(guess - truth) <= tol + 1e-12
    return abs(guess - truth) <= tol * abs(truth) + 1e-12
