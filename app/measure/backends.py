"""Which backends this machine can run, and where MPICH's mpiexec is."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

INSTALL_HINT = "pip install -e '.[measure]'  (mpi4py and MPICH's wheel; `make test` installs it)"
TORCH_HINT = "pip install torch  (CPU build; the gloo backend ships with it)"


def mpiexec_path() -> str | None:
    """Return the mpiexec of the `mpich` wheel beside this Python, else one on PATH."""
    beside = Path(sys.executable).parent / "mpiexec"
    if beside.exists():
        return str(beside)
    return shutil.which("mpiexec")


def has_module(name: str) -> bool:
    """Return whether `name` can be imported, without importing it (torch takes seconds)."""
    return importlib.util.find_spec(name) is not None


def missing(backend: str) -> str | None:
    """Return why `backend` cannot run here (with how to install it), or None when it can."""
    if backend == "mpi":
        if not has_module("mpi4py"):
            return f"mpi4py is not installed: {INSTALL_HINT}"
        if mpiexec_path() is None:
            return f"no mpiexec beside {sys.executable} or on PATH: {INSTALL_HINT}"
        return None
    if backend == "torch":
        return None if has_module("torch") else f"torch is not installed: {TORCH_HINT}"
    return f"unknown backend {backend!r}"


def backends() -> dict:
    """Return {"mpi": {...}, "torch": {...}, "install": hint when none}: what can run here."""
    report = {}
    for name in ("mpi", "torch"):
        reason = missing(name)
        report[name] = {"installed": reason is None, "reason": reason}
    if not any(entry["installed"] for entry in report.values()):
        report["install"] = INSTALL_HINT
    return report
