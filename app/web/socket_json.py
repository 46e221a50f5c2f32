"""The JSON module Socket.IO packets are decoded with: a refused payload still gets its ack.

python-socketio drops a packet whose JSON it cannot load (an integer over 100 digits, arrays
nested thousands deep), so a client that asked for an ack would wait forever. Here such a
payload becomes the event `undecodable`, which the lab answers with an error; the packet's ack
id is read before its JSON, so the answer reaches the caller.
"""

from __future__ import annotations

from json import dumps  # noqa: F401  (python-socketio encodes with this module too)

from engineio.json import loads as _engineio_loads

UNDECODABLE = "undecodable"


def loads(text, *args, **kwargs):
    """Load `text` as engine.io does, or stand in an `undecodable` event for a refused payload."""
    try:
        return _engineio_loads(text, *args, **kwargs)
    except (ValueError, RecursionError) as e:
        reason = "nested too deeply" if isinstance(e, RecursionError) else str(e)
        return [UNDECODABLE, reason]
