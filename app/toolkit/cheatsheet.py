"""The one-page cheat sheet: the text of lessons/toolkit/cheatsheet.yaml, the numbers of the code.

Formulas and NCCL facts live only in the YAML (they agree with REFERENCE.md); the busbw
factors are computed by `app.costs.bus_factor` and the link bandwidths read from the presets
of app/costs/hardware.py, so the sheet cannot drift from the calculators. The text carries its
Chinese beside the English (`zh:`, app/toolkit/translation.py): `sheet(lang)`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from app.costs import HARDWARE, bus_factor
from app.costs.hardware import INTER_NODE
from app.i18n import DEFAULT
from app.yamlload import safe_load

from .translation import TEXT, Entry, check_entries, in_language

SHEET_FILE = Path(__file__).resolve().parents[2] / "lessons" / "toolkit" / "cheatsheet.yaml"
EXAMPLE_RANKS = (8, 128)  # one node, and the running case's 16 nodes × 8 GPUs
# The sheet's text fields, by part: NCCL's and the collectives' names stay in English.
SHEET_TEXT = {"conventions": TEXT, "lower_bound": TEXT, "algorithms_note": TEXT}
LISTS_TEXT = {
    "formulas": {"name": TEXT, "note": TEXT},
    "algorithms": {"what": TEXT, "when": TEXT},
    "protocols": {"what": TEXT},
    "facts": {"title": TEXT, "text": TEXT},
}
PARTS_TEXT = {"busbw": {"note": TEXT}, "hardware": {"note": TEXT, "extra": TEXT}}


@cache
def _text() -> dict:
    return safe_load(SHEET_FILE.read_text(encoding="utf-8"))


def entries(data: dict) -> list[Entry]:
    """Every translatable entry of a cheat sheet file: the sheet, its parts, each list item."""
    out = [Entry("cheatsheet.yaml", data, SHEET_TEXT)]
    out += [Entry(f"cheatsheet.yaml: {k}", data[k], spec) for k, spec in PARTS_TEXT.items()]
    for name, spec in LISTS_TEXT.items():
        out += [
            Entry(f"cheatsheet.yaml: {name}[{i}]", item, spec)
            for i, item in enumerate(data[name], start=1)
        ]
    return out


def load(data: dict, lang: str = DEFAULT) -> dict:
    """The sheet's text in `lang`, its translations checked (TranslationError names the field)."""
    check_entries(entries(data))
    out = in_language(Entry("", data, SHEET_TEXT), lang)
    for name, spec in PARTS_TEXT.items():
        out[name] = in_language(Entry("", data[name], spec), lang)
    for name, spec in LISTS_TEXT.items():
        out[name] = [in_language(Entry("", item, spec), lang) for item in data[name]]
    return out


@cache
def text(lang: str = DEFAULT) -> dict:
    """lessons/toolkit/cheatsheet.yaml's text in `lang`."""
    return load(_text(), lang)


def busbw_rows() -> list[dict]:
    """Each family of collectives with its factor as written and as the code computes it."""
    rows = []
    for row in _text()["busbw"]["rows"]:
        first = row["collectives"][0]
        values = {n: bus_factor(first, n) for n in EXAMPLE_RANKS}
        rows.append({**row, "values": values})
    return rows


def hardware_rows() -> list[dict]:
    """The sheet's links: label, GB/s per direction and both ways, and Gb/s for a NIC."""
    rows = []
    for key in _text()["hardware"]["links"]:
        link = HARDWARE[key]
        per_direction = link.bandwidth_gbs
        rows.append(
            {
                "key": key,
                "label": link.label,
                "per_direction_gbs": per_direction,
                "bidir_gbs": 2 * per_direction,
                "line_rate_gbit": per_direction * 8 if link.scope == INTER_NODE else None,
            }
        )
    return rows


def link_ratio() -> dict:
    """How much faster the link inside a node is than each GPU's NIC (NVLink 4 ÷ NDR: 9×)."""
    inside, between = (HARDWARE[k] for k in _text()["hardware"]["compare"])
    return {
        "inside": inside.label,
        "between": between.label,
        "inside_gbs": inside.bandwidth_gbs,
        "between_gbs": between.bandwidth_gbs,
        "ratio": inside.bandwidth_gbs / between.bandwidth_gbs,
    }


def sheet(lang: str = DEFAULT) -> dict:
    """Everything the cheat sheet page shows, text (in `lang`) and numbers."""
    return {
        **text(lang),
        "link_ratio": link_ratio(),
        "busbw_rows": busbw_rows(),
        "hardware_rows": hardware_rows(),
        "example_ranks": EXAMPLE_RANKS,
    }
