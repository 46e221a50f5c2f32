"""The lab's race view (`/lab?mode=race`) and its embed (`/embed/race`), issue 19.

Both pages take the query of `GET /api/race` (collective, algorithms, ranks, bytes, topology,
preset, mapping and the topology's parameters) and check it on the server by running the race
once (`app.fabric` caches what it routes), so a bad link gets the lab's friendly error page
naming the field. The page's scripts then fetch the race and the sweep from the API: the
browser draws and plays, the server is the authority for every number.
"""

from __future__ import annotations

from functools import lru_cache

from flask import Blueprint, current_app, render_template, request, url_for
from flask_babel import gettext as _
from werkzeug.datastructures import MultiDict

from ...collectives import CollectiveError, catalog, check
from ...costs import CostError
from ...fabric import FabricError
from ..api.race import race_of_query
from .lab import SPEEDS, PageError, _flag, _speed, error_page, titles

bp = Blueprint("race_page", __name__)

# A race the page opens with when its link names none: the 2:1 fat-tree that the clock's own
# tests compute by hand, where contention on the spine decides the race.
DEFAULT_QUERY = {
    "collective": "allreduce",
    "algorithms": "ring,recursive_doubling,double_binary_tree",
    "ranks": "16",
    "bytes": "1048576",
    "topology": "fat_tree",
    "nodes": "2",
    "gpus_per_node": "8",
    "oversubscription": "2",
}
# The page's own keys, which are not the race's: how it plays and looks.
PAGE_KEYS = ("mode", "speed", "autoplay", "theme", "lang")


@lru_cache(maxsize=4)
def refused_ranks(max_ranks: int) -> dict[str, list[int]]:
    """For each "collective/algorithm", the rank counts in 2..max_ranks the engine refuses, so
    the form offers only what the catalog allows without keeping a copy of its rules."""
    out: dict[str, list[int]] = {}
    for entry in catalog():
        name = f"{entry['collective']}/{entry['algorithm']}"
        per_node = 1 if entry["needs_ranks_per_node"] else None
        for ranks in range(2, max_ranks + 1):
            run = {"ranks": ranks, "elements": ranks, "ranks_per_node": per_node}
            try:
                check({"collective": entry["collective"], "algorithm": entry["algorithm"], **run})
            except CollectiveError:
                out.setdefault(name, []).append(ranks)
    return out


def race_query(args) -> dict[str, str]:
    """Return the race a page's query names (the default race for a bare link), checked by
    running it: a PageError (400) names the field when the server refuses it."""
    query = {k: v for k, v in args.items() if k not in PAGE_KEYS}
    if not query:
        query = dict(DEFAULT_QUERY)
    try:
        race_of_query(MultiDict(query))
    except (FabricError, CostError, CollectiveError) as e:
        raise PageError(400, str(e)) from None
    return query


def page_config(query: dict[str, str], speed: float, autoplay: bool, embed: bool) -> dict:
    """What static/js/race.js needs: the race's query, the catalog's names, what it refuses,
    the API's URLs and how to play."""
    max_ranks = int(current_app.config["LAB_MAX_RANKS"])
    algorithms: dict[str, list[dict]] = {}
    for e in catalog():
        algorithms.setdefault(e["collective"], []).append(
            {"name": e["algorithm"], "description": _(e["description"])}
        )
    names = titles()
    return {
        "query": query,
        "speed": speed,
        "speeds": list(SPEEDS),
        "autoplay": autoplay,
        "embed": embed,
        "collectives": [{"name": c, "title": names[c]} for c in algorithms],
        "algorithms": algorithms,
        "refused": refused_ranks(max_ranks),
        "max_ranks": max_ranks,
        "urls": {
            "race": url_for("race.race_run"),
            "sweep": url_for("race.race_sweep"),
            "topologies": url_for("race.topologies"),
            "page": url_for("lab.lab"),
            "embed": url_for("race_page.embed"),
        },
    }


def lab_race(args):
    """Render `/lab?mode=race` (pages/lab.py hands the request here)."""
    try:
        speed = _speed(args)
        autoplay = _flag(args, "autoplay")
        query = race_query(args)
    except PageError as error:
        return error_page(error, embed=False)
    config = page_config(query, speed, autoplay, embed=False)
    return render_template(
        "lab/race.html", config=config, titles=titles(), speeds=SPEEDS, speed=speed
    )


@bp.get("/embed/race")
def embed():
    """The race with minimal chrome, for an iframe: lanes, clock, verdict."""
    try:
        speed = _speed(request.args)
        autoplay = _flag(request.args, "autoplay")
        theme = request.args.get("theme") or "light"
        if theme not in ("light", "dark"):
            raise PageError(400, f"theme must be light or dark; got {theme[:40]!r}")
        query = race_query(request.args)
    except PageError as error:
        return error_page(error, embed=True)
    config = page_config(query, speed, autoplay, embed=True)
    lab_url = url_for("lab.lab", mode="race", **query)
    title = titles().get(query.get("collective", ""), _("Race"))
    return render_template(
        "lab/race_embed.html",
        config=config,
        title=title,
        theme=theme,
        theme_fixed=True,
        lab_url=lab_url,
    )
