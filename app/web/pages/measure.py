"""`/measure`: run real collectives across processes on this machine and watch busbw arrive.

The page talks to the `/measure` Socket.IO namespace (app/web/live/measure.py); it offers the
backends this machine has (app.measure.backends), and when there is none it says how to
install one instead of a form. With the setting MEASURE_ENABLED false it offers no form and
says why and how to turn measuring on (app.web.live.measure.DISABLED).
"""

from __future__ import annotations

from flask import Blueprint, current_app, render_template
from flask_babel import gettext as _

from app.costs import HARDWARE
from app.measure.backends import backends
from app.measure.config import COLLECTIVES, cores

from ..live.measure import DISABLED, MAX_WEB_BYTES, MAX_WEB_ITERS, enabled, max_ranks

bp = Blueprint("measure_page", __name__)


@bp.get("/measure")
def page():
    """Show the form (or how to install a backend, or why measuring is off), the chart and table."""
    if not enabled(current_app):
        return render_template("pages/measure.html", disabled=_(DISABLED), installed=[])
    found = backends()
    installed = [name for name in ("mpi", "torch") if found[name]["installed"]]
    return render_template(
        "pages/measure.html",
        installed=installed,
        install=found.get("install", ""),
        collectives=COLLECTIVES,
        cores=cores(),
        max_ranks=max_ranks(),
        max_bytes=MAX_WEB_BYTES,
        max_iters=MAX_WEB_ITERS,
        presets=[(link.key, link.label) for link in HARDWARE.values()],
    )
