"""The Python API of a measurement: what the CLI and the /measure page both call.

    sweep(MeasureConfig(collective="allreduce", ranks=4), on_row=print, cancelled=lambda: False)

runs the ranks, calls `on_row` with each finished size's row as it arrives, and returns every row
with the machine's description. `backends()` says what can run here and how to install it.
"""

from __future__ import annotations

from collections.abc import Callable

from app.i18n import N_

from .backends import backends, missing
from .config import MeasureConfig, cores
from .launcher import run
from .rows import average_busbw, with_bandwidths

__all__ = ["BackendUnavailable", "MeasureConfig", "backends", "sweep"]


class BackendUnavailable(RuntimeError):
    """The chosen backend is not installed; the message says how to install it."""


def warnings_for(config: MeasureConfig) -> list[str]:
    """Return the warning lines a run prints above its table."""
    if config.ranks > cores():
        return [
            N_(
                "oversubscribed: %(ranks)s ranks on %(cores)s cores: ranks share cores, so "
                "times include waiting for a core, not just communication",
                ranks=config.ranks,
                cores=cores(),
            )
        ]
    return []


def sweep(
    config: MeasureConfig,
    on_row: Callable[[dict], None] = lambda row: None,
    cancelled: Callable[[], bool] = lambda: False,
    extra_env: dict[str, str] | None = None,
    on_start: Callable[[dict], None] = lambda machine: None,
) -> dict:
    """Run `config`; return {config, machine, rows, avg_busbw_gbs, status, warnings, error}.

    status is "done", "failed", "timeout" or "cancelled"; rows holds what finished either way.
    `extra_env` adds environment variables for the ranks (tests use it); `on_start` gets the
    machine's description once the ranks are up (the CLI prints its header then).
    """
    reason = missing(config.backend)
    if reason:
        raise BackendUnavailable(f"backend {config.backend}: {reason}")
    rows: list[dict] = []
    machine = {"cores": cores(), "backend": config.backend, "algorithm": config.algorithm or "auto"}

    def on_record(record: dict) -> None:
        if record.get("kind") == "info":
            machine["library"] = record.get("library", "")
            on_start(machine)
        elif record.get("kind") == "row":
            row = with_bandwidths(record, config.collective, config.ranks)
            rows.append(row)
            on_row(row)

    outcome = run(config, on_record, cancelled, extra_env)
    error = "" if outcome["status"] == "done" else outcome["stderr"]
    if outcome["status"] == "timeout":
        error = f"stopped at the time limit ({config.time_limit_s:g} s) after {len(rows)} sizes"
    return {
        "config": config.as_dict(),
        "machine": machine,
        "rows": rows,
        "avg_busbw_gbs": average_busbw(rows),
        "status": outcome["status"],
        "warnings": warnings_for(config),
        "error": error,
    }
