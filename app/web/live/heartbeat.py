"""This process's classroom heartbeat: beat every HEARTBEAT_EVERY_S so the store knows the
process holds live members (app/classroom/store.py), and say once when the store is lost and
once when it is back."""

from __future__ import annotations

import logging

import socketio

from app.classroom.rooms import Classroom
from app.classroom.store import HEARTBEAT_EVERY_S, StoreUnavailable

log = logging.getLogger("app.web.live.classroom")  # where the classroom's messages always were


def beat_forever(server: socketio.Server, classroom: Classroom) -> None:
    """Beat until the process ends (a Socket.IO background task)."""
    failing = False
    while True:
        server.sleep(HEARTBEAT_EVERY_S)
        failing = beat(classroom, failing)


def beat(classroom: Classroom, failing: bool) -> bool:
    """Beat once; return whether the store is failing. Log only when it is lost and found."""
    try:
        classroom.heartbeat()
    except StoreUnavailable as e:
        if not failing:
            log.warning("classroom heartbeat: %s (said once until it is back)", e)
        return True
    if failing:
        log.warning("classroom heartbeat: the store is reachable again")
    return False
