"""The one gate for simulate's parameters: `check`, and the limits it applies.

Every caller goes through `check`: `simulate` itself, the web's parser (app/web/params.py, with
the lab's tighter limits from its settings), the lesson directives and the command line. So a
bad value gets the same words wherever it came from: a `CollectiveError` naming the field, what
is allowed and what it got, e.g. "ranks must be an integer in 1..64; got 65".
"""

from __future__ import annotations

import json
import numbers
import re
from collections.abc import Mapping
from dataclasses import dataclass

from .errors import CollectiveError
from .layouts import COLLECTIVES, buffer_length
from .ops import OPS
from .registry import Algorithm, algorithms

MAX_RANKS = 256
MAX_BUFFER_CELLS = 1 << 28  # ranks x working-buffer length: 1 GiB of float32

REQUIRED = ("collective", "algorithm", "ranks", "elements")
DEFAULTS = {"op": "sum", "root": 0, "ranks_per_node": None, "seed": 0}
FIELDS = (*REQUIRED, *DEFAULTS)
INTEGERS = ("ranks", "elements", "root", "ranks_per_node", "seed")
INTEGER_TEXT = re.compile(r"-?[0-9]{1,100}")


@dataclass(frozen=True)
class Limits:
    """How far a caller lets the parameters go; never past the engine's own limits."""

    min_ranks: int = 1
    max_ranks: int = MAX_RANKS
    max_cells: int = MAX_BUFFER_CELLS  # ranks x working-buffer length, in values

    @classmethod
    def drawn(cls, max_ranks: int, max_cells: int) -> Limits:
        """Limits for a run that is drawn (the lab, an embed, a lesson): one rank has nobody
        to talk to, so two or more."""
        return cls(2, min(max_ranks, MAX_RANKS), min(max_cells, MAX_BUFFER_CELLS))


ENGINE = Limits()


class Text(str):
    """A value as a link or a lesson wrote it: a refusal quotes it whole, as written."""


def check(values: Mapping[str, object], limits: Limits = ENGINE) -> dict:
    """Validate simulate's parameters against the catalog and `limits`; return them normalised.

    `values` maps names to values; absent optional ones take simulate's defaults. The result
    has every field of FIELDS, `ranks_per_node` None where the algorithm takes none.
    """
    entries = {(a.collective, a.name): a for a in algorithms()}
    collective = _choice(values, "collective", list(dict.fromkeys(c for c, _ in entries)))
    names = [name for c, name in entries if c == collective]
    algorithm = _choice(values, "algorithm", names, f" for {collective}")
    algo = entries[(collective, algorithm)]
    ranks = _ranks(values, algo, limits)
    return {
        "collective": collective,
        "algorithm": algorithm,
        "ranks": ranks,
        "elements": _elements(values, collective, ranks, min(limits.max_cells, MAX_BUFFER_CELLS)),
        "op": _choice(values, "op", list(OPS), default="sum"),
        "root": integer(values, "root", 0, ranks - 1, default=0),
        "ranks_per_node": _ranks_per_node(values, algo, ranks),
        "seed": integer(values, "seed", 0, None, default=0),
    }


def from_text(values: Mapping[str, str]) -> dict:
    """Read parameters written as text (a URL query, a lesson directive) for `check`.

    Blank values count as absent; integers are read only when written as plain digits, so that
    `check` names anything else, quoted as written ("ranks must be an integer in 2..64; got
    '8x'").
    """
    out: dict = {}
    for name in FIELDS:
        text = values.get(name)
        if text is None or text == "":
            continue
        out[name] = read_integer(text) if name in INTEGERS else Text(text)
    return out


def read_integer(text: str) -> int | str:
    """Return `text` as an int when it is written as plain digits, else as Text."""
    return int(text) if INTEGER_TEXT.fullmatch(text) else Text(text)


def max_elements(collective: str, ranks: int, max_cells: int) -> int:
    """Return the largest `elements` that keeps ranks x working-buffer length within max_cells."""
    multiple = ranks if COLLECTIVES[collective].needs_divisible else 1
    return max_cells // (ranks * buffer_length(collective, ranks, 1)) // multiple * multiple


def node_split_problem(ranks: int, ranks_per_node: int, field: str = "ranks_per_node") -> str:
    """Return why `ranks` cannot be cut into nodes of `ranks_per_node` ranks, or ''.

    `field` names the node size as the caller's input calls it (a calculator's gpus_per_node).
    """
    if ranks % ranks_per_node:
        return f"{field} must divide ranks ({ranks}); got {ranks_per_node}"
    return ""


def shown(value: object) -> str:
    """Show `value` as a client wrote it: Text whole, as written; anything else as JSON,
    shortened for an error message (a JSON body may be large)."""
    if isinstance(value, Text):
        return repr(str(value))
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _choice(values: Mapping, name: str, allowed: list[str], context: str = "", default=None) -> str:
    """Return values[name] if it is one of `allowed`; `default` when absent, if there is one."""
    if name not in values:
        if default is None:
            raise CollectiveError(f"{name} is required: one of {', '.join(allowed)}{context}")
        return default
    value = values[name]
    if not isinstance(value, str) or value not in allowed:
        raise CollectiveError(
            f"{name} must be one of {', '.join(allowed)}{context}; got {shown(value)}"
        )
    return str(value)


def integer(
    values: Mapping, name: str, low: int, high: int | None, default=None, why: str = ""
) -> int:
    """Return values[name] if it is an integer in low..high; `default` when absent.

    Public so that a caller's own integer fields (the lab's `interval_ms`, `step`) are refused
    in the same words as simulate's.
    """
    allowed = f"an integer >= {low}" if high is None else f"an integer in {low}..{high}"
    if name not in values:
        if default is None:
            raise CollectiveError(f"{name} is required: {allowed}{why}")
        return default
    value = values[name]
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise CollectiveError(f"{name} must be {allowed}{why}; got {shown(value)}")
    value = int(value)
    if value < low or (high is not None and value > high):
        raise CollectiveError(f"{name} must be {allowed}{why}; got {value}")
    return value


def _ranks(values: Mapping, algo: Algorithm, limits: Limits) -> int:
    """Return `ranks`, within the limits (the algorithm's own too) and a power of two where the
    algorithm needs one."""
    high = min(limits.max_ranks, MAX_RANKS)
    why = ""
    if algo.max_ranks is not None and algo.max_ranks < high:
        high = algo.max_ranks
        why = f" for {algo.collective}/{algo.name} (it needs {algo.needs_switch})"
    ranks = integer(values, "ranks", limits.min_ranks, high, why=why)
    if algo.power_of_two and ranks & (ranks - 1):
        raise CollectiveError(
            f"ranks must be a power of two for {algo.collective}/{algo.name}; got {ranks}"
        )
    return ranks


def _elements(values: Mapping, collective: str, ranks: int, max_cells: int) -> int:
    """Return `elements`, bounded so that ranks x working-buffer length stays <= max_cells."""
    why = (
        f" for {collective} on {ranks} ranks (ranks x working-buffer length must stay "
        f"<= {max_cells} values)"
    )
    elements = integer(values, "elements", 1, max_elements(collective, ranks, max_cells), why=why)
    if COLLECTIVES[collective].needs_divisible and elements % ranks:
        raise CollectiveError(
            f"elements must be a multiple of ranks ({ranks}) for {collective} (equal blocks, "
            f"as MPI and torch.distributed require); got {elements}"
        )
    return elements


def _ranks_per_node(values: Mapping, algo: Algorithm, ranks: int) -> int | None:
    """Return `ranks_per_node` for algorithms that need it (it must divide ranks), else None."""
    given = values.get("ranks_per_node") is not None
    if not algo.needs_ranks_per_node:
        if given:
            integer(values, "ranks_per_node", 1, ranks)  # still refuse garbage
        return None
    if not given:
        raise CollectiveError(
            f"ranks_per_node is required for {algo.collective}/{algo.name}; "
            f"it must divide ranks ({ranks})"
        )
    high, why = ranks, ""
    if algo.max_ranks_per_node is not None and algo.max_ranks_per_node < ranks:
        high = algo.max_ranks_per_node
        why = f" for {algo.collective}/{algo.name}"
    value = integer(values, "ranks_per_node", 1, high, why=why)
    problem = node_split_problem(ranks, value)
    if problem:
        raise CollectiveError(problem)
    return value
