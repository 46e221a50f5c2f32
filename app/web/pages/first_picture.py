"""The embed's first picture: its run's step 0 drawn on the server, so that an embed shows a
correct picture before plotly.js and the socket have loaded (docs/lab.md § Embed).

The engine runs in the request, under the same admission as any run (app/web/guard): a
server too busy to run it answers the page without the picture, which then waits for the
socket as before. Recent pictures are kept (the engine is deterministic): a wiki page reloaded,
or a lesson's embeds shown to a class, draw theirs without running the engine again. The same
trace's payloads go into the run cache (app/web/live/runcache.py) while the ticket is held, so
the `simulate` the embed sends a moment later streams at once instead of running the engine a
second time.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from flask import current_app, request

from app.collectives import simulate
from app.drawing.step0 import picture

from ..guard import admission
from ..i18n import page_language
from ..live.runcache import encode_run
from ..params import SimParams

KEEP = 32  # recent pictures: a 64 × 64 grid's is about 20 kB of Python objects


class _Recent:
    """A small thread-safe LRU of pictures, keyed by run parameters."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._items: OrderedDict = OrderedDict()

    def get(self, key):
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
            return self._items.get(key)

    def put(self, key, value) -> None:
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)


_recent = _Recent(KEEP)


def first_picture(p: SimParams) -> dict | None:
    """Return the run's step-0 picture (app.drawing.step0.picture) in the page's language, or
    None when busy."""
    lang = page_language()
    drawn = _recent.get((p, lang))
    if drawn is not None:
        return drawn
    admitted = current_app.extensions["lab_admission"]
    lanes = current_app.extensions["lab_lanes"]
    try:
        ticket = admitted.admit(
            request.remote_addr or "unknown", admission.stream_bytes(p), lanes.is_small(p)
        )
    except admission.Busy:
        return None
    cache = current_app.extensions["lab_run_cache"]
    try:
        with lanes.slot(ticket.small):
            trace = simulate(**p.simulate_kwargs())
            drawn = picture(trace, lang)
            if cache.enabled and not cache.holds(p, lang):  # the embed's socket speaks `lang`
                cache.put(p, encode_run(trace, lang=lang), lang)
    finally:
        admitted.release(ticket)
    _recent.put((p, lang), drawn)
    return drawn
