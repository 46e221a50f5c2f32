"""`/nccl-tests`: paste or upload nccl-tests output and see its busbw beside the cost model.

The page posts to `POST /api/nccl-tests` (app/web/api/nccl_tests.py) and draws what it answers;
it offers the presets and collectives the API accepts, from the same lists.
"""

from __future__ import annotations

from flask import Blueprint, render_template

from app.costs import HARDWARE, SYSTEMS
from app.reading.nccl_tests import COLLECTIVES

from ..api.nccl_tests import DEFAULT_PRESET

bp = Blueprint("nccl_tests_page", __name__)


@bp.get("/nccl-tests")
def page():
    """Show the paste box, the preset choice and the empty chart and table."""
    presets = [(s.key, s.label) for s in SYSTEMS.values()]
    presets += [(link.key, link.label) for link in HARDWARE.values()]
    return render_template(
        "pages/nccl_tests.html",
        presets=presets,
        default_preset=DEFAULT_PRESET,
        collectives=COLLECTIVES,
    )
