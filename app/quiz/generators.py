"""Fresh questions from templates: numbers drawn for the cost model, states drawn from the engine.

Two kinds of question are templates rather than fixed text:

- **numeric**: `parameters` say what may be drawn (choices, integer ranges, hardware presets);
  `answer` names an `app.costs` function, its arguments (expressions over the parameters) and
  the field of its result. The answer is computed at grading time from the signed parameters,
  and the feedback shows the cost model's formula with the numbers substituted.
- **predict**: `cases` name collectives, algorithms and rank counts; a draw picks one, runs the
  engine, picks a step k and a rank, and asks what happens in step k. The buffer state after
  step k-1 is the question; the trace's step k is the answer.

Everything here is pure Python over `app.costs` and `app.collectives`; the web layer only
passes parameters through.
"""

from __future__ import annotations

import ast
import itertools
import math
import random
import re
from dataclasses import dataclass
from functools import lru_cache
from types import SimpleNamespace

from app import costs
from app.collectives import COLLECTIVES, CollectiveError, simulate
from app.collectives.trace import Trace, ranks_in
from app.costs import units

# -- units ---------------------------------------------------------------------------------------

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

# -- the app.costs functions a template may name -------------------------------------------------

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


class TemplateError(ValueError):
    """A numeric or predict template is malformed; the message names the field."""


# -- safe arithmetic over the drawn parameters ---------------------------------------------------

MATH = {
    "min": min,
    "max": max,
    "log2": math.log2,
    "ceil": math.ceil,
    "floor": math.floor,
    "round": round,
    "int": int,
}
BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}


def parse_expression(source: str, names: set[str], field: str) -> ast.Expression:
    """Parse `source` and check it uses only arithmetic, MATH functions and known names."""
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError:
        raise TemplateError(f"field '{field}': cannot parse the expression {source!r}") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in names and node.id not in MATH:
            known = ", ".join(sorted(names)) or "none"
            raise TemplateError(
                f"field '{field}': {node.id!r} is not a parameter (parameters: {known})"
            )
        allowed = (
            ast.Expression,
            ast.BinOp,
            ast.UnaryOp,
            ast.USub,
            ast.UAdd,
            ast.Constant,
            ast.Name,
            ast.Load,
            ast.Attribute,
            ast.Call,
            *BINARY,
        )
        if not isinstance(node, allowed):
            raise TemplateError(
                f"field '{field}': {type(node).__name__} is not allowed in {source!r}; "
                "use numbers, parameters, + - * / // % ** and " + ", ".join(MATH)
            )
        if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Name) and node.func.id in MATH and not node.keywords
        ):
            raise TemplateError(f"field '{field}': only {', '.join(MATH)} may be called")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise TemplateError(f"field '{field}': private attribute {node.attr!r}")
    return tree


def evaluate(tree: ast.AST, env: dict):
    """Evaluate a parsed, checked expression against the parameter values in `env`."""
    if isinstance(tree, ast.Expression):
        return evaluate(tree.body, env)
    if isinstance(tree, ast.Constant):
        return tree.value
    if isinstance(tree, ast.Name):
        return env[tree.id] if tree.id in env else MATH[tree.id]
    if isinstance(tree, ast.Attribute):
        return getattr(evaluate(tree.value, env), tree.attr)
    if isinstance(tree, ast.UnaryOp):
        value = evaluate(tree.operand, env)
        return -value if isinstance(tree.op, ast.USub) else value
    if isinstance(tree, ast.BinOp):
        return BINARY[type(tree.op)](evaluate(tree.left, env), evaluate(tree.right, env))
    if isinstance(tree, ast.Call):
        return MATH[tree.func.id](*(evaluate(a, env) for a in tree.args))
    raise TemplateError(f"cannot evaluate {ast.dump(tree)}")  # parse_expression prevents this


# -- parameters ----------------------------------------------------------------------------------

MAX_VALUES = 100_000


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


NAME = re.compile(r"^[a-z][a-z0-9_]*$")


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
    if "step" in spec:
        kind, value = "range", spec
    else:
        ((kind, value),) = spec.items()
    if kind == "choices":
        if not isinstance(value, list) or not value or not all(_scalar(v) for v in value):
            raise TemplateError(f"field '{where}.choices' must be a non-empty list of scalars")
        return Param(name, "choices", tuple(value))
    if kind == "range":
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
        return Param(name, "range", values)
    if kind in ("hardware", "system"):
        table = costs.HARDWARE if kind == "hardware" else costs.SYSTEMS
        if not isinstance(value, list) or not value:
            raise TemplateError(f"field '{where}.{kind}' must list {kind} keys")
        unknown = [k for k in value if k not in table]
        if unknown:
            raise TemplateError(
                f"field '{where}.{kind}': unknown {unknown!r}; known: {', '.join(table)}"
            )
        return Param(name, kind, tuple(value))
    if kind == "expr":
        if not isinstance(value, str):
            raise TemplateError(f"field '{where}.expr' must be a string")
        return Param(name, "expr", (), parse_expression(value, names, f"{where}.expr"), value)
    raise TemplateError(
        f"field '{where}': unknown parameter kind {kind!r}; "
        "use choices, range, hardware, system or expr"
    )


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


# -- prompt placeholders -------------------------------------------------------------------------

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


# -- numeric templates ---------------------------------------------------------------------------


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
    parsed: list[tuple[str, object]] = []
    for key, value in args.items():
        where = f"{field}.args.{key}"
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise TemplateError(f"field '{where}' must be a number or an expression string")
        if isinstance(value, str) and key in LITERAL_ARGS and value not in names:
            parsed.append((key, value))
        elif isinstance(value, str):
            parsed.append((key, parse_expression(value, names, where)))
        else:
            parsed.append((key, value))
    for key in ("collective", "ranks") if function in ("cost", "bus_factor", "busbw_gbs") else ():
        if key not in args:
            raise TemplateError(f"field '{field}.args' needs {key}")
    extra = set(raw) - {"function", "args", "result"}
    if extra:
        raise TemplateError(f"field '{field}': unknown keys {sorted(extra)}")
    return Call(function, tuple(parsed), result)


def parse_numeric(raw: dict) -> NumericSpec:
    """Check the numeric part of a question (parameters, answer, divide_by, unit, tolerance)."""
    params = parse_params(raw.get("parameters"))
    names = {p.name for p in params}
    answer = parse_call(raw.get("answer"), names, "answer")
    divide_by = None
    if raw.get("divide_by") is not None:
        divide_by = parse_call(raw.get("divide_by"), names, "divide_by")
    plus_raw = raw.get("plus") or []
    if not isinstance(plus_raw, list):
        raise TemplateError("field 'plus' must be a list of {function, args, result}")
    plus = tuple(parse_call(c, names, f"plus[{i}]") for i, c in enumerate(plus_raw, start=1))
    for i, c in enumerate(plus, start=1):
        if c.dimension != answer.dimension:
            raise TemplateError(f"field 'plus[{i}]': adds a {c.dimension} to a {answer.dimension}")
    scale_source = raw.get("scale")
    scale = None
    if scale_source is not None:
        if isinstance(scale_source, int | float) and not isinstance(scale_source, bool):
            scale_source = repr(scale_source)
        if not isinstance(scale_source, str):
            raise TemplateError("field 'scale' must be a number or an expression")
        scale = parse_expression(scale_source, names, "scale")
    unit = raw.get("unit")
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
    tolerance = _tolerance(raw.get("tolerance", 0.01))
    return NumericSpec(params, answer, divide_by, unit, tolerance, plus, scale, scale_source or "")


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


def _call(call: Call, env: dict):
    """Run one app.costs call; return (value, lines explaining it)."""
    args = {k: (evaluate(v, env) if isinstance(v, ast.AST) else v) for k, v in call.args}
    if call.function == "cost":
        c = costs.cost(**args)
        value = (
            max(c.bytes_per_rank)
            if call.result == "max_bytes_per_rank"
            else getattr(c, call.result)
        )
        if value is None:
            raise costs.CostError(f"{call.result} is undefined for these parameters")
        lines = [
            f"{c.collective}/{c.algorithm}, p = {c.ranks}, M = {units.size(c.message_bytes)}: "
            f"T = {c.formula}",
            f"T = {c.formula_substituted}",
        ]
        if call.result in ("algbw_gbs", "busbw_gbs"):
            lines.append(
                f"algbw = M / T = {units.size(c.message_bytes)} / {units.seconds(c.time_s)} = "
                f"{units.bandwidth(c.algbw_gbs)}"
            )
            if call.result == "busbw_gbs":
                lines.append(
                    f"busbw = algbw × {units.number(round(c.bus_factor, 4))} = "
                    f"{units.bandwidth(c.busbw_gbs)}"
                )
        elif call.result == "steps":
            lines.append(f"steps (α terms) = {c.steps}")
        elif call.result == "max_bytes_per_rank":
            lines.append(f"largest per-rank send = {units.size(value)}")
        elif call.result in ("latency_s", "bandwidth_s", "compute_s"):
            term = call.result.removesuffix("_s")
            lines.append(f"{term} term = {units.seconds(value)}")
        return float(value), lines
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
    raise TemplateError(f"unknown function {call.function}")  # parse_call prevents this


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
        value = value / other
    scaled = value / UNITS[spec.unit][1]
    lines.append(f"answer = {scaled:.4g} {spec.unit}".rstrip())
    return NumericResult(scaled, spec.unit, lines)


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


# -- predict-the-next-step templates -------------------------------------------------------------

ASKS = {
    "sends": "which chunks a rank sends in the next step",
    "peers": "which ranks a rank sends to in the next step",
    "contributions": "whose contributions a rank's copy of a chunk holds after the next step",
    "holds": "which chunks a rank holds after the next step (gathers, broadcasts)",
    "complete": "which chunks are fully reduced at a rank after the next step (reductions)",
}
MAX_PREDICT_RANKS = 16
MAX_PREDICT_CHUNKS = 16
REDUCING = ("allreduce", "reduce", "reduce_scatter")


@dataclass(frozen=True)
class Case:
    """One (collective, algorithm) with the rank counts, roots and node sizes it may draw."""

    collective: str
    algorithm: str
    ranks: tuple[int, ...]
    roots: tuple[int, ...] = (0,)
    ranks_per_node: tuple[int, ...] = ()


@dataclass(frozen=True)
class PredictSpec:
    ask: str
    cases: tuple[Case, ...]


def elements_for(collective: str, ranks: int) -> int:
    """Return the `elements` a predict question simulates: small, and a multiple of ranks."""
    return 4 * ranks


@lru_cache(maxsize=256)
def trace_for(collective: str, algorithm: str, ranks: int, root: int, ranks_per_node) -> Trace:
    """Run (and remember) the small simulation a predict question is drawn from."""
    return simulate(
        collective,
        algorithm,
        ranks=ranks,
        elements=elements_for(collective, ranks),
        root=root,
        ranks_per_node=ranks_per_node,
    )


def _int_list(raw, field: str, low: int, high: int) -> tuple[int, ...]:
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = [raw]
    if (
        not isinstance(raw, list)
        or not raw
        or not all(isinstance(v, int) and not isinstance(v, bool) and low <= v <= high for v in raw)
    ):
        raise TemplateError(
            f"field '{field}' must be an integer or a list of integers in {low}..{high}"
        )
    return tuple(raw)


def parse_predict(raw) -> PredictSpec:
    """Check a question's `predict` mapping: ask and cases, each of which must yield draws."""
    if not isinstance(raw, dict):
        raise TemplateError("field 'predict' must be a mapping with ask and cases")
    ask = raw.get("ask")
    if ask not in ASKS:
        raise TemplateError(f"field 'predict.ask' must be one of {', '.join(ASKS)}, got {ask!r}")
    raw_cases = raw.get("cases")
    if not isinstance(raw_cases, list) or not raw_cases:
        raise TemplateError("field 'predict.cases' must list {collective, algorithm, ranks}")
    cases = []
    for i, rc in enumerate(raw_cases, start=1):
        where = f"predict.cases[{i}]"
        if not isinstance(rc, dict):
            raise TemplateError(f"field '{where}' must be a mapping")
        extra = set(rc) - {"collective", "algorithm", "ranks", "root", "ranks_per_node"}
        if extra:
            raise TemplateError(f"field '{where}': unknown keys {sorted(extra)}")
        case = Case(
            str(rc.get("collective")),
            str(rc.get("algorithm")),
            _int_list(rc.get("ranks"), f"{where}.ranks", 2, MAX_PREDICT_RANKS),
            _int_list(rc.get("root", 0), f"{where}.root", 0, MAX_PREDICT_RANKS - 1),
            _int_list(rc["ranks_per_node"], f"{where}.ranks_per_node", 1, MAX_PREDICT_RANKS)
            if "ranks_per_node" in rc
            else (),
        )
        reduces = case.collective in REDUCING
        if ask == "complete" and not reduces:
            raise TemplateError(f"field '{where}': ask 'complete' needs a reducing collective")
        if ask == "holds" and reduces:
            raise TemplateError(f"field '{where}': ask 'holds' is for collectives that copy")
        for shape in _shapes(case):
            try:
                trace = trace_for(case.collective, case.algorithm, *shape)
            except CollectiveError as exc:
                raise TemplateError(f"field '{where}': {exc}") from None
            if trace.chunk_count > MAX_PREDICT_CHUNKS:
                raise TemplateError(
                    f"field '{where}': {trace.chunk_count} chunks are too many to show "
                    f"(at most {MAX_PREDICT_CHUNKS})"
                )
            if not any(_targets(trace, ask, k) for k in range(trace.total_steps)):
                raise TemplateError(f"field '{where}': no step of {shape} fits ask {ask!r}")
        cases.append(case)
    extra = set(raw) - {"ask", "cases"}
    if extra:
        raise TemplateError(f"field 'predict': unknown keys {sorted(extra)}")
    return PredictSpec(ask, tuple(cases))


def _shapes(case: Case):
    """Yield every (ranks, root, ranks_per_node) a case may draw."""
    for p in case.ranks:
        for root in case.roots:
            if root >= p:
                continue
            if case.ranks_per_node:
                for g in case.ranks_per_node:
                    if p % g == 0:
                        yield p, root, g
            else:
                yield p, root, None


def _targets(trace: Trace, ask: str, step: int) -> list[tuple[int, int | None]]:
    """List the (rank, chunk) a question about step `step` may ask about."""
    s = trace.steps[step]
    if ask in ("sends", "peers"):
        return [(r, None) for r in sorted({t.src for t in s.transfers})]
    if ask == "contributions":
        return sorted({(u.rank, u.chunk) for u in s.updates})
    return [(r, None) for r in sorted({t.dst for t in s.transfers})]


def draw_predict(spec: PredictSpec, rng: random.Random) -> dict:
    """Draw one predict instance: case, shape, step and the rank (and chunk) asked about."""
    index = rng.randrange(len(spec.cases))
    case = spec.cases[index]
    ranks, root, rpn = rng.choice(list(_shapes(case)))
    trace = trace_for(case.collective, case.algorithm, ranks, root, rpn)
    steps = [k for k in range(trace.total_steps) if _targets(trace, spec.ask, k)]
    step = rng.choice(steps)
    rank, chunk = rng.choice(_targets(trace, spec.ask, step))
    values = {"case": index, "ranks": ranks, "root": root, "step": step, "rank": rank}
    if rpn is not None:
        values["ranks_per_node"] = rpn
    if chunk is not None:
        values["chunk"] = chunk
    return values


def check_predict(spec: PredictSpec, values) -> str | None:
    """Return None if `values` is a draw `draw_predict` could make, else what is wrong."""
    if not isinstance(values, dict):
        return "params must be an object"
    for key, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int):
            return f"params.{key} must be an integer"
    case_index = values.get("case")
    if case_index is None or not 0 <= case_index < len(spec.cases):
        return "params.case is not a case of this question"
    case = spec.cases[case_index]
    shape = (values.get("ranks"), values.get("root"), values.get("ranks_per_node"))
    if shape not in set(_shapes(case)):
        return "params.ranks/root/ranks_per_node are not a shape this question draws"
    expected = (
        {"case", "ranks", "root", "step", "rank"}
        | ({"ranks_per_node"} if case.ranks_per_node else set())
        | ({"chunk"} if spec.ask == "contributions" else set())
    )
    if set(values) != expected:
        return f"params must have exactly the fields {sorted(expected)}"
    trace = trace_for(case.collective, case.algorithm, *shape)
    step = values["step"]
    if not 0 <= step < trace.total_steps:
        return "params.step is out of range"
    if (values["rank"], values.get("chunk")) not in _targets(trace, spec.ask, step):
        return "params.rank/chunk are not asked about in this step"
    return None


def _instance(spec: PredictSpec, values: dict) -> tuple[Case, Trace]:
    case = spec.cases[values["case"]]
    trace = trace_for(
        case.collective,
        case.algorithm,
        values["ranks"],
        values["root"],
        values.get("ranks_per_node"),
    )
    return case, trace


def chunk_label(c: int) -> str:
    """Name chunk c as the lab does: A, B, ..., Z, then C26, C27, ..."""
    return chr(65 + c) if c < 26 else f"C{c}"


ALGORITHM_NAMES = {
    "bruck": "Bruck",
    "rabenseifner": "Rabenseifner",
    "recursive_doubling": "recursive-doubling",
    "recursive_halving": "recursive-halving",
    "binomial_tree": "binomial-tree",
    "binary_tree": "binary-tree",
    "double_binary_tree": "double-binary-tree",
    "scatter_allgather": "scatter + allgather",
    "reduce_broadcast": "reduce + broadcast",
}


def predict_env(spec: PredictSpec, values: dict) -> dict:
    """Return the names a predict prompt may use: title, ranks, step, rank, chunk, root, ..."""
    case, trace = _instance(spec, values)
    env = {
        "collective": COLLECTIVES[case.collective].title,
        "algorithm": ALGORITHM_NAMES.get(case.algorithm, case.algorithm.replace("_", " ")),
        "ranks": values["ranks"],
        "root": values["root"],
        "step": values["step"] + 1,  # the step to predict, counted from 1
        "done": values["step"],  # steps already done
        "total": trace.total_steps,
        "rank": values["rank"],
        "chunk": chunk_label(values["chunk"]) if "chunk" in values else "",
        "ranks_per_node": values.get("ranks_per_node", ""),
    }
    title = f"{env['algorithm']} {env['collective']}"
    env["title"] = title[0].upper() + title[1:]
    return env


PREDICT_NAMES = {
    "collective", "algorithm", "title", "ranks", "root", "step", "done", "total", "rank",
    "chunk", "ranks_per_node",
}  # fmt: skip


def figure(spec: PredictSpec, values: dict) -> dict:
    """Return the buffer view before the step: contributions per (rank, chunk), last moves."""
    case, trace = _instance(spec, values)
    step = values["step"]
    state = trace.holdings_at(step - 1)
    rows = [
        [ranks_in(state.get((r, c), 0)) for c in range(trace.chunk_count)]
        for r in range(trace.ranks)
    ]
    last = []
    if step > 0:
        last = [
            {"src": t.src, "dst": t.dst, "chunk": chunk_label(t.chunk), "op": t.op}
            for t in trace.steps[step - 1].transfers
        ]
    return {
        "collective": case.collective,
        "algorithm": case.algorithm,
        "ranks": trace.ranks,
        "chunks": [chunk_label(c) for c in range(trace.chunk_count)],
        "holdings": rows,
        "steps_done": step,
        "total_steps": trace.total_steps,
        "last_step": last,
        "last_phase": trace.steps[step - 1].phase if step > 0 else None,
        "topology": trace.topology,
        "root": trace.root,
        "ranks_per_node": trace.ranks_per_node,
    }


NONE = "none"  # the option "no chunk", for asks whose right answer may be no option at all
NONE_LABELS = {"complete": "none: no chunk is complete"}


def predict_options(spec: PredictSpec, values: dict) -> list[tuple[str, str]]:
    """Return (id, label) of every option: chunks or ranks, depending on the ask.

    A `complete` question's answer is often no chunk (about a third of draws), which a form
    of checkboxes cannot send: it ends with NONE, on every draw so it gives nothing away.
    """
    _, trace = _instance(spec, values)
    if spec.ask in ("peers", "contributions"):
        return [
            (f"r{q}", f"rank {q}")
            for q in range(trace.ranks)
            if not (spec.ask == "peers" and q == values["rank"])
        ]
    chunks = [(f"c{c}", f"chunk {chunk_label(c)}") for c in range(trace.chunk_count)]
    return chunks + ([(NONE, NONE_LABELS[spec.ask])] if spec.ask in NONE_LABELS else [])


def predict_truth(spec: PredictSpec, values: dict) -> frozenset[str]:
    """Return the option ids that are right, read from the engine's trace."""
    _, trace = _instance(spec, values)
    step, rank = values["step"], values["rank"]
    moves = trace.steps[step].transfers
    if spec.ask == "sends":
        return frozenset(f"c{t.chunk}" for t in moves if t.src == rank)
    if spec.ask == "peers":
        return frozenset(f"r{t.dst}" for t in moves if t.src == rank)
    after = trace.holdings_at(step)
    if spec.ask == "contributions":
        return frozenset(f"r{q}" for q in ranks_in(after.get((rank, values["chunk"]), 0)))
    full = (1 << trace.ranks) - 1
    return frozenset(
        f"c{c}"
        for c in range(trace.chunk_count)
        if (after.get((rank, c), 0) == full if spec.ask == "complete" else after.get((rank, c), 0))
    )


def describe_step(spec: PredictSpec, values: dict) -> list[str]:
    """Say in words what rank `rank` does in the step, from the trace (for the feedback)."""
    _, trace = _instance(spec, values)
    step, rank = values["step"], values["rank"]
    s = trace.steps[step]
    lines = [f"Step {step + 1} of {trace.total_steps} ({s.phase}):"]
    verbs = {"copy": "copied over", "reduce": "reduced into"}
    mine = [t for t in s.transfers if rank in (t.src, t.dst)]
    for t in mine:
        lines.append(
            f"rank {t.src} → rank {t.dst}: chunk {chunk_label(t.chunk)} ({verbs[t.op]} "
            f"rank {t.dst}'s copy)"
        )
    if not mine:
        lines.append(f"rank {rank} neither sends nor receives.")
    after = trace.holdings_at(step)
    cells = []
    for c in range(trace.chunk_count):
        held = ranks_in(after.get((rank, c), 0))
        shown = "all ranks" if len(held) == trace.ranks > 2 else "+".join(map(str, held)) or "—"
        cells.append(f"{chunk_label(c)}: {shown}")
    lines.append(f"After the step, rank {rank} holds " + ", ".join(cells) + ".")
    return lines
