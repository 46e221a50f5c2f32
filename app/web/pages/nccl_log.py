"""The page "Paste an NCCL log": /nccl-log shows what NCCL built, drawn on the server.

`GET /nccl-log` is the form; `POST /nccl-log` (a form: the textarea `log`, or a file `file`)
answers the same page with the reading (app/reading/nccl_log.py) and its picture
(app/drawing/nccl_log.py) as SVG: no script is needed to see it; static/js/nccl-log.js only
turns the list of channels into one channel at a time with a picker. A bad paste gets the form
back with the reason (400). The JSON of the same reading is `POST /api/nccl-log`.
"""

from __future__ import annotations

from flask import Blueprint, render_template, request

from app.drawing.nccl_log import picture
from app.reading.nccl_log import MAX_CHARS, NcclLogError, parse
from app.reading.nccl_log_summary import summarize

from ..i18n import page_language

bp = Blueprint("nccl_log", __name__)


def _posted_log() -> str:
    """Return the uploaded file's text if one was chosen, else the textarea's."""
    upload = request.files.get("file")
    if upload is not None and upload.filename:
        raw = upload.read(MAX_CHARS * 4 + 1)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise NcclLogError("file: must be UTF-8 text, the log as NCCL printed it") from None
    return request.form.get("log", "")


@bp.route("/nccl-log", methods=["GET", "POST"])
def page():
    """Show the form; after a POST, the reading and its picture, or why the paste was refused."""
    if request.method == "GET":
        return render_template(
            "nccl_log/page.html", reading=None, log="", error=None, max_chars=MAX_CHARS
        )
    log = ""
    try:
        log = _posted_log()
        reading = parse(log)
    except NcclLogError as exc:
        page = render_template(
            "nccl_log/page.html",
            reading=None,
            log=log[:MAX_CHARS],
            error=str(exc),
            max_chars=MAX_CHARS,
        )
        return page, 400
    lang = page_language()
    return render_template(
        "nccl_log/page.html",
        reading={**reading, "summary": summarize(reading, lang)},
        drawing=picture(reading, lang),
        log=log,
        error=None,
        max_chars=MAX_CHARS,
    )
