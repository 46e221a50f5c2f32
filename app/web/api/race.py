"""The race over HTTP: `/api/race`, `/api/race/sweep` and `/api/topologies` (issue 19).

`GET /api/race?collective=&algorithms=a,b&ranks=&bytes=&topology=&preset=&mapping=` plus the
topology's own parameters (`nodes`, `gpus_per_node`, `oversubscription`, ...; `/api/topologies`
lists them) → `app.fabric.race(...).as_dict()`. `/api/race/sweep` takes the same query with
`low_bytes`/`high_bytes` instead of `bytes` → `app.fabric.sweep(...)`. Each handler reads the
query, calls one function and returns JSON; bad input is a 400 naming the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from flask import Blueprint, current_app, jsonify, request
from flask_babel import gettext as _

from app.collectives import CollectiveError
from app.costs import CostError
from app.costs.model import MAX_MESSAGE_BYTES
from app.fabric import MAPPINGS, MAX_ALGORITHMS, TOPOLOGIES, FabricError, race, sweep

from .costs import finite

bp = Blueprint("race", __name__)

MIN_ALGORITHMS = 2
DIGITS = re.compile(r"[0-9]{1,6}")
SHARED = ("collective", "algorithms", "ranks", "topology", "preset", "mapping")
RACE_FIELDS = (*SHARED, "bytes")
SWEEP_FIELDS = (*SHARED, "low_bytes", "high_bytes")
TOPOLOGY_PARAMS = frozenset(p.name for spec in TOPOLOGIES.values() for p in spec.params)


def _ranks(text: str | None) -> int:
    high = int(current_app.config["LAB_MAX_RANKS"])
    allowed = f"ranks must be an integer in 2..{high}"
    if text is None:
        raise FabricError(f"{allowed}; it is required")
    if not DIGITS.fullmatch(text.strip()):
        raise FabricError(f"{allowed}; got {text[:40]!r}")
    return int(text)


def _algorithms(text: str | None) -> list[str]:
    names = [n.strip() for n in (text or "").split(",") if n.strip()]
    if not MIN_ALGORITHMS <= len(names) <= MAX_ALGORITHMS:
        raise FabricError(
            f"algorithms must list {MIN_ALGORITHMS} to {MAX_ALGORITHMS} names, comma-separated; "
            f"got {len(names)}"
        )
    return names


def _number(args: Mapping[str, str], name: str, default: float | None = None) -> float:
    text = args.get(name)
    if text is None:
        if default is None:
            raise FabricError(f"{name} is required: a number of bytes in 1..{MAX_MESSAGE_BYTES:g}")
        return default
    try:
        return float(text)
    except ValueError:
        raise FabricError(
            f"{name} must be a number of bytes in 1..{MAX_MESSAGE_BYTES:g}; got {text[:40]!r}"
        ) from None


def _common(args: Mapping[str, str], fields: tuple[str, ...]) -> dict:
    """Read the inputs a race and a sweep share; every other key must be a topology parameter
    (which ones the chosen topology takes, `app.fabric` checks)."""
    params = {k: v for k, v in args.items() if k not in fields}
    for key in params:
        if key not in TOPOLOGY_PARAMS:
            raise FabricError(
                f"{key[:40]} is not a field here; the fields: {', '.join(fields)}, and the "
                f"topology's parameters ({', '.join(sorted(TOPOLOGY_PARAMS))})"
            )
    return {
        "collective": args.get("collective"),
        "algorithms": _algorithms(args.get("algorithms")),
        "ranks": _ranks(args.get("ranks")),
        "topology": args.get("topology", "flat"),
        "preset": args.get("preset"),
        "mapping": args.get("mapping", "fill"),
        "max_ranks": int(current_app.config["LAB_MAX_RANKS"]),
        **params,
    }


def race_of_query(args: Mapping[str, str]):
    """Run the race a query names (the endpoint's and the race pages' one reading of it)."""
    return race(message_bytes=_number(args, "bytes"), **_common(args, RACE_FIELDS))


@bp.get("/api/race")
def race_run():
    """Race 2-4 algorithms on one topology: per-step times, finish order, the verdict."""
    result = race_of_query(request.args)
    return jsonify(result.as_dict())  # every number finite: checked sizes, positive bandwidths


@bp.get("/api/race/sweep")
def race_sweep():
    """Time against message size for 2-4 algorithms, with crossovers (clock and α-β model)."""
    values = _common(request.args, SWEEP_FIELDS)
    low = _number(request.args, "low_bytes", 1024.0)
    high = _number(request.args, "high_bytes", float(1 << 30))
    return jsonify(finite(sweep(low_bytes=low, high_bytes=high, **values)))


@bp.get("/api/topologies")
def topologies():
    """List the topologies with their parameters and presets, and the rank mappings."""
    return jsonify(
        topologies=[_spec_shown(spec.as_dict()) for spec in TOPOLOGIES.values()],
        mappings=list(MAPPINGS),
        min_algorithms=MIN_ALGORITHMS,
        max_algorithms=MAX_ALGORITHMS,
        max_ranks=int(current_app.config["LAB_MAX_RANKS"]),
        max_bytes=MAX_MESSAGE_BYTES,
    )


def _spec_shown(spec: dict) -> dict:
    """A topology's spec with its words (label, description, parameters' labels) in the
    request's language."""

    def shown(text: str) -> str:
        return _(text) if text else text

    params = [{**p, "label": shown(p["label"]), "help": shown(p["help"])} for p in spec["params"]]
    return {
        **spec,
        "label": shown(spec["label"]),
        "description": shown(spec["description"]),
        "params": params,
    }


@bp.errorhandler(FabricError)
@bp.errorhandler(CostError)
@bp.errorhandler(CollectiveError)
def bad_input(error: ValueError):
    """Answer bad input with 400 and the message, which names the field."""
    return jsonify(error=str(error)), 400
