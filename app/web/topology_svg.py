"""The topology's SVG as `sim_start` carries it (`layout.topology_svg`): the markup of the
`topology_svg` macro (templates/lab/_step0.html), the very picture the embed's HTML holds inline,
so the lab, the classroom and the embed draw one static picture and the browser draws none.

Rendered with a Jinja environment of its own: runs are encoded in background tasks, outside any
request or app context. It autoescapes as Flask's does for .html templates, so the markup is the
same text the embed's page holds.
"""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2

from app.collectives import Trace
from app.drawing.step0 import topology_label
from app.drawing.topology import topology
from app.i18n import DEFAULT

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


@functools.cache
def _macro():
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True)
    return env.get_template("lab/_step0.html").module.topology_svg


def topology_svg(trace: Trace, lang: str = DEFAULT) -> str:
    """The run's topology before its first step, as one <svg> element's markup; its words
    (hover titles, labels, text alternative) in `lang`."""
    return str(_macro()(topology(trace, lang), topology_label(trace, lang))).strip()
