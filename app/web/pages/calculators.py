"""The calculator pages: /calculators, /embed/calc/<name>, and the widget any page may include.

A widget's numbers come from /api/calc/<name> (app/web/api/costs.py); this module renders the
first answer into the page so it reads without JavaScript.
"""

from __future__ import annotations

from flask import Blueprint, g, render_template, request, url_for
from flask_babel import gettext as _
from markupsafe import Markup

from app.costs import COLLECTIVES, HARDWARE, algorithms
from app.costs.calculators import CALCULATORS
from app.costs.calculators.query import run_widget

from ..api.costs import finite
from ..calculator_text import result_text, spec_text

bp = Blueprint("calculators", __name__)


def widget_data(name: str, args=None) -> dict:
    """Return what a widget needs: its spec, initial values and result, presets, API URL; its
    words in the page's language."""
    spec = CALCULATORS[name]
    answer, error = run_widget(name, dict(args or {}))
    result = finite(answer.as_dict())
    return {
        "spec": spec_text(spec.as_dict()),
        "values": result["inputs"],
        "result": result_text(result),
        "error": error,
        "api": url_for("costs.calc", name=name),
        "algorithms": {c: algorithms(c) for c in COLLECTIVES},
        "page": url_for("calculators.index") + f"#calc-{name}",
    }


def calculator_assets() -> Markup:
    """Return the calculators' stylesheet and scripts the first time a page asks, then nothing."""
    if g.get("calculator_assets_done"):
        return Markup("")
    g.calculator_assets_done = True
    presets = {key: link.as_dict() for key, link in HARDWARE.items()}
    return Markup(render_template("calculators/_assets.html", presets=presets))


def number_text(value: object) -> str:
    """Write a number for an input box: shortest round-trip form, whole floats as integers."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


@bp.app_context_processor
def widget_helpers() -> dict:
    """Let any template include a calculator widget: `{% include "calculators/_widget.html" %}`."""
    return {
        "calculator_widget_data": widget_data,
        "calculator_assets": calculator_assets,
        "calculator_number": number_text,
    }


@bp.get("/calculators")
def index():
    """Show every calculator as a live widget."""
    calculators = [spec_text(spec.as_dict()) for spec in CALCULATORS.values()]
    return render_template("calculators/index.html", calculators=calculators)


@bp.get("/embed/calc/<name>")
def embed(name: str):
    """Show one calculator with minimal chrome, for an iframe; the query presets its inputs."""
    theme = request.args.get("theme", "light")
    args = {k: v for k, v in request.args.items() if k != "theme"}
    if name not in CALCULATORS or theme not in ("light", "dark"):
        message = (
            _("theme must be light or dark; got %(theme)s", theme=repr(theme))
            if name in CALCULATORS
            else _(
                "There is no calculator %(name)s. There are: %(names)s.",
                name=repr(name),
                names=", ".join(CALCULATORS),
            )
        )
        status = 404 if name not in CALCULATORS else 400
        page = render_template("calculators/missing.html", message=message, theme_fixed=True)
        return page, status
    return render_template(
        "calculators/embed.html", calc_name=name, calc_args=args, theme=theme, theme_fixed=True
    )
