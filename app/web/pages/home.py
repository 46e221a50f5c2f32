"""HTML pages that are not a feature of their own: home, the health check and the site icon."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, current_app, jsonify, render_template

bp = Blueprint("pages", __name__)

ICON = "favicon.svg"
ICON_MAX_AGE_S = 24 * 3600


@bp.get("/")
def home():
    """Show what the app is and where to start, with the course's reading and practice time."""
    from app.course import LessonError

    from .lessons import library

    try:
        lib = library()
        course = (len(lib.lessons), lib.total_pacing())
    except LessonError:  # a broken course.yaml: the lessons page says why; home stays up
        course = None
    return render_template("pages/home.html", course=course)


@bp.get("/favicon.ico")
def favicon():
    """Serve the site icon where browsers look for it unasked, so no page or embed logs a 404.

    Pages link static/favicon.svg themselves (templates/base.html); this answers browsers and
    host pages that ask for /favicon.ico anyway. Chromium and Firefox draw an SVG served here.
    """
    icon = Path(current_app.static_folder, ICON).read_bytes()  # 400 bytes: no file left open
    response = Response(icon, mimetype="image/svg+xml")
    response.cache_control.public = True
    response.cache_control.max_age = ICON_MAX_AGE_S
    return response


@bp.get("/healthz")
def healthz():
    """Report that the server is up."""
    return jsonify(status="ok")
