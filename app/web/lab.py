"""The live lab page and its embeddable view: read the query, prefill the controls, render.

The pages only draw; the simulation itself comes over Socket.IO (`sockets.py`). A query that
names an unknown collective or algorithm gets a friendly 404 page, a bad parameter a 400 page
naming the parameter, so an old or mistyped embed link never shows a broken animation.

A `/lab` link with settings in its query runs as soon as the page opens (`page_config`'s
`load`): paused at step 0, or at the link's `step`, or playing with `autoplay=1`.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, current_app, render_template, request, url_for

from ..collectives import COLLECTIVES, OPS, catalog

bp = Blueprint("lab", __name__)

# How each collective is written for people; sendrecv is shown as the pipeline it runs.
TITLES = {name: c.title for name, c in COLLECTIVES.items()} | {"sendrecv": "Send/Recv pipeline"}
OP_LABELS = {"sum": "sum (+)", "prod": "product (×)", "max": "max", "min": "min", "avg": "average"}
SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
MIN_RANKS = 2  # the slider's floor: one rank has nobody to talk to
# A step number beyond any run's length; the page shows the last step for a larger one than the
# run has (a run's length is known only once it has run).
MAX_STEP = 100_000
# The query keys that make a /lab link a link to a run, which the page runs on load.
RUN_KEYS = frozenset(
    "collective algorithm ranks elements op root ranks_per_node speed step autoplay".split()
)
DEFAULT_RANKS = 8
DEFAULT_ELEMENTS = 64
# Collectives whose working buffer holds p blocks of `elements` (docs/engine.md § Chunks).
BLOCK_BUFFERS = ("allgather", "gather", "all_to_all")


class PageError(Exception):
    """A query the page cannot show: `status` 404 for unknown names, 400 for bad values."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class LabState:
    """Everything the controls show, validated: the page renders it and mirrors it in the URL."""

    collective: str
    algorithm: str
    ranks: int
    elements: int
    op: str
    root: int
    ranks_per_node: int | None
    speed: float

    def query(self) -> dict:
        """Return the query parameters that reproduce this state (only those that apply)."""
        entry = algorithms_of(self.collective)[self.algorithm]
        out: dict = {"ranks": self.ranks, "elements": self.elements}
        if entry["reduces"]:
            out["op"] = self.op
        if entry["uses_root"]:
            out["root"] = self.root
        if self.ranks_per_node is not None:
            out["ranks_per_node"] = self.ranks_per_node
        return out


def entries() -> list[dict]:
    """Return the engine's catalog, each entry with what the page needs to validate input."""
    out = []
    for entry in catalog():
        spec = COLLECTIVES[entry["collective"]]
        out.append({**entry, "divisible": spec.needs_divisible, "title": TITLES.get(spec.name)})
    return out


def algorithms_of(collective: str) -> dict[str, dict]:
    """Return the catalog entries of one collective, keyed by algorithm name, in catalog order."""
    return {e["algorithm"]: e for e in entries() if e["collective"] == collective}


def collectives() -> list[str]:
    """List the collectives that have at least one algorithm, in the engine's order."""
    present = {e["collective"] for e in entries()}
    return [name for name in COLLECTIVES if name in present]


def max_elements(collective: str, ranks: int, max_cells: int) -> int:
    """Return the largest `elements` that keeps ranks × buffer length within `max_cells`."""
    per_element = ranks * (ranks if collective in BLOCK_BUFFERS else 1)
    return max(1, max_cells // per_element)


def divisors(n: int) -> list[int]:
    """List the divisors of `n` in ascending order (the valid ranks-per-node choices)."""
    return [d for d in range(1, n + 1) if n % d == 0]


def default_ranks_per_node(ranks: int) -> int:
    """Pick a node size that makes two or more nodes: the divisor nearest 4 between 1 and ranks
    (8 ranks → 4), or 1 for a prime rank count. static/js/lab-controls.js picks the same."""
    choices = [d for d in divisors(ranks) if 1 < d < ranks] or [1]
    return min(choices, key=lambda d: (abs(d - 4), d))


def default_elements(entry: dict, ranks: int, limit: int) -> int:
    """Return the starting vector length: 64, or the nearest multiple of ranks when required."""
    if not entry["divisible"]:
        return min(DEFAULT_ELEMENTS, limit)
    rounded = -(-DEFAULT_ELEMENTS // ranks) * ranks
    return max(ranks, min(rounded, limit) // ranks * ranks)


def _integer(args, name: str, default: int, low: int, high: int) -> int:
    raw = args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise PageError(400, f"{name} must be an integer in {low}..{high}; got {raw!r}") from None
    if not low <= value <= high:
        raise PageError(400, f"{name} must be an integer in {low}..{high}; got {value}")
    return value


def _speed(args) -> float:
    raw = args.get("speed")
    if raw is None or raw == "":
        return 1.0
    allowed = ", ".join(f"{s:g}" for s in SPEEDS)
    try:
        value = float(raw)
    except ValueError:
        value = None
    if value not in SPEEDS:
        raise PageError(400, f"speed must be one of {allowed}; got {raw!r}")
    return value


def _flag(args, name: str) -> bool:
    raw = args.get(name, "0").lower()
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("", "0", "false", "no", "off"):
        return False
    raise PageError(400, f"{name} must be 1 or 0; got {args.get(name)!r}")


def parse_state(args, collective: str | None = None, algorithm: str | None = None) -> LabState:
    """Validate the query (and path names) into a LabState, or raise PageError."""
    collective = collective or args.get("collective") or "allreduce"
    if collective not in collectives():
        known = ", ".join(collectives())
        raise PageError(404, f"There is no collective called {collective!r}. Try one of: {known}.")
    algos = algorithms_of(collective)
    algorithm = algorithm or args.get("algorithm") or next(iter(algos))
    if algorithm not in algos:
        known = ", ".join(algos)
        raise PageError(
            404, f"{TITLES[collective]} has no algorithm called {algorithm!r}. Try one of: {known}."
        )
    entry = algos[algorithm]
    max_ranks = int(current_app.config["LAB_MAX_RANKS"])
    ranks = _integer(args, "ranks", DEFAULT_RANKS, MIN_RANKS, max_ranks)
    limit = max_elements(collective, ranks, int(current_app.config["LAB_MAX_CELLS"]))
    elements = _integer(args, "elements", default_elements(entry, ranks, limit), 1, limit)
    if entry["divisible"] and elements % ranks:
        raise PageError(
            400,
            f"elements must be a multiple of ranks for {collective} (equal blocks); "
            f"got {elements} for {ranks} ranks",
        )
    op = args.get("op") or "sum"
    if op not in OPS:
        raise PageError(400, f"op must be one of {', '.join(OPS)}; got {op!r}")
    root = _integer(args, "root", 0, 0, ranks - 1) if entry["uses_root"] else 0
    ranks_per_node = None
    if entry["needs_ranks_per_node"]:
        ranks_per_node = _integer(args, "ranks_per_node", default_ranks_per_node(ranks), 1, ranks)
        if ranks % ranks_per_node:
            raise PageError(
                400,
                f"ranks_per_node must divide ranks: {ranks} ranks cannot be split into nodes "
                f"of {ranks_per_node}",
            )
    return LabState(collective, algorithm, ranks, elements, op, root, ranks_per_node, _speed(args))


def page_config(state: LabState) -> dict:
    """Return what the page's scripts need: the state, the catalog and the server's limits."""
    return {
        "state": {
            "collective": state.collective,
            "algorithm": state.algorithm,
            "ranks": state.ranks,
            "elements": state.elements,
            "op": state.op,
            "root": state.root,
            "ranks_per_node": state.ranks_per_node,
            "speed": state.speed,
        },
        "catalog": entries(),
        "collectives": [{"name": c, "title": TITLES[c]} for c in collectives()],
        "ops": [{"name": op, "label": OP_LABELS.get(op, op)} for op in OPS],
        "speeds": list(SPEEDS),
        "limits": {
            "min_ranks": MIN_RANKS,
            "max_ranks": int(current_app.config["LAB_MAX_RANKS"]),
            "max_cells": int(current_app.config["LAB_MAX_CELLS"]),
            "block_buffers": list(BLOCK_BUFFERS),
        },
        "urls": {
            "lab": url_for("lab.lab"),
            "embed": url_for("lab.embed_root"),
        },
    }


def load_on_open(args) -> dict | None:
    """Return how a link's run is first shown ({autoplay, step}), or None for a bare /lab."""
    if not any(key in args for key in RUN_KEYS):
        return None
    return {"autoplay": _flag(args, "autoplay"), "step": _integer(args, "step", 0, 0, MAX_STEP)}


def error_page(error: PageError, *, embed: bool):
    """Render the friendly error page with the error's status."""
    html = render_template(
        "lab/error.html",
        status=error.status,
        message=error.message,
        embed=embed,
        theme=request.args.get("theme") if request.args.get("theme") == "dark" else "light",
        theme_fixed=embed,
    )
    return html, error.status


@bp.get("/lab")
def lab():
    """Show the live lab with its controls prefilled from the query string."""
    try:
        state = parse_state(request.args)
        load = load_on_open(request.args)
    except PageError as error:
        return error_page(error, embed=False)
    config = page_config(state)
    config["load"] = load
    return render_template(
        "lab/lab.html",
        state=state,
        config=config,
        algorithms=algorithms_of(state.collective),
        titles=TITLES,
        collective_names=collectives(),
        ops=OPS,
        op_labels=OP_LABELS,
        speeds=SPEEDS,
        rpn_choices=divisors(state.ranks),
        max_elements=max_elements(
            state.collective, state.ranks, int(current_app.config["LAB_MAX_CELLS"])
        ),
    )


@bp.get("/embed/", endpoint="embed_root")
def embed_root():
    """Explain that an embed URL names a collective and an algorithm."""
    error = PageError(
        404, "An embed URL names a collective and an algorithm: /embed/allreduce/ring"
    )
    return error_page(error, embed=True)


@bp.get("/embed/<collective>/<algorithm>")
def embed(collective: str, algorithm: str):
    """Show one collective's animation with minimal chrome, for an iframe."""
    try:
        state = parse_state(request.args, collective, algorithm)
        autoplay = _flag(request.args, "autoplay")
        loop = _flag(request.args, "loop")
        theme = request.args.get("theme") or "light"
        if theme not in ("light", "dark"):
            raise PageError(400, f"theme must be light or dark; got {theme!r}")
    except PageError as error:
        return error_page(error, embed=True)
    config = page_config(state)
    config["embed"] = {"autoplay": autoplay, "loop": loop, "theme": theme}
    lab_url = url_for(
        "lab.lab", collective=state.collective, algorithm=state.algorithm, **state.query()
    )
    return render_template(
        "lab/embed.html",
        state=state,
        config=config,
        title=TITLES[state.collective],
        theme=theme,
        theme_fixed=True,  # the host page chose it (?theme=); the reader's toggle is not shown
        lab_url=lab_url,
    )
