"""The live lab page and its embeddable view: read the query, prefill the controls, render.

The pages only draw; the simulation itself comes over Socket.IO (`sockets.py`). A query that
names an unknown collective or algorithm gets a friendly 404 page, a bad parameter a 400 page
naming the parameter, so an old or mistyped embed link never shows a broken animation.

A `/lab` link with settings in its query runs as soon as the page opens (`page_config`'s
`load`): paused at step 0, or at the link's `step`, or playing with `autoplay=1`.
`predict=1` (lab and embed) opens the page in predict mode (static/js/lab-predict.js).
"""

from __future__ import annotations

from flask import Blueprint, current_app, render_template, request, url_for
from flask_babel import gettext as _

from ...collectives import COLLECTIVES, OPS, Limits, catalog, max_elements
from ...i18n import N_
from .. import params
from ..errors import InputError
from ..params import SimParams
from .first_picture import first_picture

bp = Blueprint("lab", __name__)

# How each collective is written for people; sendrecv is shown as the pipeline it runs. In
# English: the page shows `titles()`, in its language.
TITLES = {name: c.title for name, c in COLLECTIVES.items()} | {"sendrecv": N_("Send/Recv pipeline")}
OP_LABELS = {
    "sum": N_("sum (+)"),
    "prod": N_("product (×)"),
    "max": N_("max"),
    "min": N_("min"),
    "avg": N_("average"),
}
SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
# A step number beyond any run's length; the page shows the last step for a larger one than the
# run has (a run's length is known only once it has run).
MAX_STEP = 100_000
# The query keys that make a /lab link a link to a run, which the page runs on load.
RUN_KEYS = frozenset(
    "collective algorithm ranks elements op root ranks_per_node speed step autoplay".split()
)
DEFAULT_RANKS = 8
DEFAULT_ELEMENTS = 64


class PageError(Exception):
    """A query the page cannot show: `status` 404 for unknown names, 400 for bad values."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def titles() -> dict[str, str]:
    """The collectives' names in the page's language."""
    return {name: _(title) for name, title in TITLES.items()}


def op_labels() -> dict[str, str]:
    """The reduction ops' names in the page's language."""
    return {name: _(label) for name, label in OP_LABELS.items()}


def limits() -> Limits:
    """The limits of a run the page draws, from the app's settings."""
    return params.page_limits(current_app.config)


def entries() -> list[dict]:
    """Return the engine's catalog under the page's limits, with the titles and descriptions
    the page shows, in its language."""
    names = titles()
    return [
        {**e, "title": names[e["collective"]], "description": _(e["description"])}
        for e in catalog(limits())
    ]


def algorithms_of(collective: str) -> dict[str, dict]:
    """Return the catalog entries of one collective, keyed by algorithm name, in catalog order."""
    return {e["algorithm"]: e for e in entries() if e["collective"] == collective}


def collectives() -> list[str]:
    """List the collectives that have at least one algorithm, in catalog order."""
    return list(dict.fromkeys(e["collective"] for e in entries()))


def divisors(n: int) -> list[int]:
    """List the divisors of `n` in ascending order (the valid ranks-per-node choices)."""
    return [d for d in range(1, n + 1) if n % d == 0]


def default_ranks_per_node(ranks: int) -> int:
    """Pick a node size that makes two or more nodes: the divisor nearest 4 between 1 and ranks
    (8 ranks → 4), or 1 for a prime rank count."""
    choices = [d for d in divisors(ranks) if 1 < d < ranks] or [1]
    return min(choices, key=lambda d: (abs(d - 4), d))


def default_elements(entry: dict, ranks: int, limit: int) -> int:
    """Return the starting vector length: 64, or the nearest multiple of ranks when required."""
    if not entry["divisible"]:
        return min(DEFAULT_ELEMENTS, limit)
    rounded = -(-DEFAULT_ELEMENTS // ranks) * ranks
    return max(ranks, min(rounded, limit) // ranks * ranks)


def page_defaults(entry: dict, given: dict, lim: Limits) -> dict:
    """Return the page's starting values for what a query leaves out."""
    ranks = given.get("ranks", DEFAULT_RANKS)
    if not (isinstance(ranks, int) and lim.min_ranks <= ranks <= lim.max_ranks):
        ranks = DEFAULT_RANKS  # the gate refuses the given one; these need only be computable
    limit = max_elements(entry["collective"], ranks, lim.max_cells)
    out = {"ranks": DEFAULT_RANKS, "elements": default_elements(entry, ranks, limit)}
    if entry["needs_ranks_per_node"]:
        out["ranks_per_node"] = default_ranks_per_node(ranks)
    return out


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


def _flag(args, name: str, default: bool = False) -> bool:
    """Read a 0/1 query flag; left out or empty, it is `default`."""
    raw = (args.get(name) or ("1" if default else "0")).lower()
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("", "0", "false", "no", "off"):
        return False
    raise PageError(400, f"{name} must be 1 or 0; got {args.get(name)!r}")


def _names(args, collective: str | None, algorithm: str | None) -> tuple[str, str]:
    """Return the (collective, algorithm) a query or path names, or raise a 404 PageError."""
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
    return collective, algorithm


def parse_state(args, collective: str | None = None, algorithm: str | None = None) -> SimParams:
    """Validate the query (and path names) into the run it names, or raise PageError."""
    collective, algorithm = _names(args, collective, algorithm)
    entry = algorithms_of(collective)[algorithm]
    lim = limits()
    query = {**args.to_dict(), "collective": collective, "algorithm": algorithm}
    try:
        return params.parse_query(query, lim, lambda given: page_defaults(entry, given, lim))
    except InputError as e:
        raise PageError(400, str(e)) from None


def _shown(state: SimParams) -> dict:
    """Return what the controls show of a run: every field but the seed (pages run seed 0)."""
    fields = state.simulate_kwargs()
    del fields["seed"]
    return fields


def page_config(state: SimParams, speed: float, predict: bool = False) -> dict:
    """Return what the page's scripts need: the state, the catalog and the server's limits, and
    whether the player starts in predict mode."""
    lim = limits()
    names = titles()
    labels = op_labels()
    return {
        "state": {**_shown(state), "speed": speed},
        "predict": predict,
        "catalog": entries(),
        "collectives": [{"name": c, "title": names[c]} for c in collectives()],
        "ops": [{"name": op, "label": labels.get(op, op)} for op in OPS],
        "speeds": list(SPEEDS),
        "limits": {
            "min_ranks": lim.min_ranks,
            "max_ranks": lim.max_ranks,
            "max_cells": lim.max_cells,
        },
        "urls": {
            "lab": url_for("lab.lab"),
            "embed": url_for("lab.embed_root"),
        },
    }


def by_ranks() -> dict[str, dict]:
    """Return what the controls allow at each rank count, so that the page's script keeps no
    copy of the rules: the largest `elements` per collective, the node sizes (the divisors of
    the rank count) and the node size the page starts with."""
    lim = limits()
    names = collectives()
    return {
        str(r): {
            "max_elements": {c: max_elements(c, r, lim.max_cells) for c in names},
            "node_sizes": divisors(r),
            "node_size": default_ranks_per_node(r),
        }
        for r in range(lim.min_ranks, lim.max_ranks + 1)
    }


def load_on_open(args) -> dict | None:
    """Return how a link's run is first shown ({autoplay, step}), or None for a bare /lab."""
    if not any(key in args for key in RUN_KEYS):
        return None
    try:
        step = params.query_integer(args, "step", 0, MAX_STEP, default=0)
    except InputError as e:
        raise PageError(400, str(e)) from None
    return {"autoplay": _flag(args, "autoplay"), "step": step}


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
    """Show the live lab with its controls prefilled from the query string; `mode=race` shows
    the race view (pages/race.py)."""
    mode = request.args.get("mode")
    if mode == "race":
        from .race import lab_race  # race.py builds on this module's helpers

        return lab_race(request.args)
    if mode not in (None, "", "run"):
        error = PageError(400, f"mode must be race or run (or left out); got {mode[:40]!r}")
        return error_page(error, embed=False)
    try:
        state = parse_state(request.args)
        speed = _speed(request.args)
        load = load_on_open(request.args)
        predict = _flag(request.args, "predict")
    except PageError as error:
        return error_page(error, embed=False)
    context = lab_context(state, speed, predict)
    context["config"]["load"] = load
    return render_template("lab/lab.html", **context)


def lab_context(state: SimParams, speed: float, predict: bool = False) -> dict:
    """Return what templates/lab/lab.html's form, player and views need (the class page too)."""
    config = page_config(state, speed, predict)
    config["load"] = None
    config["by_ranks"] = by_ranks()
    return {
        "state": config["state"],
        "config": config,
        "algorithms": algorithms_of(state.collective),
        "titles": titles(),
        "collective_names": collectives(),
        "ops": OPS,
        "op_labels": op_labels(),
        "speeds": SPEEDS,
        "rpn_choices": divisors(state.ranks),
        "max_elements": max_elements(state.collective, state.ranks, limits().max_cells),
    }


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
        speed = _speed(request.args)
        autoplay = _flag(request.args, "autoplay")
        loop = _flag(request.args, "loop")
        narrate = _flag(request.args, "narrate", default=True)  # the sentence under the player
        predict = _flag(request.args, "predict")
        theme = request.args.get("theme") or "light"
        if theme not in ("light", "dark"):
            raise PageError(400, f"theme must be light or dark; got {theme!r}")
    except PageError as error:
        return error_page(error, embed=True)
    config = page_config(state, speed, predict)
    config["embed"] = {"autoplay": autoplay, "loop": loop, "narrate": narrate, "theme": theme}
    mode = {"predict": 1} if predict else {}  # the full lab opens predicting too
    lab_url = url_for(
        "lab.lab", collective=state.collective, algorithm=state.algorithm, **state.query(), **mode
    )
    return render_template(
        "lab/embed.html",
        state=config["state"],
        config=config,
        title=_(TITLES[state.collective]),
        theme=theme,
        theme_fixed=True,  # the host page chose it (?theme=); the reader's toggle is not shown
        lab_url=lab_url,
        narrate=narrate,
        step0=first_picture(state),
    )
