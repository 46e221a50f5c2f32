"""The interview toolkit: /toolkit, its cheat sheet, drills and design prompts, and their API.

Pages render from app/toolkit (data in lessons/toolkit/); answers are checked by the API here:
- `POST /api/toolkit/drills/<drill_id>/check` `{step, answer}` → `{correct, feedback, next, ...}`
- `POST /api/toolkit/drills/<drill_id>/reveal` `{step}` → `{model, explain, next}`
- `POST /api/toolkit/layout/check` `{tp, pp, dp, zero}` → the rubric's numeric criteria
- `POST /api/toolkit/triage/check` `{rank, cause}` → whether each is right, and why
- `GET /api/toolkit/design/<prompt_id>/answer` → the model answer, shown after an attempt
Bad input gets 400 with `{"error": "..."}` naming the field; an unknown drill or prompt 404.
Pages and answers come in the request's language (`page_language()`: ?lang=, cookie, browser).
"""

from __future__ import annotations

import random

from flask import Blueprint, jsonify, render_template, request
from flask_babel import gettext as _

from app.course import current_course
from app.toolkit import cheatsheet, design, drills, layout
from app.toolkit.expressions import ExpressionError

from ..errors import InputError
from ..i18n import page_language

bp = Blueprint("toolkit", __name__)

MAX_BODY = 4096  # a formula of 200 characters, or four small integers


def _body() -> object:
    """Return the request's JSON body, or raise InputError naming the body."""
    raw = request.get_data(cache=True)
    if len(raw) > MAX_BODY:
        raise InputError(f"body: at most {MAX_BODY} bytes, got {len(raw)}")
    try:
        body = request.get_json(force=True, silent=True)
    except RecursionError:
        body = None
    if not isinstance(body, dict):
        raise InputError("body: must be a JSON object")
    return body


def _missing(kind: str, name: str, known) -> tuple:
    """A 404 in JSON naming what exists, for an unknown drill or prompt."""
    return jsonify(error=f"{kind}: no {kind} {name[:60]!r}; there are {', '.join(known)}"), 404


def _not_found_page(message: str) -> tuple:
    return render_template("pages/error.html", code=404, title=_("Not Found"), message=message), 404


@bp.get("/toolkit")
def index():
    """Show the toolkit: the cheat sheet, the drills and the design prompts."""
    return render_template(
        "toolkit/index.html",
        drills=drills.drills(page_language()).values(),
        prompts=design.prompts(page_language()).values(),
    )


@bp.get("/toolkit/cheatsheet")
def cheat_sheet():
    """Show the one-page cheat sheet, made to print on one A4 or Letter page."""
    return render_template("toolkit/cheatsheet.html", sheet=cheatsheet.sheet(page_language()))


@bp.get("/toolkit/drills/<drill_id>")
def drill_page(drill_id: str):
    """Show a derivation drill, one step at a time."""
    lang = page_language()
    drill = drills.drills(lang).get(drill_id)
    if drill is None:
        return _not_found_page(
            _(
                "There is no drill %(name)s. There are: %(known)s.",
                name=repr(drill_id[:60]),
                known=", ".join(drills.drills()),
            )
        )
    lesson = current_course().lessons_in(lang).get(drill.lesson)
    lesson_title = lesson.title if lesson else drill.lesson
    return render_template("toolkit/drill.html", drill=drill.public(), lesson_title=lesson_title)


@bp.get("/toolkit/design/<prompt_id>")
def design_page(prompt_id: str):
    """Show a design prompt: write, self-assess with the rubric, then see the model answer."""
    lang = page_language()
    prompt = design.prompts(lang).get(prompt_id)
    if prompt is None:
        return _not_found_page(
            _(
                "There is no prompt %(name)s. There are: %(known)s.",
                name=repr(prompt_id[:60]),
                known=", ".join(design.prompts()),
            )
        )
    shown = {k: v for k, v in prompt.items() if k not in ("model_answer", "model_layout")}
    triage = design.triage(lang) if prompt_id == "hang-triage" else None
    if triage:
        triage = {k: triage[k] for k in ("scenario", "logs")} | {
            "causes": [{"id": c["id"], "label": c["label"]} for c in triage["causes"]]
        }
    return render_template("toolkit/design.html", prompt=shown, triage=triage)


@bp.post("/api/toolkit/drills/<drill_id>/check")
def drill_check(drill_id: str):
    """Check one step's formula against the model answer."""
    if drill_id not in drills.drills():
        return _missing("drill", drill_id, drills.drills())
    body = _body()
    _only(body, ("step", "answer"))
    try:
        checked = drills.check(
            drill_id, body.get("step"), body.get("answer"), random.Random(), page_language()
        )
    except ExpressionError as exc:  # the learner's own formula: said in the page's language
        raise InputError(exc.in_language(page_language())) from None
    except drills.DrillError as exc:
        raise InputError(str(exc)) from None
    return jsonify(checked)


@bp.post("/api/toolkit/drills/<drill_id>/reveal")
def drill_reveal(drill_id: str):
    """Give a step's model answer, for a learner who is stuck."""
    if drill_id not in drills.drills():
        return _missing("drill", drill_id, drills.drills())
    body = _body()
    _only(body, ("step",))
    try:
        return jsonify(drills.reveal(drill_id, body.get("step"), page_language()))
    except drills.DrillError as exc:
        raise InputError(str(exc)) from None


@bp.post("/api/toolkit/layout/check")
def layout_check():
    """Check a parallel layout of the running case against the rubric's numeric criteria."""
    try:
        return jsonify(layout.check(layout.read(_body()), page_language()))
    except layout.LayoutError as exc:
        raise InputError(str(exc)) from None


@bp.post("/api/toolkit/triage/check")
def triage_check():
    """Grade the hang triage: the culprit rank and the cause."""
    try:
        return jsonify(design.grade_triage(_body(), page_language()))
    except design.TriageError as exc:
        raise InputError(str(exc)) from None


@bp.get("/api/toolkit/design/<prompt_id>/answer")
def design_answer(prompt_id: str):
    """Return a prompt's model answer (and, for the layout, its checked numbers)."""
    lang = page_language()
    prompt = design.prompts(lang).get(prompt_id)
    if prompt is None:
        return _missing("prompt", prompt_id, design.prompts())
    out = {"model_answer": prompt["model_answer"]}
    if "model_layout" in prompt:
        out["model_layout"] = layout.check(prompt["model_layout"], lang)
    if prompt_id == "hang-triage":
        data = design.triage(lang)
        out["culprit"] = data["culprit"]
        out["cause"] = next(c["id"] for c in data["causes"] if c["correct"])
    return jsonify(out)


def _only(body: dict, allowed: tuple[str, ...]) -> None:
    """Refuse a field the endpoint does not take, naming it and the allowed ones."""
    for key in body:
        if key not in allowed:
            raise InputError(f"unknown field {str(key)[:40]!r}; allowed: {', '.join(allowed)}")
