"""The JSON module Socket.IO packets go through: payloads encoded once, refused payloads acked.

Encoding. The lab's stream payloads are encoded to JSON once, by `encode`, and emitted as
`Encoded` objects; `dumps` splices their text into the Socket.IO packet, with the run's id put
in front. The packet's text is byte for byte what `json.dumps` of the payload dict, `run_id`
first, would give with python-socketio's separators, but python-socketio neither walks the
payload looking for binary attachments (a pure-Python pass over every value of every event)
nor encodes it again, and a run served from the run cache (app/web/live/runcache.py) is not encoded
at all. Everything else is encoded by the standard `json.dumps`.

Decoding. python-socketio drops a packet whose JSON it cannot load (an integer over 100 digits,
arrays nested thousands deep), so a client that asked for an ack would wait forever. Here such
a payload becomes the event `undecodable`, which the lab answers with an error; the packet's ack
id is read before its JSON, so the answer reaches the caller.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii

from engineio.json import loads as _engineio_loads

UNDECODABLE = "undecodable"
SEPARATORS = (",", ":")  # what python-socketio encodes packets with
_COMPACT = {"separators": SEPARATORS}


class Encoded:
    """A JSON object payload encoded once (`body`), sent with `run_id` as its first key.

    One `body` (a str, immutable) may be shared by every run streamed from the cache; each
    emit gets its own `Encoded`, so no client is handed an object another client can change.
    """

    __slots__ = ("body", "run_id")

    def __init__(self, body: str, run_id: str | None = None) -> None:
        if not (body.startswith("{") and body.endswith("}")):
            raise ValueError("an encoded payload must be a JSON object")
        self.body = body
        self.run_id = run_id

    def text(self) -> str:
        """Return the payload's JSON: `{"run_id":…,` then the body's members."""
        if self.run_id is None:
            return self.body
        head = '{"run_id":' + encode_basestring_ascii(self.run_id)
        return head + ("}" if self.body == "{}" else "," + self.body[1:])

    def value(self) -> dict:
        """Return the payload as a new dict (for callers that need the object, and tests)."""
        return json.loads(self.text())

    def __repr__(self) -> str:
        return f"Encoded(run_id={self.run_id!r}, {len(self.body)} chars)"


def encode(payload: dict) -> str:
    """Encode a payload dict as python-socketio would (compact, ASCII), for `Encoded`."""
    return json.dumps(payload, separators=SEPARATORS)


def dumps(obj, *args, **kwargs) -> str:
    """Encode `obj` as `json.dumps` would, splicing in the text of `Encoded` payloads.

    python-socketio calls this with `[event, payload...]` and compact separators; a packet
    whose payloads are `Encoded` is joined from their text without encoding anything again.
    """
    if type(obj) is list and not args and kwargs == _COMPACT and _spliceable(obj):
        parts = [
            item.text() if type(item) is Encoded else encode_basestring_ascii(item) for item in obj
        ]
        return "[" + ",".join(parts) + "]"
    return json.dumps(obj, *args, default=_plain, **kwargs)


def _spliceable(items: list) -> bool:
    """Say whether `items` is an event name and payloads with at least one `Encoded`."""
    return (
        len(items) >= 2
        and type(items[0]) is str
        and any(type(i) is Encoded for i in items)
        and all(type(i) is Encoded or type(i) is str for i in items)
    )


def _plain(obj):
    """Let `json.dumps` encode an `Encoded` met anywhere else, as the dict it stands for."""
    if type(obj) is Encoded:
        return obj.value()
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


def loads(text, *args, **kwargs):
    """Load `text` as engine.io does, or stand in an `undecodable` event for a refused payload."""
    try:
        return _engineio_loads(text, *args, **kwargs)
    except (ValueError, RecursionError) as e:
        reason = "nested too deeply" if isinstance(e, RecursionError) else str(e)
        return [UNDECODABLE, reason]
