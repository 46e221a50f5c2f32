"""The palette's values (app/drawing/palette.py, which static/js/palette.js draws with),
checked as numbers: chunk colours stay apart for deuteranopes and protanopes, ranks are neutral
and far from every chunk colour, and the rank numbers are readable on their discs in both
themes. The browser test in tests/browser/test_lab_views.py checks the colours the views draw."""

from __future__ import annotations

import pytest

from app.drawing.palette import CHUNK_COLORS, chunk_color, rank_tone
from tests.colour import DICHROMATS, contrast, delta_e, lab

THEMES = ("light", "dark")


def chunk_colours(theme: str) -> list[str]:
    """The chunk colours as the views draw them in `theme` (black becomes the page's ink)."""
    return [chunk_color(i, theme) for i in range(len(CHUNK_COLORS))]


def chroma(colour: str) -> float:
    _, a, b = lab(colour)
    return (a * a + b * b) ** 0.5


def test_delta_e_and_contrast_match_known_values():
    assert delta_e("#ffffff", "#000000") == pytest.approx(100, abs=0.1)
    assert delta_e("#ff0000", "#ff0000") == 0
    assert delta_e("rgb(255, 0, 0)", "#00ff00") == pytest.approx(170.6, abs=0.5)
    # red and green, far apart for most readers, nearly meet for a deuteranope
    assert delta_e("#d62728", "#2ca02c") > 100 and delta_e("#d62728", "#2ca02c", "deuteranope") < 10
    assert contrast("#ffffff", "#000000") == pytest.approx(21)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("vision", list(DICHROMATS))
def test_every_two_chunk_colours_stay_apart(theme, vision):
    colours = chunk_colours(theme)
    assert len(set(colours)) == 8
    closest = min(
        (delta_e(a, b, vision), a, b) for i, a in enumerate(colours) for b in colours[i + 1 :]
    )
    assert closest[0] >= 15, f"{vision}, {theme}: {closest[1]} and {closest[2]} look alike"


@pytest.mark.parametrize("theme", THEMES)
def test_ranks_have_no_hue_and_are_far_from_every_chunk_colour(theme):
    """A rank is a grey disc: it shares no hue with a chunk, whoever looks at it."""
    tone = rank_tone(theme)
    assert all(chroma(c) < 8 for c in tone.values()), tone  # greys; chunk colours have hue
    assert all(chroma(c) > 30 for c in chunk_colours(theme) if c not in ("#000000", "#E8E9EC"))
    # The disc's fill is what a reader compares with a chunk. Its outline and number are greys
    # too (no hue), but no grey can stay ΔE 20 from every chunk for a deuteranope on a dark
    # page: Okabe & Ito's reddish purple turns grey for them, and the eighth chunk is the ink.
    for vision in DICHROMATS:
        near = min(delta_e(tone["fill"], c, vision) for c in chunk_colours(theme))
        assert near >= 28, f"{theme} rank disc: ΔE {near:.1f} to a chunk ({vision})"


@pytest.mark.parametrize("theme", THEMES)
def test_a_ranks_number_is_readable_on_its_disc(theme):
    tone = rank_tone(theme)
    assert contrast(tone["text"], tone["fill"]) >= 4.5  # WCAG AA for text
    assert contrast(tone["line"], tone["fill"]) >= 3  # WCAG AA for the disc's outline
