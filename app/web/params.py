"""Read the lab's simulate parameters, for HTTP, Socket.IO and query strings alike.

`parse` (a JSON object: `POST /api/simulate`, the `simulate` event) and `parse_query` (a `/lab`
or `/embed` link) are the web's one gate. They take JSON's and URLs' shapes apart and hand the
values to the engine's `check` with the lab's limits, the LAB_MAX_RANKS and LAB_MAX_CELLS
settings; so every refusal, wherever it came from, names the field and what is allowed in the
engine's words, and JSON's pitfalls are refused too (`true` and `"8"` are not integers).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass

from app.collectives import FIELDS as ENGINE_FIELDS
from app.collectives import (
    CollectiveError,
    Limits,
    catalog,
    check,
    from_text,
    integer,
    read_integer,
)
from app.collectives.parameters import shown

from .errors import InputError

MAX_INTERVAL_MS = 5000
FIELDS = (*ENGINE_FIELDS, "interval_ms")


@dataclass(frozen=True)
class SimParams:
    """Validated arguments of `simulate`, plus the streaming pace: a run, a page's state."""

    collective: str
    algorithm: str
    ranks: int
    elements: int
    op: str = "sum"
    root: int = 0
    ranks_per_node: int | None = None
    seed: int = 0
    interval_ms: int = 0

    def simulate_kwargs(self) -> dict:
        """Return the keyword arguments for `app.collectives.simulate`."""
        kwargs = asdict(self)
        del kwargs["interval_ms"]
        return kwargs

    def query(self) -> dict:
        """Return the query parameters that reproduce this run in a link (those that apply)."""
        entry = entry_of(self.collective, self.algorithm)
        out: dict = {"ranks": self.ranks, "elements": self.elements}
        if entry["reduces"]:
            out["op"] = self.op
        if entry["uses_root"]:
            out["root"] = self.root
        if self.ranks_per_node is not None:
            out["ranks_per_node"] = self.ranks_per_node
        return out


def page_limits(config: Mapping) -> Limits:
    """The limits of a run a page draws: LAB_MAX_RANKS and LAB_MAX_CELLS, at least two ranks."""
    return Limits.drawn(int(config["LAB_MAX_RANKS"]), int(config["LAB_MAX_CELLS"]))


def entry_of(collective: str, algorithm: str) -> dict:
    """Return the engine's catalog entry of (collective, algorithm)."""
    return next(
        e for e in catalog() if (e["collective"], e["algorithm"]) == (collective, algorithm)
    )


def parse(data: object, *, max_ranks: int, max_cells: int) -> SimParams:
    """Check a JSON object of simulate parameters and return them typed, or raise InputError.

    `max_ranks` and `max_cells` are the LAB_MAX_RANKS and LAB_MAX_CELLS settings.
    """
    if not isinstance(data, dict):
        raise InputError(f"parameters must be a JSON object, got {shown(data)}")
    for key in data:
        if key not in FIELDS:
            raise InputError(f"unknown parameter {shown(key)}; allowed: {', '.join(FIELDS)}")
    engine = {k: v for k, v in data.items() if k != "interval_ms"}
    try:
        checked = check(engine, Limits(1, max_ranks, max_cells))
        interval_ms = integer(data, "interval_ms", 0, MAX_INTERVAL_MS, default=0)
    except CollectiveError as e:
        raise InputError(str(e)) from None
    return SimParams(**checked, interval_ms=interval_ms)


def parse_query(
    args: Mapping[str, str], limits: Limits, defaults: Callable[[dict], dict]
) -> SimParams:
    """Check a link's query (text) and return the run it names, or raise InputError.

    `defaults(given)` supplies what the query leaves out. A root or node size that the link's
    algorithm does not use is ignored, as the form ignores it: a link outlives the form. Pages
    run seed 0.
    """
    given = from_text(args)
    given.pop("seed", None)
    entry = entry_of(given["collective"], given["algorithm"])
    if not entry["uses_root"]:
        given.pop("root", None)
    if not entry["needs_ranks_per_node"]:
        given.pop("ranks_per_node", None)
    try:
        return SimParams(**check({**defaults(given), **given}, limits))
    except CollectiveError as e:
        raise InputError(str(e)) from None


def query_integer(args: Mapping[str, str], name: str, low: int, high: int, default: int) -> int:
    """Read a page's own integer field (e.g. `step`) from a query, in the gate's words."""
    text = args.get(name) or ""
    try:
        return integer({name: read_integer(text)} if text else {}, name, low, high, default)
    except CollectiveError as e:
        raise InputError(str(e)) from None
