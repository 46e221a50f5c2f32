"""The allow-list every lesson page passes through (nh3): tags, attributes and safe values.

HTML, MathML and SVG tags a lesson may use; everything else is removed: scripts, styles,
event handlers, `javascript:` URLs, frames of anything but the app's own embeds.
"""

from __future__ import annotations

import re
from functools import lru_cache

import nh3

HTML_TAGS = {
    "a", "abbr", "aside", "b", "blockquote", "br", "caption", "cite", "code", "col", "colgroup",
    "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2",
    "h3", "h4", "h5", "h6", "hr", "i", "iframe", "img", "ins", "kbd", "li", "mark", "ol", "p",
    "pre", "q", "s", "samp", "section", "small", "span", "strong", "sub", "summary", "sup",
    "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul", "var",
}  # fmt: skip
MATHML_TAGS = {
    "math", "semantics", "annotation", "menclose", "merror", "mfrac", "mi", "mmultiscripts",
    "mn", "mo", "mover", "mpadded", "mphantom", "mprescripts", "mroot", "mrow", "ms", "mspace",
    "msqrt", "mstyle", "msub", "msubsup", "msup", "mtable", "mtd", "mtext", "mtr", "munder",
    "munderover",
}  # fmt: skip
SVG_TAGS = {
    "svg", "g", "defs", "marker", "title", "desc", "circle", "ellipse", "line", "path",
    "polyline", "polygon", "rect", "text", "tspan",
}  # fmt: skip
SVG_PAINT = {
    "fill", "stroke", "stroke-width", "stroke-dasharray", "stroke-linecap", "stroke-linejoin",
    "opacity", "fill-opacity", "stroke-opacity", "marker-start", "marker-end", "transform",
    "font-size", "font-weight", "text-anchor", "dominant-baseline",
}  # fmt: skip
ATTRIBUTES: dict[str, set[str]] = {
    "*": {"class", "id", "lang", "dir", "title", "role", "aria-label", "aria-labelledby",
          "aria-describedby", "aria-hidden"},
    "a": {"href"},
    "img": {"src", "alt", "width", "height", "loading"},
    "iframe": {"src", "loading", "allowfullscreen", "referrerpolicy", "data-follows-theme",
               "data-collective-lab"},
    "td": {"colspan", "rowspan", "style"},
    "th": {"colspan", "rowspan", "scope", "style"},
    "pre": {"tabindex"},
    "ol": {"start", "type", "reversed"},
    "li": {"value"},
    "details": {"open"},
    "math": {"xmlns", "display", "alttext"},
    "annotation": {"encoding"},
    "mi": {"mathvariant"},
    "mn": {"mathvariant"},
    "mtext": {"mathvariant"},
    "mo": {"stretchy", "fence", "form", "separator", "lspace", "rspace", "accent",
           "movablelimits", "largeop", "symmetric", "minsize", "maxsize", "mathvariant"},
    "mfrac": {"linethickness"},
    "mspace": {"width", "height", "depth"},
    "mpadded": {"width", "height", "depth", "lspace", "voffset"},
    "mover": {"accent"},
    "munder": {"accentunder"},
    "munderover": {"accent", "accentunder"},
    "mstyle": {"displaystyle", "scriptlevel", "mathvariant"},
    "menclose": {"notation"},
    "mtable": {"columnalign", "rowalign", "columnspacing", "rowspacing", "displaystyle"},
    "mtr": {"columnalign", "rowalign"},
    "mtd": {"columnalign", "rowalign", "columnspan", "rowspan"},
    "svg": {"xmlns", "viewBox", "width", "height", "preserveAspectRatio"} | SVG_PAINT,
    "g": SVG_PAINT,
    "marker": {"viewBox", "refX", "refY", "markerWidth", "markerHeight", "markerUnits", "orient"},
    "circle": {"cx", "cy", "r"} | SVG_PAINT,
    "ellipse": {"cx", "cy", "rx", "ry"} | SVG_PAINT,
    "rect": {"x", "y", "width", "height", "rx", "ry"} | SVG_PAINT,
    "line": {"x1", "y1", "x2", "y2"} | SVG_PAINT,
    "path": {"d"} | SVG_PAINT,
    "polyline": {"points"} | SVG_PAINT,
    "polygon": {"points"} | SVG_PAINT,
    "text": {"x", "y", "dx", "dy"} | SVG_PAINT,
    "tspan": {"x", "y", "dx", "dy"} | SVG_PAINT,
}  # fmt: skip
LOCAL_MARKER = re.compile(r"^url\(#[A-Za-z0-9_-]+\)$")
TABLE_ALIGN = re.compile(r"^text-align:\s*(left|right|center)\s*;?$")


def _attribute_filter(element: str, attribute: str, value: str) -> str | None:
    """Keep frames on the app's own embeds, markers on local ids, styles on table alignment."""
    if element == "iframe" and attribute == "src":
        return value if value.startswith("/embed/") else None
    if attribute in ("marker-start", "marker-end"):
        return value if LOCAL_MARKER.match(value) else None
    if attribute == "style":
        return value if TABLE_ALIGN.match(value.strip()) else None
    return value


@lru_cache(maxsize=1)
def _cleaner() -> nh3.Cleaner:
    return nh3.Cleaner(
        tags=HTML_TAGS | MATHML_TAGS | SVG_TAGS,
        clean_content_tags={"script", "style"},
        attributes=ATTRIBUTES,
        attribute_filter=_attribute_filter,
        generic_attribute_prefixes={"data-"},
        url_schemes={"http", "https", "mailto"},
    )


def sanitize(html: str) -> str:
    """Remove everything the allow-list does not name: scripts, on* handlers, javascript: URLs."""
    return _cleaner().clean(html)
