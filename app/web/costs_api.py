"""The cost model over HTTP: /api/cost, /api/cost/compare, /api/hardware, /api/calc/<name>,
and the calculator pages (/calculators, /embed/calc/<name>).

Handlers turn query strings into numbers, call one function of `app.costs`, and return JSON;
bad input is a 400 whose error names the field and its allowed range.
"""

from __future__ import annotations

import math

from flask import Blueprint, g, jsonify, render_template, request, url_for
from markupsafe import Markup

from app.costs import COLLECTIVES, HARDWARE, SYSTEMS, CostError, algorithms, cost
from app.costs.calculators import CALCULATORS
from app.costs.calculators.fields import BOOL, FLOAT, INT
from app.costs.ranking import rank_algorithms

bp = Blueprint("costs", __name__)

PER_RANK_LIMIT = 1024  # larger runs omit the per-rank list from JSON
TEXT_INPUTS = ("collective", "algorithm", "hardware", "intra_hardware")
INTEGER_INPUTS = ("ranks", "ranks_per_node", "segments", "root")
FLOAT_INPUTS = (
    "bytes",
    "latency_us",
    "bandwidth_gbs",
    "gamma_s_per_byte",
    "intra_latency_us",
    "intra_bandwidth_gbs",
)
TRUE, FALSE = ("1", "true", "on", "yes"), ("0", "false", "off", "no")


def finite(value: object) -> object:
    """Return `value` with every non-finite float replaced by None, so the JSON is standard."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def _number(text: str) -> float | str:
    """Return `text` as a float, or unchanged so the model's check names the field and range."""
    try:
        return float(text)
    except ValueError:
        return text


def _link_presets(values: dict) -> dict:
    """Fill latency and bandwidth from `hardware` / `intra_hardware` presets where not given."""
    for key, latency, bandwidth in (
        ("hardware", "latency_us", "bandwidth_gbs"),
        ("intra_hardware", "intra_latency_us", "intra_bandwidth_gbs"),
    ):
        name = values.pop(key, None)
        if name is None or name == "custom":
            continue
        if name not in HARDWARE:
            raise CostError(f"{key} must be one of {', '.join(HARDWARE)}, custom; got {name!r}")
        values.setdefault(latency, HARDWARE[name].latency_us)
        values.setdefault(bandwidth, HARDWARE[name].bandwidth_gbs)
    return values


def cost_inputs(args, allowed: tuple[str, ...]) -> dict:
    """Parse /api/cost-style query arguments into keyword arguments for the cost model."""
    unknown = sorted(set(args) - set(allowed))
    if unknown:
        raise CostError(f"unknown parameter {unknown[0]!r}; allowed: {', '.join(allowed)}")
    values: dict = {}
    for name in allowed:
        if name not in args:
            continue
        text = args[name]
        if name in TEXT_INPUTS or name == "include_direct":
            values[name] = text
        else:
            values[name] = _number(text)
    if "bytes" in values:
        values["message_bytes"] = values.pop("bytes")
    for name in ("ranks", "message_bytes"):
        if name not in values:
            raise CostError(f"{'bytes' if name == 'message_bytes' else name} is required")
    values = _link_presets(values)
    for name in ("latency_us", "bandwidth_gbs"):
        if name not in values:
            raise CostError(f"{name} is required (or give hardware=<preset>)")
    return values


COST_PARAMS = (*TEXT_INPUTS, *INTEGER_INPUTS, *FLOAT_INPUTS)
COMPARE_PARAMS = tuple(p for p in COST_PARAMS if p not in ("algorithm", "segments", "root"))


@bp.get("/api/cost")
def cost_one():
    """Predict one collective algorithm's time, split into its terms, with the formula."""
    values = cost_inputs(request.args, COST_PARAMS)
    for name in ("collective", "algorithm"):
        if name not in values:
            raise CostError(f"{name} is required")
    result = cost(values.pop("collective"), values.pop("algorithm"), **values)
    return jsonify(finite(result.as_dict(per_rank_limit=PER_RANK_LIMIT)))


@bp.get("/api/cost/compare")
def cost_compare():
    """Predict every algorithm of a collective, fastest first."""
    values = cost_inputs(request.args, COMPARE_PARAMS)
    if "collective" not in values:
        raise CostError("collective is required")
    collective = values.pop("collective")
    ranks, size = values.pop("ranks"), values.pop("message_bytes")
    costs, unavailable = rank_algorithms(collective, ranks=ranks, message_bytes=size, **values)
    return jsonify(
        finite(
            {
                "collective": collective,
                "ranks": costs[0].ranks if costs else ranks,
                "message_bytes": size,
                "results": [c.as_dict(per_rank_limit=PER_RANK_LIMIT) for c in costs],
                "unavailable": unavailable,
            }
        )
    )


@bp.get("/api/hardware")
def hardware():
    """List the link presets and node types with their figures and sources."""
    return jsonify(
        links=[link.as_dict() for link in HARDWARE.values()],
        systems=[system.as_dict() for system in SYSTEMS.values()],
    )


def calc_inputs(name: str, args) -> dict:
    """Parse a calculator's query arguments by its field specs (unknown names are an error)."""
    spec = CALCULATORS[name]
    kinds = {f.name: f.kind for f in spec.fields}
    values: dict = {}
    for key, text in args.items():
        kind = kinds.get(key)
        if kind is None:
            raise CostError(f"unknown input {key!r} for {name}; allowed: {', '.join(kinds)}")
        if kind in (INT, FLOAT):
            values[key] = _number(text)
        elif kind == BOOL:
            lowered = text.lower()
            if lowered not in TRUE + FALSE:
                raise CostError(f"{key} must be true or false, got {text!r}")
            values[key] = lowered in TRUE
        else:
            values[key] = text
    return values


def run_calculator(name: str, args) -> dict:
    """Run calculator `name` on query arguments and return its JSON-ready result."""
    return finite(CALCULATORS[name](**calc_inputs(name, args)).as_dict())


@bp.get("/api/calc")
def calc_index():
    """List the calculators and their inputs."""
    return jsonify([spec.as_dict() for spec in CALCULATORS.values()])


@bp.get("/api/calc/<name>")
def calc(name: str):
    """Run one calculator and return its explained result."""
    if name not in CALCULATORS:
        return jsonify(error=f"no calculator {name!r}; there are {', '.join(CALCULATORS)}"), 404
    return jsonify(run_calculator(name, request.args))


@bp.errorhandler(CostError)
def bad_input(error: CostError):
    """Answer bad input with 400 and a message naming the field as the URL spells it."""
    message = str(error)
    if request.path.startswith("/api/cost"):
        message = message.replace("message_bytes", "bytes")
    return jsonify(error=message), 400


# -- pages ---------------------------------------------------------------------------------


def widget_data(name: str, args=None) -> dict:
    """Return what a widget needs: its spec, initial values and result, presets, API URL.

    Unknown names are ignored and bad values fall back to the defaults; either way the widget
    shows the error, so a lesson's author sees it.
    """
    spec = CALCULATORS[name]
    args = dict(args or {})
    names = [f.name for f in spec.fields]
    unknown = [key for key in args if key not in names]
    error = (
        f"unknown input {unknown[0]!r} for {name}; allowed: {', '.join(names)}" if unknown else None
    )
    try:
        given = calc_inputs(name, {k: v for k, v in args.items() if k in names})
        result = finite(spec(**given).as_dict())
    except CostError as e:
        error = str(e)
        result = finite(spec().as_dict())
    return {
        "spec": spec.as_dict(),
        "values": result["inputs"],
        "result": result,
        "error": error,
        "api": url_for("costs.calc", name=name),
        "algorithms": {c: algorithms(c) for c in COLLECTIVES},
        "page": url_for("costs.calculators") + f"#calc-{name}",
    }


def calculator_assets() -> Markup:
    """Return the calculators' stylesheet and scripts the first time a page asks, then nothing."""
    if g.get("calculator_assets_done"):
        return Markup("")
    g.calculator_assets_done = True
    presets = {key: link.as_dict() for key, link in HARDWARE.items()}
    return Markup(render_template("calculators/_assets.html", presets=presets))


def number_text(value: object) -> str:
    """Write a number for an input box: shortest round-trip form, whole floats as integers."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


@bp.app_context_processor
def widget_helpers() -> dict:
    """Let any template include a calculator widget: `{% include "calculators/_widget.html" %}`."""
    return {
        "calculator_widget_data": widget_data,
        "calculator_assets": calculator_assets,
        "calculator_number": number_text,
    }


@bp.get("/calculators")
def calculators():
    """Show every calculator as a live widget."""
    return render_template("calculators/index.html", calculators=list(CALCULATORS.values()))


@bp.get("/embed/calc/<name>")
def embed(name: str):
    """Show one calculator with minimal chrome, for an iframe; the query presets its inputs."""
    theme = request.args.get("theme", "light")
    args = {k: v for k, v in request.args.items() if k != "theme"}
    if name not in CALCULATORS or theme not in ("light", "dark"):
        message = (
            f"theme must be light or dark; got {theme!r}"
            if name in CALCULATORS
            else f"There is no calculator {name!r}. There are: {', '.join(CALCULATORS)}."
        )
        status = 404 if name not in CALCULATORS else 400
        page = render_template("calculators/missing.html", message=message, theme_fixed=True)
        return page, status
    return render_template(
        "calculators/embed.html", calc_name=name, calc_args=args, theme=theme, theme_fixed=True
    )
