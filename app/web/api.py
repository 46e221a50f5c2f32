"""The JSON API: the engine's catalog, and whole simulations for clients without a websocket."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from app.collectives import CollectiveError, catalog, simulate

from . import params, serialize

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.get("/collectives")
def collectives():
    """List every collective and algorithm the engine implements, with their constraints."""
    return jsonify(catalog())


@bp.post("/simulate")
def simulate_run():
    """Run one simulation and return the whole trace as one JSON document."""
    try:
        body = request.get_json(force=True, silent=True)
    except RecursionError:  # thousands of nested brackets: not a parameter object
        body = None
    if not isinstance(body, dict):
        return _bad_request("request body must be a JSON object of simulate parameters")
    try:
        p = params.parse(
            body,
            max_ranks=current_app.config["LAB_MAX_RANKS"],
            max_cells=current_app.config["LAB_MAX_CELLS"],
        )
        trace = simulate(**p.simulate_kwargs())
    except (params.ParamError, CollectiveError) as e:
        return _bad_request(str(e))
    return jsonify(serialize.document(trace))


@bp.errorhandler(HTTPException)
def http_error(e: HTTPException):
    """Answer HTTP errors raised inside the API (e.g. a body over the size limit) as JSON."""
    if isinstance(e, RequestEntityTooLarge):
        limit = current_app.config["MAX_CONTENT_LENGTH"]
        return jsonify(error=f"request body must be at most {limit} bytes"), e.code
    return jsonify(error=e.description), e.code


def _bad_request(message: str):
    return jsonify(error=message), 400
