"""`POST /api/nccl-log`: the reading of an NCCL_DEBUG=INFO log (app/reading/nccl_log.py).

The body is the log as text (`text/plain`) or JSON `{"log": "..."}`. Bad input gets 400 with
`{"error": "..."}` naming the field: `log` (empty, not NCCL, too long) or `body` (wrong
content type, not UTF-8, not a JSON object). A body past MAX_CONTENT_LENGTH is 413
`{"error": "body: at most N bytes"}`, as on every endpoint (app/web/errors.py).
"""

from __future__ import annotations

from flask import Blueprint, jsonify, request

from app.reading.nccl_log import NcclLogError, parse

from ..errors import InputError

bp = Blueprint("nccl_log_api", __name__)


def log_text() -> str:
    """Return the posted log from a text or JSON body, or raise InputError naming the field."""
    mimetype = request.mimetype or ""
    raw = request.get_data(cache=True)
    if mimetype == "application/json":
        try:
            body = request.get_json(silent=True)
        except RecursionError:
            body = None
        if not isinstance(body, dict) or "log" not in body:
            raise InputError('body: must be a JSON object {"log": "<the log text>"}')
        if not isinstance(body["log"], str):
            raise InputError("log: must be a string, the text of an NCCL_DEBUG=INFO log")
        return body["log"]
    if mimetype != "text/plain":
        raise InputError(
            f"body: Content-Type must be text/plain or application/json, got {mimetype or 'none'}"
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("body: must be UTF-8 text") from None


@bp.post("/api/nccl-log")
def read():
    """Answer the reading of the posted log."""
    try:
        return jsonify(parse(log_text()))
    except NcclLogError as exc:
        raise InputError(str(exc)) from None
