"""Let simple-websocket close a connection whose peer has already reset it.

`simple_websocket.ws.Base.close` sends the close frame and tolerates BrokenPipeError but not
ConnectionResetError, which a client that vanished (a closed laptop lid, a killed tab) causes;
the error then escapes in one of engine.io's threads as a traceback. The connection is gone
either way, so treat the reset like the broken pipe the library already accepts.
"""

from __future__ import annotations

import functools

from simple_websocket import ws


def _tolerating_reset(close):
    @functools.wraps(close)
    def wrapper(self, *args, **kwargs):
        try:
            return close(self, *args, **kwargs)
        except ConnectionResetError:
            self.connected = False

    wrapper.tolerates_reset = True
    return wrapper


def apply() -> None:
    """Patch `ws.Base.close` once (idempotent)."""
    if not getattr(ws.Base.close, "tolerates_reset", False):
        ws.Base.close = _tolerating_reset(ws.Base.close)
