"""What a translation must keep from its English original.

A translated text says the same thing with the same numbers: every number, formula, template
placeholder and directive of the English appears in the translation, the same number of times.
These are the only comparisons; wording, order of clauses and punctuation are the translator's.
"""

from __future__ import annotations

import re
from collections import Counter

FORMULA = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$", re.S)
CODE = re.compile(r"`[^`\n]+`")
PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_.]*\}")
NUMBER = re.compile(r"\d+(?:\.\d+)?")
THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
# Full-width digits and the decimal point a Chinese text may use are read as ASCII.
FULL_WIDTH = str.maketrans("０１２３４５６７８９．", "0123456789.")


def formulas(text: str) -> list[str]:
    """The $...$ and $$...$$ formulas of a Markdown text, in order."""
    return FORMULA.findall(text)


def placeholders(text: str) -> Counter:
    """The {name} template placeholders of a question's text, with their counts."""
    return Counter(PLACEHOLDER.findall(text))


def numbers(text: str) -> Counter:
    """The numbers written in digits in `text`, formulas and code included ("1,024" is 1024)."""
    plain = THOUSANDS.sub("", text.translate(FULL_WIDTH))
    return Counter(NUMBER.findall(plain))


def differences(english: str, translated: str) -> list[str]:
    """Say what the translation lost or added of the English's numbers and placeholders."""
    out = []
    for what, count in (("numbers", numbers), ("placeholders", placeholders)):
        en, tr = count(english), count(translated)
        if en != tr:
            missing = sorted((en - tr).elements())
            extra = sorted((tr - en).elements())
            parts = [f"missing {missing}" if missing else "", f"extra {extra}" if extra else ""]
            out.append(f"{what} differ from the English: " + ", ".join(p for p in parts if p))
    return out
