"""Validate the lab's simulate parameters, for HTTP and Socket.IO alike.

`parse` is the one gate between a browser's JSON and the engine: it checks every field's type
and range against the catalog and the lab's limits, and raises `ParamError` whose message names
the field and what is allowed. The engine validates again (its `CollectiveError` is the backstop);
this layer adds the web's tighter limits and JSON's pitfalls (`true` and `"8"` are not integers).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from app.collectives import COLLECTIVES, OPS, buffer_length, catalog

MAX_INTERVAL_MS = 5000

# Collectives whose working buffer holds one block of `elements` per rank (docs/engine.md,
# "Chunks and holdings"); every other collective's buffer is the input itself.

FIELDS = (
    "collective",
    "algorithm",
    "ranks",
    "elements",
    "op",
    "root",
    "ranks_per_node",
    "seed",
    "interval_ms",
)


class ParamError(ValueError):
    """A simulate parameter is missing, mistyped or out of range; the message names it."""


@dataclass(frozen=True)
class SimParams:
    """Validated arguments of `simulate`, plus the streaming pace."""

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


def parse(data: object, *, max_ranks: int, max_cells: int) -> SimParams:
    """Check a JSON object of simulate parameters and return them typed, or raise ParamError."""
    if not isinstance(data, dict):
        raise ParamError(f"parameters must be a JSON object, got {_json(data)}")
    for key in data:
        if key not in FIELDS:
            raise ParamError(f"unknown parameter {_json(key)}; allowed: {', '.join(FIELDS)}")
    entries = _entries()
    collective = _choice(data, "collective", sorted({c for c, _ in entries}))
    algorithms = sorted(a for c, a in entries if c == collective)
    algorithm = _choice(data, "algorithm", algorithms, f" for {collective}")
    entry = entries[(collective, algorithm)]
    ranks = _integer(data, "ranks", 1, max_ranks)
    elements = _elements(data, collective, ranks, max_cells)
    op = _choice(data, "op", list(OPS), default="sum")
    root = _integer(data, "root", 0, ranks - 1, default=0)
    ranks_per_node = _ranks_per_node(data, entry, ranks)
    seed = _integer(data, "seed", 0, None, default=0)
    interval_ms = _integer(data, "interval_ms", 0, MAX_INTERVAL_MS, default=0)
    return SimParams(
        collective, algorithm, ranks, elements, op, root, ranks_per_node, seed, interval_ms
    )


def _entries() -> dict[tuple[str, str], dict]:
    """Index the engine's catalog by (collective, algorithm)."""
    return {(e["collective"], e["algorithm"]): e for e in catalog()}


def _json(value: object) -> str:
    """Show `value` as the client wrote it (JSON), shortened for an error message."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _choice(data: dict, name: str, allowed: list[str], context: str = "", default=None) -> str:
    """Return `data[name]` if it is one of `allowed`; `default` when absent, if there is one."""
    if name not in data:
        if default is None:
            raise ParamError(f"{name} is required: one of {', '.join(allowed)}{context}")
        return default
    value = data[name]
    if not isinstance(value, str) or value not in allowed:
        raise ParamError(f"{name} must be one of {', '.join(allowed)}{context}; got {_json(value)}")
    return value


def _integer(data: dict, name: str, low: int, high: int | None, default=None, why: str = "") -> int:
    """Return `data[name]` if it is a JSON integer in low..high; `default` when absent."""
    allowed = f"an integer >= {low}" if high is None else f"an integer in {low}..{high}"
    if name not in data:
        if default is None:
            raise ParamError(f"{name} is required: {allowed}{why}")
        return default
    value = data[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParamError(f"{name} must be {allowed}{why}; got {_json(value)}")
    if value < low or (high is not None and value > high):
        raise ParamError(f"{name} must be {allowed}{why}; got {value}")
    return value


def _elements(data: dict, collective: str, ranks: int, max_cells: int) -> int:
    """Return `elements`, bounded so that ranks x working-buffer length stays <= max_cells."""
    cells_per_element = ranks * buffer_length(collective, ranks, 1)
    multiple = ranks if COLLECTIVES[collective].needs_divisible else 1
    high = max_cells // cells_per_element // multiple * multiple
    why = (
        f" for {collective} on {ranks} ranks (the lab keeps ranks x working-buffer length "
        f"<= {max_cells} values)"
    )
    elements = _integer(data, "elements", 1, high, why=why)
    if elements % multiple:
        raise ParamError(
            f"elements must be a multiple of ranks ({ranks}) for {collective}, "
            f"so that every rank gets an equal block; got {elements}"
        )
    return elements


def _ranks_per_node(data: dict, entry: dict, ranks: int) -> int | None:
    """Return `ranks_per_node` for algorithms that need it (it must divide ranks), else None."""
    if not entry["needs_ranks_per_node"]:
        if data.get("ranks_per_node") is not None:
            _integer(data, "ranks_per_node", 1, ranks)  # still reject garbage
        return None
    if data.get("ranks_per_node") is None:
        raise ParamError(
            f"ranks_per_node is required for {entry['collective']}/{entry['algorithm']}; "
            f"it must divide ranks ({ranks})"
        )
    value = _integer(data, "ranks_per_node", 1, ranks)
    if ranks % value:
        raise ParamError(f"ranks_per_node must divide ranks ({ranks}); got {value}")
    return value
