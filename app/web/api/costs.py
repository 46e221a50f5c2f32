"""The cost model over HTTP: /api/cost, /api/cost/compare, /api/hardware and /api/calc/<name>.

Handlers parse the query with `app.costs.calculators.query`, call one function of
`app.costs`, and return JSON; bad input is a 400 whose error names the field and its range.
"""

from __future__ import annotations

import math

from flask import Blueprint, jsonify, request
from flask_babel import gettext as _

from app.costs import HARDWARE, SYSTEMS, CostError, cost
from app.costs.calculators import CALCULATORS
from app.costs.calculators.query import compare_inputs, cost_inputs, run_calculator
from app.costs.ranking import rank_algorithms

from ..calculator_text import result_text, spec_text

bp = Blueprint("costs", __name__)

PER_RANK_LIMIT = 1024  # larger runs omit the per-rank list from JSON


def finite(value: object) -> object:
    """Return `value` with every non-finite float replaced by None, so the JSON is standard."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


@bp.get("/api/cost")
def cost_one():
    """Predict one collective algorithm's time, split into its terms, with the formula."""
    result = cost(**cost_inputs(request.args))
    return jsonify(finite(result.as_dict(per_rank_limit=PER_RANK_LIMIT)))


@bp.get("/api/cost/compare")
def cost_compare():
    """Predict every algorithm of a collective, fastest first."""
    values = compare_inputs(request.args)
    costs, unavailable = rank_algorithms(**values)
    return jsonify(
        finite(
            {
                "collective": values["collective"],
                "ranks": costs[0].ranks if costs else values["ranks"],
                "message_bytes": values["message_bytes"],
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


@bp.get("/api/calc")
def calc_index():
    """List the calculators and their inputs, their words in the request's language."""
    return jsonify([spec_text(spec.as_dict()) for spec in CALCULATORS.values()])


@bp.get("/api/calc/<name>")
def calc(name: str):
    """Run one calculator and return its explained result, its words in the request's language."""
    if name not in CALCULATORS:
        names = ", ".join(CALCULATORS)
        message = _("no calculator %(name)s; there are %(names)s", name=repr(name), names=names)
        return jsonify(error=message), 404
    return jsonify(result_text(finite(run_calculator(name, request.args).as_dict())))


@bp.errorhandler(CostError)
def bad_input(error: CostError):
    """Answer bad input with 400 and the message, which names the field as the URL spells it."""
    return jsonify(error=str(error)), 400
