"""Code in lessons is readable: every Pygments token colour reaches WCAG AA (4.5:1) against the
code background, in the light and the dark theme (axe-core flagged comments at 4.38:1)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE_CSS = (ROOT / "static" / "css" / "site.css").read_text()
LESSONS_CSS = (ROOT / "static" / "css" / "lessons.css").read_text()
RULE = re.compile(
    r'^(\[data-theme="dark"\] )?\.lesson-body pre (?::is\(([^)]*)\)|(\.[a-z0-9]+)) \{([^}]*)\}',
    re.M,
)
COLOUR = re.compile(r"(?<![-\w])color:\s*#([0-9a-fA-F]{6})")
AA = 4.5


def code_background(theme: str) -> str:
    """Return --code-bg of a theme from site.css (light in :root, dark in its own block)."""
    block = re.search(
        r"\[data-theme=\"dark\"\] \{([^}]*)\}" if theme == "dark" else r":root \{([^}]*)\}",
        SITE_CSS,
    )
    return re.search(r"--code-bg:\s*#([0-9a-fA-F]{6})", block.group(1)).group(1)


def token_colours(theme: str) -> dict[str, str]:
    """Return each token class's colour in a theme: a dark rule overrides the light one."""
    light, dark = {}, {}
    for m in RULE.finditer(LESSONS_CSS):
        colour = COLOUR.search(m.group(4))
        if not colour:
            continue
        classes = [c.strip() for c in (m.group(2) or m.group(3)).split(",")]
        for cls in classes:
            (dark if m.group(1) else light)[cls] = colour.group(1)
    return {**light, **dark} if theme == "dark" else light


def luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_code_token_colour_reaches_aa_on_the_code_background(theme):
    background = code_background(theme)
    colours = token_colours(theme)
    assert ".c1" in colours and ".k" in colours  # the rules were read
    low = {
        cls: round(contrast(colour, background), 2)
        for cls, colour in colours.items()
        if contrast(colour, background) < AA
    }
    assert low == {}, f"{theme}: below {AA}:1 on #{background}: {low}"
