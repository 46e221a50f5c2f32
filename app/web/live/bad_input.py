"""Bad input from clients: refused quietly, logged once per address per interval, no traceback.

Every byte a client sends is under its control, so a malformed packet or handshake is the
client's mistake, not a fault of the server. python-socketio and engine.io log each one as an
error with a full traceback (about 730 bytes of log for the 4-byte packet `42[]`), so a single
connection could write megabytes of log a second. Here:

- `BadInputLog` writes at most one WARNING line per client address per interval
  (BAD_INPUT_LOG_INTERVAL_S), and says on its next line how many it left out.
- `CheckedPacket`, the Socket.IO packet class of the app's server, refuses what a client must
  not send (a packet that does not parse, a server-only packet type, a binary packet that
  announces no attachment, an attachment that points nowhere) with `MalformedPacket`. An
  event without a name becomes the event `undecodable`, which is acked with an error.
- `guard` drops such packets with one line in that log. It also makes an engine.io packet that
  does not decode (an empty frame, a first character that is no packet type) a message that is
  logged and dropped; engine.io would otherwise end the connection with a traceback and write an
  HTTP 500 into the open websocket. A websocket handshake that wsproto refuses gets a 400.

Anything else that fails while a packet is handled is the server's fault and keeps its
traceback.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable

import engineio.packet
import socketio
from flask import Flask
from socketio import packet as sio
from wsproto.utilities import RemoteProtocolError

from .socket_json import UNDECODABLE

log = logging.getLogger(__name__)

# Packet types a client may send; CONNECT_ERROR only ever goes from server to client.
CLIENT_PACKETS = {sio.CONNECT, sio.DISCONNECT, sio.EVENT, sio.ACK, sio.BINARY_EVENT, sio.BINARY_ACK}
NO_EVENT_NAME = "no event name: an event is an array [name, ...arguments]"
# What decoding a client's text or bytes can raise: nothing here is a server fault.
DECODE_ERRORS = (ValueError, TypeError, IndexError, KeyError, AttributeError, RecursionError)
# python-socketio's own words for a binary packet on a namespace the client did not join.
UNJOINED_BINARY = "Unexpected binary packet"


class BadInputLog:
    """Log a client's bad input: one WARNING line per address per interval, no traceback."""

    def __init__(
        self,
        logger: logging.Logger = log,
        interval_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        max_addresses: int = 10_000,
    ) -> None:
        self.logger, self.interval_s, self._clock = logger, interval_s, clock
        self.max_addresses = max_addresses
        self._lock = threading.Lock()
        self._windows: dict[str, list] = {}  # address -> [time of its last line, lines left out]

    def note(self, address: str, what: str) -> bool:
        """Log `what` came from `address`, unless a line for it was written within the interval."""
        now = self._clock()
        with self._lock:
            window = self._windows.get(address)
            if window is not None and now - window[0] < self.interval_s:
                window[1] += 1
                return False
            left_out = self._windows.pop(address, (0, 0))[1]
            self._windows[address] = [now, 0]  # re-inserted: the dict stays in time order
            if len(self._windows) > self.max_addresses:
                self._forget_oldest()
        more = f" ({left_out} more from this address since its last line, not logged)"
        self.logger.warning("bad input from %s: %s%s", address, what, more if left_out else "")
        return True

    def __len__(self) -> int:
        with self._lock:
            return len(self._windows)

    def _forget_oldest(self) -> None:
        """Drop the older half of the addresses: their counts of left-out lines are lost."""
        for address in list(self._windows)[: len(self._windows) // 2]:
            del self._windows[address]


class MalformedPacket(ValueError):
    """A client sent a Socket.IO packet no client may send; the message says what was wrong."""


class CheckedPacket(sio.Packet):
    """python-socketio's packet, refusing what a client must not send with MalformedPacket."""

    def __init__(self, *args, encoded_packet=None, **kwargs) -> None:
        if encoded_packet is not None and not encoded_packet:  # the base class would not decode
            raise MalformedPacket("an empty Socket.IO packet")
        super().__init__(*args, encoded_packet=encoded_packet, **kwargs)

    def decode(self, encoded_packet):
        if not isinstance(encoded_packet, str):
            # engine.io hands over text, or the JSON it managed to load from a message that was
            # meant to be Socket.IO text (`4{}`); binary frames only arrive as attachments.
            raise MalformedPacket("not a Socket.IO packet (engine.io message is not text)")
        try:
            attachments = super().decode(encoded_packet)
        except DECODE_ERRORS as e:
            raise MalformedPacket(f"not a Socket.IO packet ({_short(e)})") from None
        if self.packet_type not in CLIENT_PACKETS:
            raise MalformedPacket(f"packet type {self.packet_type!r} is not one a client sends")
        binary = self.packet_type in (sio.BINARY_EVENT, sio.BINARY_ACK)
        if binary and attachments < 1:
            raise MalformedPacket("a binary packet must announce at least one attachment")
        if self.packet_type in (sio.EVENT, sio.BINARY_EVENT) and not _named_event(self.data):
            if binary:
                raise MalformedPacket(NO_EVENT_NAME)
            self.data = [UNDECODABLE, NO_EVENT_NAME]  # acked with an error if an ack was asked
        return attachments

    def add_attachment(self, attachment):
        try:
            return super().add_attachment(attachment)
        except DECODE_ERRORS as e:
            raise MalformedPacket(
                f"binary attachment does not fit its packet ({_short(e)})"
            ) from None


class Undecodable:
    """What an engine.io packet that does not decode carries instead of its data."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


def guard(app: Flask, server: socketio.Server, bad_input: BadInputLog) -> None:
    """Drop `server`'s malformed packets and `app`'s bad handshakes with a line in `bad_input`."""
    tolerate_undecodable_engineio_packets()
    dispatch = server.eio.handlers["message"]

    def on_message(eio_sid: str, data) -> None:
        if isinstance(data, Undecodable):
            bad_input.note(_address(server, eio_sid), f"malformed engine.io packet ({data.reason})")
            return
        try:
            dispatch(eio_sid, data)
        except MalformedPacket as e:
            server._binary_packet.pop(eio_sid, None)  # a refused attachment ends its packet
            bad_input.note(_address(server, eio_sid), f"malformed Socket.IO packet: {e}")
        except ValueError as e:
            if str(e) != UNJOINED_BINARY:
                raise
            bad_input.note(_address(server, eio_sid), "binary packet to a namespace not joined")

    server.eio.on("message", on_message)
    app.wsgi_app = _refusing_bad_handshakes(app.wsgi_app, bad_input)


def tolerate_undecodable_engineio_packets() -> None:
    """Make engine.io packets that do not decode into messages carrying `Undecodable` (once)."""
    decode = engineio.packet.Packet.decode
    if getattr(decode, "tolerates_bad_input", False):
        return

    @functools.wraps(decode)
    def tolerant(self, encoded_packet):
        try:
            decode(self, encoded_packet)
        except DECODE_ERRORS as e:
            self.packet_type, self.binary = engineio.packet.MESSAGE, False
            self.data = Undecodable(_short(e))

    tolerant.tolerates_bad_input = True
    engineio.packet.Packet.decode = tolerant


def _refusing_bad_handshakes(wsgi_app: Callable, bad_input: BadInputLog) -> Callable:
    """Wrap `wsgi_app` so a websocket handshake wsproto refuses is a 400, not a 500."""

    def app(environ: dict, start_response: Callable):
        try:
            return wsgi_app(environ, start_response)
        except RemoteProtocolError as e:
            bad_input.note(environ.get("REMOTE_ADDR") or "unknown", f"bad websocket handshake: {e}")
            body = f"bad websocket handshake: {e}\n".encode()
            headers = [
                ("Content-Type", "text/plain; charset=utf-8"),
                ("Content-Length", str(len(body))),
            ]
            start_response("400 Bad Request", headers)
            return [body]

    return app


def caught_event(server: socketio.Server, namespace: str, args: tuple) -> tuple[str, str]:
    """Return (event name, shortened for messages; sid) of a call to a catch-all handler."""
    # python-socketio calls the catch-all with (event, sid, *data), but an event named "*"
    # with (sid, *data): it is the catch-all's own name.
    if server.manager.is_connected(args[0], namespace):
        event, sid = "*", args[0]
    else:
        event, sid = args[0], args[1]
    return (event if len(event) <= 40 else event[:37] + "..."), sid


def _named_event(data) -> bool:
    return isinstance(data, list) and bool(data) and isinstance(data[0], str)


def _address(server: socketio.Server, eio_sid: str) -> str:
    return (server.environ.get(eio_sid) or {}).get("REMOTE_ADDR") or "unknown"


def _short(e: BaseException) -> str:
    """Name an exception in a few words: the client's text is not echoed at length."""
    text = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
    return text if len(text) <= 80 else text[:77] + "..."
