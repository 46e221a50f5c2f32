"""The one palette of every view, server-drawn or browser-drawn.

A colour on screen always means a chunk: chunks use Okabe & Ito's eight colours (their black is
drawn in the page's ink on dark pages), and one arrow carrying several chunks is a neutral grey.
Ranks are never told apart by colour: each is a neutral disc with its number, in the same tone
in every view, far from every chunk colour in both themes (CIE76 ΔE 39 or more; 28 or more for
deuteranopes and protanopes; tests/web/test_palette.py), so no rank can be taken for a chunk.
Holdings counts use cividis, readable for every common colour-vision deficiency: Plotly's named
scale, whose stops the Python plotly package carries (the browser's plotly.js has the same).
Chunk colours repeat past eight, so labels always accompany them.

The pages hand `browser()` to static/js/palette.js as JSON (templates/base.html), and the
embed's server-rendered first picture (`app.drawing.step0`) colours with the same values.
"""

from __future__ import annotations

# _plotly_utils is the plotly package's own colour module: the scales without the 0.2 s import
# of `plotly` itself.
from _plotly_utils.colors import PLOTLY_SCALES

CHUNK_COLORS = (
    *("#E69F00", "#56B4E9", "#009E73", "#F0E442"),
    *("#0072B2", "#D55E00", "#CC79A7", "#000000"),
)
DARK_INK = "#E8E9EC"  # Okabe & Ito's black on a dark page
MANY_CHUNKS = {"light": "#6B6F78", "dark": "#8E939D"}  # one arrow for several chunks
# A rank's disc: its fill, its outline, and the number written in it.
RANK_TONES = {
    "light": {"fill": "#E4E6EA", "line": "#5B5F6A", "text": "#1C1D21"},
    "dark": {"fill": "#2F333B", "line": "#A3A8B3", "text": "#E8E9EC"},
}
COUNT_SCALE = "Cividis"
CIVIDIS: tuple[tuple[float, tuple[int, int, int]], ...] = tuple(
    (float(stop), tuple(int(v) for v in colour[4:-1].split(",")))
    for stop, colour in PLOTLY_SCALES[COUNT_SCALE]
)


def _hex(rgb) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def theme_of(theme: str) -> str:
    return "dark" if theme == "dark" else "light"


def chunk_color(i: int, theme: str = "light") -> str:
    """Return chunk i's colour; Okabe & Ito's black is the page's ink on a dark page."""
    color = CHUNK_COLORS[i % len(CHUNK_COLORS)]
    return DARK_INK if theme_of(theme) == "dark" and color == "#000000" else color


def rank_tone(theme: str = "light") -> dict[str, str]:
    return RANK_TONES[theme_of(theme)]


def count_color(value: float, top: float) -> str:
    """Return the cividis colour of `value` on a scale from 0 to `top`, as Plotly's heatmap
    paints it: linear in RGB between the scale's stops."""
    t = min(1.0, max(0.0, value / top if top else 1.0))
    for (s0, c0), (s1, c1) in zip(CIVIDIS, CIVIDIS[1:], strict=False):
        if t <= s1:
            f = (t - s0) / (s1 - s0) if s1 > s0 else 0.0
            return _hex(round(a + (b - a) * f) for a, b in zip(c0, c1, strict=True))
    return _hex(CIVIDIS[-1][1])


def browser() -> dict:
    """The palette as static/js/palette.js takes it (camelCase names, as in the script)."""
    return {
        "chunkColors": list(CHUNK_COLORS),
        "darkInk": DARK_INK,
        "manyChunks": MANY_CHUNKS,
        "rankTones": RANK_TONES,
        "countScale": COUNT_SCALE,
        "cividis": [[stop, _hex(rgb)] for stop, rgb in CIVIDIS],
    }
