"""`GET /api/nccl-model` and `GET /api/nccl-model/table`: NCCL's own pick, over HTTP.

`/api/nccl-model?collective=&ranks=&bytes=&system=&nodes=` answers DESIGN's contract
`{algorithm, protocol, time_us, busbw_gbs, candidates: [{algorithm, protocol, time_us}]}`
(plus what explains it: the disabled cells with why, the graphs, the NCCL version).
`/api/nccl-model/table?collective=&ranks=&system=&nodes=` answers NCCL's pick and time from
8 B to 8 GiB by ×4 beside this app's α-β prediction. Each validates the query, calls one
function of `app.costs.nccl` and serializes it; bad input is a 400 naming the field.
"""

from __future__ import annotations

from flask import Blueprint, jsonify, request

from app.costs import CostError
from app.costs.nccl import nccl_choice, nccl_table

from .costs import finite

bp = Blueprint("nccl_model", __name__)

CHOICE_FIELDS = ("collective", "ranks", "bytes", "system", "nodes")
TABLE_FIELDS = ("collective", "ranks", "system", "nodes")
WHOLE = ("ranks", "bytes", "nodes")
MAX_DIGITS = 20


def _query(fields: tuple[str, ...]) -> dict:
    """Return the query's fields with whole numbers as ints; refuse unknown or repeated keys."""
    values = {}
    for key in request.args:
        if key not in fields:
            raise CostError(f"unknown field '{key[:80]}'; the fields are {', '.join(fields)}")
        if len(request.args.getlist(key)) > 1:
            raise CostError(f"{key} is given more than once")
        text = request.args[key]
        # At most 20 digits: far past every limit the model checks, and well inside Python's
        # int() digit limit, which a 5,000-digit value would break with a ValueError.
        whole = key in WHOLE and text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS
        values[key] = int(text) if whole else text
    return values


@bp.get("/api/nccl-model")
def choice():
    """Which (algorithm, protocol) NCCL's tuning model picks for one call, and its time."""
    q = _query(CHOICE_FIELDS)
    pick = nccl_choice(
        q.get("collective"), q.get("ranks"), q.get("bytes"), q.get("system"), q.get("nodes")
    )
    return jsonify(finite(pick.as_dict()))


@bp.get("/api/nccl-model/table")
def table():
    """NCCL's pick and time over sizes beside the α-β model's fastest algorithm."""
    q = _query(TABLE_FIELDS)
    rows = nccl_table(q.get("collective"), q.get("ranks"), q.get("system"), q.get("nodes"))
    return jsonify(finite(rows))


@bp.errorhandler(CostError)
def bad_input(error: CostError):
    """Answer bad input with 400 and the message, which names the field."""
    return jsonify(error=str(error)), 400
