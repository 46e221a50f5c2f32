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


# -- lessons ------------------------------------------------------------------------------------

HEADING = re.compile(r"^(#{1,6})\s", re.M)
DIRECTIVE_LINE = re.compile(r"^\s*@\S.*$", re.M)
CAPTION = re.compile(r'caption="[^"]*"')
FENCED = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)
CONTAINER_LINE = re.compile(r"^\s*:{3,}.*$", re.M)
LINK_TARGET = re.compile(r"\]\(([^)\s]+)")
TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$", re.M)
SAME_FIELDS = ("slug", "minutes", "prerequisites", "tags", "sources")
LISTED_FIELDS = ("objectives", "key_points")


def lesson_differences(en_meta: dict, en_body: str, tr_meta: dict, tr_body: str) -> list[str]:
    """Say how a translated lesson differs from its English twin in what must stay the same:
    front matter ids, headings, live elements, formulas, code, links, tables and numbers."""
    out = []
    if set(en_meta) != set(tr_meta):
        out.append(f"front matter keys {sorted(tr_meta)} differ from the English {sorted(en_meta)}")
    for name in SAME_FIELDS:
        if en_meta.get(name) != tr_meta.get(name):
            out.append(f"front matter '{name}' must be the English's: {en_meta.get(name)!r}")
    for name in LISTED_FIELDS:
        en, tr = en_meta.get(name) or [], tr_meta.get(name) or []
        if len(en) != len(tr):
            out.append(f"front matter '{name}' has {len(tr)} entries, the English {len(en)}")
    for name in ("title", "summary", *LISTED_FIELDS):
        en, tr = en_meta.get(name) or "", tr_meta.get(name) or ""
        out += [f"front matter '{name}': {p}" for p in differences(str(en), str(tr))]
    out += _body_differences(en_body, tr_body)
    return out


def heading_levels(body: str) -> list[int]:
    """The levels of a Markdown body's headings, in order, code blocks left out."""
    return [len(m.group(1)) for m in HEADING.finditer(FENCED.sub("", body))]


def _body_differences(en: str, tr: str) -> list[str]:
    out = []
    checks = (
        ("headings (levels in order)", heading_levels),
        ("directive lines (captions aside)", _directives),
        ("formulas", formulas),
        ("code blocks", lambda t: [m.group(0) for m in FENCED.finditer(t)]),
        ("containers (kinds in order)", _containers),
        ("link targets", lambda t: sorted(LINK_TARGET.findall(t))),
        ("table cells per row", _table_shape),
    )
    for what, take in checks:
        a, b = take(en), take(tr)
        if a != b:
            first = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
            where = (
                f"first difference at #{first + 1}: {b[first]!r} for {a[first]!r}"
                if (first is not None)
                else f"{len(b)} against the English's {len(a)}"
            )
            out.append(f"{what} differ from the English: {where}")
    out += [f"body: {p}" for p in differences(en, tr)]
    return out


def _directives(body: str) -> list[str]:
    return [CAPTION.sub('caption="…"', m.group(0).strip()) for m in DIRECTIVE_LINE.finditer(body)]


def _containers(body: str) -> list[str]:
    """The `:::` lines as their kind alone (a custom title is translated with the text)."""
    return [" ".join(ln.split()[:2]) for ln in CONTAINER_LINE.findall(FENCED.sub("", body))]


def _table_shape(body: str) -> list[int]:
    return [row.strip().strip("|").count("|") for row in TABLE_ROW.findall(FENCED.sub("", body))]
