"""A formula in question text carries its accessible name: an option that is only a formula
("$3M$") is still a labelled choice (axe's `label` rule takes no name from MathML)."""

from __future__ import annotations

import re

import pytest

from app.quiz.text import render, spoken


@pytest.mark.parametrize(
    ("tex", "said"),
    [
        ("3M", "3M"),
        (r"\frac{2(p-1)}{p} \cdot M\beta", "(2(p-1))/(p) · Mβ"),
        (r"\lceil \lg p \rceil (\alpha + M\beta)", "ceil( lg p ) (α + Mβ)"),
        (r"\frac{p-1}{p}M", "(p-1)/(p)M"),
    ],
)
def test_a_formula_is_spoken_as_plain_text(tex, said):
    assert spoken(tex) == said


def test_rendered_math_names_itself_and_keeps_the_name_through_the_sanitizer():
    html = render(r"Each rank sends $\frac{2(p-1)}{p}M$ bytes.", inline=True)
    assert re.search(r'<math aria-label="\(2\(p-1\)\)/\(p\)M"', html)


def test_a_name_cannot_break_out_of_its_attribute():
    html = render(r'$\text{"><script>x</script>}$', inline=True)
    assert "<script" not in html
