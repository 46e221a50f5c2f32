"""The JSON API: the engine's catalog, and whole simulations for clients without a websocket.

`POST /api/simulate` narrates its steps in the request's language (`?lang=`, the cookie, the
browser's: app/web/i18n.py) and runs under the same admission as a Socket.IO run
(app/web/guard/admission.py): the caps on runs per address and overall, the memory budget,
and the lanes that keep large runs from holding up small ones. A run's share is given back once
its document is encoded; sending it (at most about 9.5 MB) is the WSGI server's, whose worker
threads bound how many are in flight.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request

from app.collectives import catalog, simulate
from app.i18n import DEFAULT as DEFAULT_LANGUAGE

from .. import params, serialize
from ..guard import admission
from ..i18n import page_language

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
    p = params.parse(  # InputError: a 400 naming the field (app/web/errors.py)
        body,
        max_ranks=current_app.config["LAB_MAX_RANKS"],
        max_cells=current_app.config["LAB_MAX_CELLS"],
    )
    admitted = current_app.extensions["lab_admission"]
    lanes = current_app.extensions["lab_lanes"]
    try:
        ticket = admitted.admit(
            request.remote_addr or "unknown", admission.document_bytes(p), lanes.is_small(p)
        )
    except admission.Busy as e:
        return _busy(e)
    try:
        with lanes.slot(ticket.small):
            return document_response(p, page_language())
    finally:
        admitted.release(ticket)


def document_response(p: params.SimParams, lang: str = DEFAULT_LANGUAGE) -> Response:
    """Run the engine and answer with the whole trace as one JSON document, narrated in
    `lang`."""
    trace = simulate(**p.simulate_kwargs())
    text = serialize.document_json(trace, compact_json, lang)
    return Response(text + "\n", mimetype="application/json")  # as jsonify ends its text


def compact_json(value: object) -> str:
    """Encode as jsonify does outside debug mode: the app's provider, compact separators."""
    return current_app.json.dumps(value, separators=(",", ":"))


def _bad_request(message: str):
    return jsonify(error=message), 400


def _busy(e: admission.Busy):
    """Answer a run admission refused: 429 for the address's own cap, 503 for the server's."""
    headers = {"Retry-After": str(e.retry_after_s)} if e.retry_after_s is not None else {}
    return jsonify(error=str(e)), e.status, headers
