"""`POST /api/nccl-tests`: read an nccl-tests output and put the cost model beside it.

The body is the output itself (text/plain, with `?preset=&collective=&ranks=` in the query) or
JSON `{"output": ..., "preset": ..., "collective"?: ..., "ranks"?: ...}`; the output may be the
text table or nccl-tests' `-J` JSON report. The answer is `app.reading`'s reading (one row per
size, the peak, the busbw check) and `model` (the preset's curve and the sentence). Bad input
is a 400 whose error names the field and the allowed values.
"""

from __future__ import annotations

from flask import Blueprint, jsonify, request

from app.costs import CostError
from app.i18n.catalog import translate
from app.reading.nccl_tests import COLLECTIVES, MAX_RANKS, NcclTestsError
from app.reading.nccl_tests_json import read_output
from app.reading.nccl_tests_model import PRESETS, model_beside

from ..errors import InputError
from ..i18n import page_language
from .costs import finite

bp = Blueprint("nccl_tests", __name__)

DEFAULT_PRESET = "dgx_h100"
FIELDS = ("output", "preset", "collective", "ranks")


def _inputs() -> dict:
    """Return the request's fields from a JSON object body or a text body with a query."""
    if request.mimetype == "application/json":
        try:
            body = request.get_json(force=True, silent=True)
        except RecursionError:
            body = None
        if not isinstance(body, dict):
            raise InputError('body must be a JSON object: {"output": "...", "preset": "..."}')
        unknown = sorted(str(k) for k in body if k not in FIELDS)
        if unknown:
            raise InputError(
                f"unknown field '{unknown[0][:80]}'; the fields are {', '.join(FIELDS)}"
            )
        return body
    try:
        text = request.get_data(as_text=False).decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("body (the output) must be UTF-8 text") from None
    return {"output": text, **{k: request.args[k] for k in FIELDS[1:] if k in request.args}}


def _ranks(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_RANKS:
        raise InputError(f"ranks must be a whole number in 1..{MAX_RANKS}; got {value!r}"[:200])
    return value


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        shown = repr(value)[:60]
        raise InputError(f"{name} must be one of {', '.join(allowed)}; got {shown}")
    return value


@bp.post("/api/nccl-tests")
def read():
    """Parse the output, check its numbers and predict each size on the chosen preset."""
    fields = _inputs()
    output = fields.get("output")
    if not isinstance(output, str) or not output.strip():
        raise InputError("output must be the text (or -J JSON) that an nccl-tests binary printed")
    preset = _choice("preset", fields.get("preset", DEFAULT_PRESET), PRESETS)
    collective = fields.get("collective")
    if collective is not None:
        collective = _choice("collective", collective, COLLECTIVES)
    ranks = _ranks(fields.get("ranks"))
    try:
        reading = read_output(output, collective=collective, ranks=ranks)
    except (NcclTestsError, RecursionError) as error:
        raise InputError(f"output: {error}"[:500]) from None
    lang = page_language()
    try:
        model = model_beside(reading, preset, lang)
    except CostError as error:  # a shape the cost model refuses (e.g. too many ranks)
        raise InputError(f"ranks: {error}") from None
    # The page's words in the reader's language: the summary, the notes and the sentence.
    said = {"summary": reading.summary(lang), "notes": [translate(lang, n) for n in reading.notes]}
    return jsonify(finite({"reading": {**reading.as_dict(), **said}, "model": model}))
