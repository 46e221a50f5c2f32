"""Keep a fit as the hardware preset "this machine" in the instance folder's JSON file.

The file's format is docs/measure.md's; app.costs.hardware.load_measured reads it. The instance
folder is the server's: COLLECTIVE_LAB_INSTANCE_PATH, else ./instance in the repository
(app/web/settings.py INSTANCE_PATH), so the server and this command agree without importing
each other.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from app.costs.hardware import INTRA_NODE, MEASURED_FILE, MEASURED_FORMAT, load_measured

from .fit import Fit

PRESET_KEY = "this_machine"
REPO = Path(__file__).resolve().parents[2]


def instance_folder() -> Path:
    """Return the instance folder the server uses."""
    configured = os.environ.get("COLLECTIVE_LAB_INSTANCE_PATH")
    return Path(configured).resolve() if configured else REPO / "instance"


def preset_entry(fit: Fit, result: dict) -> dict:
    """Return the JSON entry of the preset, with where its numbers come from."""
    machine = result["machine"]
    how = (
        f"measured: {fit.collective} on {fit.ranks} ranks ({machine['backend']}, "
        f"{_first_line(machine.get('library', ''))}, "
        f"MPICH algorithm {machine['algorithm']}), fitted on the {fit.algorithm} model's terms"
    )
    return {
        "key": PRESET_KEY,
        "label": f"This machine (measured, {machine['cores']} cores)",
        "scope": INTRA_NODE,  # processes on one machine talk through its memory
        "bandwidth_gbs": fit.bandwidth_gbs,
        "latency_us": max(fit.alpha_us, 1e-3),  # the loader wants a positive latency
        "bandwidth_source": f"{how}; large-size fit error {fit.beta_error_pct:.1f}%",
        "latency_source": f"{how}; small-size fit error {fit.alpha_error_pct:.1f}%",
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "fit": fit.as_dict(),
    }


def _first_line(text: str) -> str:
    """Return the library's first line with its runs of spaces made one ("MPICH Version: 5")."""
    lines = text.splitlines()
    return " ".join(lines[0].split()) if lines else "unknown library"


def save_preset(fit: Fit, result: dict, folder: Path | None = None) -> Path:
    """Write (or replace) "this machine" in the folder's measured-hardware file; its path."""
    folder = folder or instance_folder()
    path = folder / MEASURED_FILE
    kept = []
    if path.exists():
        data = json.loads(path.read_text(encoding="utf-8"))
        kept = [p for p in data.get("presets", []) if p.get("key") != PRESET_KEY]
    folder.mkdir(parents=True, exist_ok=True)
    data = {"format": MEASURED_FORMAT, "presets": [*kept, preset_entry(fit, result)]}
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    temporary.replace(path)  # a reader never sees half a file
    load_measured(path)  # what was written must load: fail here, not in a calculator
    return path
