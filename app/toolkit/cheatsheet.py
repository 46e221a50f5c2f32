"""The one-page cheat sheet: the text of lessons/toolkit/cheatsheet.yaml, the numbers of the code.

Formulas and NCCL facts live only in the YAML (they agree with REFERENCE.md); the busbw
factors are computed by `app.costs.bus_factor` and the link bandwidths read from the presets
of app/costs/hardware.py, so the sheet cannot drift from the calculators.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from app.costs import HARDWARE, bus_factor
from app.costs.hardware import INTER_NODE
from app.yamlload import safe_load

SHEET_FILE = Path(__file__).resolve().parents[2] / "lessons" / "toolkit" / "cheatsheet.yaml"
EXAMPLE_RANKS = (8, 128)  # one node, and the running case's 16 nodes × 8 GPUs


@cache
def _text() -> dict:
    return safe_load(SHEET_FILE.read_text(encoding="utf-8"))


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


def sheet() -> dict:
    """Everything the cheat sheet page shows, text and numbers."""
    return {
        **_text(),
        "link_ratio": link_ratio(),
        "busbw_rows": busbw_rows(),
        "hardware_rows": hardware_rows(),
        "example_ranks": EXAMPLE_RANKS,
    }
