"""The state a classroom teacher drives: the lab's run, and where the teacher is in it.

`state` is the lab's simulate parameters, checked by the lab's own gate (app/web/params.py,
with LAB_MAX_RANKS and LAB_MAX_CELLS), plus `step` (the counter's number: 0 is the initial
state, k is after k steps), `playing` and `speed` (one of the lab's speeds). It is kept
normalised: every simulate field present, `interval_ms` dropped (a follower plays at its own
pace, by `speed`), so every student runs exactly the teacher's run.
"""

from __future__ import annotations

from collections.abc import Mapping

from app.classroom.checks import ClassError
from app.collectives.parameters import shown

from .. import params
from ..errors import InputError
from ..pages.lab import MAX_STEP, SPEEDS

PLAYER_FIELDS = ("step", "playing", "speed")
ALLOWED = (*params.FIELDS, *PLAYER_FIELDS)


def parse_state(data: object, config: Mapping) -> dict:
    """Return the driven state normalised, or raise ClassError naming `state.<field>`."""
    if not isinstance(data, dict):
        raise ClassError(
            "state", "must be an object: the lab's parameters plus step, playing and speed"
        )
    for key in data:
        if key not in ALLOWED:
            raise ClassError(f"state.{shown(key)}", f"unknown; allowed: {', '.join(ALLOWED)}")
    lab = {k: v for k, v in data.items() if k not in PLAYER_FIELDS}
    try:
        run = params.parse(
            lab, max_ranks=config["LAB_MAX_RANKS"], max_cells=config["LAB_MAX_CELLS"]
        )
    except InputError as e:
        raise ClassError("state", str(e)) from None
    return {**run.simulate_kwargs(), **_player(data)}


def _player(data: dict) -> dict:
    """Check step, playing and speed: where the teacher is in the run."""
    for key in PLAYER_FIELDS:
        if key not in data:
            raise ClassError(f"state.{key}", "missing")
    step, playing, speed = (data[k] for k in PLAYER_FIELDS)
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= MAX_STEP:
        raise ClassError("state.step", f"must be an integer in 0..{MAX_STEP}; got {shown(step)}")
    if not isinstance(playing, bool):
        raise ClassError("state.playing", f"must be true or false; got {shown(playing)}")
    if isinstance(speed, bool) or not isinstance(speed, int | float) or speed not in SPEEDS:
        allowed = ", ".join(f"{s:g}" for s in SPEEDS)
        raise ClassError("state.speed", f"must be one of {allowed}; got {shown(speed)}")
    return {"step": step, "playing": playing, "speed": float(speed)}
