"""The classroom's pages: start or join a class (/class), a room (/class/<code>), its QR code.

The pages only draw. Everything a room does (create, join, drive, polls, end) goes over the
`/class` Socket.IO namespace (app/web/live/classroom.py); whether a visitor is the teacher is
decided in the browser, which keeps the teacher token (static/js/class-room.js). So a room page
is the same HTML for everyone, and a well-formed code of a room that has ended still renders:
the page says so once the server answers the join.

A code may be typed in lower case or with a dash ("ack-3d7"): such a URL redirects to the
canonical one, so every device shows, shares and stores one spelling.
"""

from __future__ import annotations

import io

import segno
from flask import Blueprint, Response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from werkzeug.datastructures import MultiDict

from app.classroom.codes import ALPHABET, CODE_LENGTH, normalize_code

from .lab import lab_context, parse_state

bp = Blueprint("classroom", __name__)

QR_MAX_AGE_S = 24 * 3600  # a code's join URL never changes; a day keeps projectors off the server
QR_ERROR_LEVEL = "m"  # 15% of the symbol may be lost (a projector's glare) and still scan
QR_QUIET_ZONE = 4  # modules of light border, as the QR standard asks
SHOWN_CHARS = 60  # of a mistyped code, shown back


def code_problem(text: str) -> str:
    """Say what is wrong with `text` as a class code, in the words a student needs."""
    shown = text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"
    return _(
        "“%(typed)s” is not a class code. A code has %(length)s characters from %(alphabet)s "
        "(no 0, O, 1, I, L, 2, Z, 5, S, 8 or B): check it on the teacher's screen.",
        typed=shown,
        length=CODE_LENGTH,
        alphabet=" ".join(ALPHABET),
    )


def join_url(code: str) -> str:
    """Return the absolute URL a student opens to join `code`, on the host this request used."""
    return url_for("classroom.room", code=code, _external=True)


def not_a_code(text: str):
    """Render the page that names what is wrong with a code, with status 404."""
    return render_template("class/not_found.html", message=code_problem(text)), 404


@bp.get("/class")
def start():
    """Offer to start a class, or to join one by typing its code (?code= from the join form)."""
    typed = request.args.get("code")
    if typed is None:
        return render_template("class/start.html", typed="", problem=None)
    code = normalize_code(typed)
    if code is None:
        return render_template("class/start.html", typed=typed, problem=code_problem(typed)), 400
    return redirect(url_for("classroom.room", code=code))


@bp.get("/class/<code>")
def room(code: str):
    """Show a class: the lab, and the class bar (teacher) or follow controls (student)."""
    canonical = normalize_code(code)
    if canonical is None:
        return not_a_code(code)
    if canonical != code:
        return redirect(url_for("classroom.room", code=canonical), 301)
    state = parse_state(MultiDict())  # the lab's defaults; the room's state follows
    context = lab_context(state, 1.0)
    context["config"]["keep_url"] = True  # the address bar keeps the class's URL, not the lab's
    context["config"]["class"] = {
        "code": code,
        "join_url": join_url(code),
        "topics_url": url_for("quiz_api.topics"),
        "questions_url": url_for("quiz_api.questions"),
    }
    return render_template(
        "class/room.html",
        code=code,
        join_url=join_url(code),
        qr_url=url_for("classroom.qr", code=code),
        **context,
    )


@bp.get("/class/<code>/qr.svg")
def qr(code: str):
    """Draw the QR code of the join URL as SVG, for the class bar and for printing."""
    canonical = normalize_code(code)
    if canonical is None:
        return not_a_code(code)
    url = join_url(canonical)
    out = io.BytesIO()
    segno.make(url, error=QR_ERROR_LEVEL, micro=False).save(
        out,
        kind="svg",
        scale=1,
        border=QR_QUIET_ZONE,
        omitsize=True,  # a viewBox only: the page sizes it
        dark="#000",
        light="#fff",  # its own light background, so it scans on a dark page too
        title=_("QR code: join class %(code)s at %(url)s", code=canonical, url=url),
        svgclass=None,
        lineclass=None,
    )
    response = Response(out.getvalue(), mimetype="image/svg+xml")
    response.vary.update(("Cookie", "Accept-Language"))  # its title is in the reader's language
    response.cache_control.public = True
    response.cache_control.max_age = QR_MAX_AGE_S
    response.add_etag()
    return response.make_conditional(request)
