"""Bounds on what one Socket.IO connection can make the server hold, and on how many there are.

engine.io's threading mode serves websockets with simple-websocket, which out of the box
- accepts permessage-deflate, so a message of a few hundred KiB on the wire inflates to
  gigabytes before any size check (a "deflate bomb");
- buffers a whole message before engine.io compares it with the message limit, so a client
  announcing 100 MiB is read to the end first;
- and, behind gunicorn, lets an error in a websocket's handler be answered with an HTTP 500
  written into the open websocket.
python-socketio keeps every attachment a binary packet announces, up to 999,999,999 of them,
and engine.io opens a session for every handshake, without limit.

Here (`init_app`):
- `BoundedWebSocket` refuses compression (the browser then sends plain frames), closes a
  connection as soon as a message grows past MAX_SOCKET_MESSAGE_BYTES while it is being read
  (close code 1009), and bounds the socket's reads and sends by engine.io's ping interval
  plus its ping timeout, in the kernel (`bound_blocking_calls`), so a peer that vanished
  without a FIN cannot hold the connection.
- `JsonOnlyPacket` keeps no binary attachment: a binary event is answered at once with an
  error, as an event that did not decode, and the frames after it are dropped one by one.
- `_guarding_handshakes` answers a new Socket.IO session with 503 and a message once
  MAX_CONNECTIONS sessions are open (websocket and long-polling alike), with 429 once the
  client's address holds MAX_CONNECTIONS_PER_ADDRESS of them (an address in CLASS_NETWORKS
  only meets the overall cap), and a websocket handshake engine.io would mishandle (no
  `Connection: Upgrade`, HTTP/1.0) with 400.
- `PingClock` sends every session's pings from one thread, where engine.io slept a thread per
  session (and kept it asleep for up to 25 s after the session closed).
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import json
import logging
import socket
import struct
import threading
import time
import urllib.parse
import weakref
from collections.abc import Callable

import engineio.socket
import simple_websocket
import socketio
from engineio import json as engineio_json
from engineio import packet as eio_packet
from engineio.async_drivers._websocket_wsgi import SimpleWebSocketWSGI
from flask import Flask
from socketio import packet as sio

from ..guard.clients import Clients
from .bad_input import CheckedPacket, MalformedPacket
from .socket_json import UNDECODABLE

log = logging.getLogger(__name__)

SOCKET_PATH = "/socket.io"
FULL_RETRY_S = 5  # what a client refused for a full server is told to wait


class BoundedWebSocket(simple_websocket.Server):
    """simple-websocket's server without compression, the message limit applied while reading."""

    def __init__(self, environ: dict, *, read_timeout_s: float, **kwargs) -> None:
        sock = environ.get("werkzeug.socket") or environ.get("gunicorn.socket")
        if sock is not None:
            # Before the reader thread starts: a healthy client answers engine.io's pings, so
            # silence this long means it is gone.
            bound_blocking_calls(sock, read_timeout_s)
        super().__init__(environ, **kwargs)

    def handshake(self) -> None:
        # wsproto accepts only extensions the client offered: offer it none.
        offer = "HTTP_SEC_WEBSOCKET_EXTENSIONS"
        self.environ = {k: v for k, v in self.environ.items() if k != offer}
        super().handshake()

    def _thread(self) -> None:
        try:
            super()._thread()
        finally:
            # The reader refuses a message that is too big by waking `receive` *before* it
            # marks the connection closed; the woken handler could wait again, for ever.
            self.connected = False
            self.event.set()

    def close(self, reason=None, message=None) -> None:
        try:
            super().close(reason, message)
        finally:
            # Wake a handler waiting in `receive`: it must not wait for a peer that may never
            # answer the close frame.
            self.event.set()


def bound_blocking_calls(sock: socket.socket, seconds: float) -> None:
    """Make a blocking `recv` or `send` on `sock` fail after `seconds` (EAGAIN, an OSError).

    The kernel keeps the bound (SO_RCVTIMEO, SO_SNDTIMEO) and the socket stays blocking. Python's
    own `settimeout` made every call poll() first and then use a non-blocking socket: two system
    calls and two GIL hand-offs for each event to each client (a classroom's fan-out took up to
    half again the server CPU of bare python-socketio), and a send to a slow reader could write
    part of a frame and return, which simple-websocket does not check. A blocking send writes
    the whole frame unless the bound expires, and then the peer is gone anyway.
    """
    sock.settimeout(None)
    whole, fraction = divmod(seconds, 1)
    timeval = struct.pack("ll", int(whole), int(fraction * 1e6))  # struct timeval on Linux
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, timeval)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, timeval)


class BoundedWebSocketWSGI(SimpleWebSocketWSGI):
    """engine.io's websocket adapter for threading mode, serving `BoundedWebSocket`s."""

    def __call__(self, environ: dict, start_response: Callable):
        self.ws = BoundedWebSocket(environ, **self.server_args)
        try:
            ret = self.app(self)
        except Exception:
            # The 101 is sent: an HTTP error page written now would corrupt the stream.
            log.exception("websocket handler failed; connection closed")
            with contextlib.suppress(Exception):
                self.close()
            ret = []
        # How each server is told the socket was taken over and is done (as the base class).
        if self.ws.mode == "gunicorn":
            raise StopIteration()
        if self.ws.mode == "werkzeug":
            raise ConnectionError()
        return ret


class JsonOnlyPacket(CheckedPacket):
    """The app's Socket.IO packet class, keeping no binary attachment: no lab event has one.

    A binary event is answered at once like an event that did not decode (acked with the
    error, if the client asked for an ack); the frames that follow are not text, so each is
    refused and dropped as it comes.
    """

    def decode(self, encoded_packet):
        attachments = super().decode(encoded_packet)
        if not attachments:
            return attachments
        refusal = (
            f"binary attachments are not accepted (this packet announced {attachments}); "
            "send events as JSON"
        )
        if self.packet_type != sio.BINARY_EVENT:
            raise MalformedPacket(refusal)
        self.packet_type, self.data = sio.EVENT, [UNDECODABLE, refusal]
        return 0


class PingClock:
    """One thread sends every engine.io session's next ping.

    engine.io's threading mode starts, for each session and each ping, a thread that sleeps
    the ping interval (25 s) and then pings; a session closed in the meantime keeps its thread
    asleep until then, so a client opening and closing sessions in a loop left hundreds of
    sleeping threads. Here each session waits in a heap instead, held by a weak reference: a
    session that is gone costs nothing.
    """

    def __init__(self) -> None:
        self._due: list[tuple[float, int, weakref.ref]] = []
        self._order = itertools.count()  # ties go first come, first served
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def schedule(self, session: engineio.socket.Socket) -> None:
        """engine.io's `Socket.schedule_ping`: ping `session` one interval from now."""
        if not session.last_ping:  # a ping is already due: as engine.io, do not add another
            return
        session.last_ping = None
        due = time.monotonic() + session.server.ping_interval
        with self._changed:
            heapq.heappush(self._due, (due, next(self._order), weakref.ref(session)))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="ping-clock", daemon=True)
                self._thread.start()
            self._changed.notify()

    def _run(self) -> None:
        while True:
            session = self._next_due()()
            if session is None or session.closing or session.closed:
                continue
            try:
                session.last_ping = time.time()
                session.send(eio_packet.Packet(eio_packet.PING))  # closes it if it timed out
            except Exception:
                log.exception("engine.io ping failed")

    def _next_due(self) -> weakref.ref:
        """Wait until the earliest session is due, and take it."""
        with self._changed:
            while True:
                wait = self._due[0][0] - time.monotonic() if self._due else None
                if wait is not None and wait <= 0:
                    return heapq.heappop(self._due)[2]
                self._changed.wait(wait)


PINGS = PingClock()


def schedule_pings_on_one_thread() -> None:
    """Route engine.io's `Socket.schedule_ping`, for every server, to `PINGS` (idempotent)."""
    engineio.socket.Socket.schedule_ping = _schedule_ping


def _schedule_ping(session: engineio.socket.Socket) -> None:
    PINGS.schedule(session)


def init_app(app: Flask, server: socketio.Server) -> None:
    """Bound `server`'s websockets, packets and sessions by `app`'s settings."""
    limit = app.config["MAX_SOCKET_MESSAGE_BYTES"]
    eio = server.eio
    websocket = _websocket_factory(
        max_message_size=limit, read_timeout_s=eio.ping_interval + eio.ping_timeout
    )
    # engine.io's table of async helpers is one dict shared by every server: copy, then change.
    eio._async = {**eio._async, "websocket": websocket}
    server.packet_class = JsonOnlyPacket
    # The app's JSON module turns a payload that does not load into an `undecodable` event,
    # for Socket.IO's packets. engine.io's own packets need the ValueError: without it the
    # "2probe" of a polling client upgrading to a websocket decoded as that event, and every
    # upgrade failed (clients stayed on long-polling).
    eio_packet.Packet.json = engineio_json
    schedule_pings_on_one_thread()
    app.wsgi_app = _guarding_handshakes(
        app.wsgi_app,
        server,
        app.config["MAX_CONNECTIONS"],
        app.config["MAX_CONNECTIONS_PER_ADDRESS"] or None,
        Clients(app.config["CLASS_NETWORKS"]),
    )


def _websocket_factory(**server_args) -> Callable:
    """Return what engine.io calls as `websocket(handler, server)`, with our arguments."""

    def websocket(handler: Callable, _server) -> BoundedWebSocketWSGI:
        return BoundedWebSocketWSGI(handler, _server, **server_args)

    return websocket


def _guarding_handshakes(
    wsgi_app: Callable,
    server: socketio.Server,
    max_sessions: int,
    per_address: int | None,
    clients: Clients,
) -> Callable:
    """Wrap `wsgi_app`: refuse new Socket.IO sessions past the caps, and bad upgrades."""
    eio = server.eio

    def app(environ: dict, start_response: Callable):
        if not environ.get("PATH_INFO", "").startswith(SOCKET_PATH + "/"):
            return wsgi_app(environ, start_response)
        query = urllib.parse.parse_qs(environ.get("QUERY_STRING", ""))
        if "sid" in query:  # a session that exists already (or an unknown one: engine.io's 400)
            return wsgi_app(environ, start_response)
        if query.get("transport") == ["websocket"]:
            problem = _bad_upgrade(environ)
            if problem:
                return _refuse(start_response, "400 Bad Request", problem)
        retry = [("Retry-After", str(FULL_RETRY_S))]
        if open_sessions(eio) >= max_sessions:
            return _refuse(
                start_response,
                "503 Service Unavailable",
                f"server full: {max_sessions} connections are open (MAX_CONNECTIONS); "
                f"retry in {FULL_RETRY_S} s",
                retry,
            )
        address = environ.get("REMOTE_ADDR", "")
        if per_address and not clients.is_class(address):
            if sessions_from(server, clients, clients.key(address)) >= per_address:
                return _refuse(
                    start_response,
                    "429 Too Many Requests",
                    f"too many connections from your address: at most {per_address} may be "
                    f"open at once (MAX_CONNECTIONS_PER_ADDRESS); close a tab or retry in "
                    f"{FULL_RETRY_S} s",
                    retry,
                )
        return wsgi_app(environ, start_response)

    return app


def open_sessions(eio) -> int:
    """Count `eio`'s sessions, first dropping those closed (engine.io sweeps them only slowly)."""
    for sid, session in list(eio.sockets.items()):
        if session.closed:
            eio.sockets.pop(sid, None)
    return len(eio.sockets)


def sessions_from(server: socketio.Server, clients: Clients, key: str) -> int:
    """Count the open sessions whose client address has `key` (call after open_sessions)."""
    count = 0
    for sid in list(server.eio.sockets):
        environ = server.environ.get(sid)
        if environ is not None and clients.key(environ.get("REMOTE_ADDR", "")) == key:
            count += 1
    return count


def _bad_upgrade(environ: dict) -> str | None:
    """Say what is wrong with a websocket handshake that engine.io would not refuse cleanly."""
    if environ.get("SERVER_PROTOCOL") != "HTTP/1.1":
        return "a websocket handshake needs HTTP/1.1"
    connection = {t.strip().lower() for t in environ.get("HTTP_CONNECTION", "").split(",")}
    if environ.get("HTTP_UPGRADE", "").lower() != "websocket" or "upgrade" not in connection:
        return "a websocket handshake needs the headers Upgrade: websocket and Connection: Upgrade"
    return None


def _refuse(start_response: Callable, status: str, error: str, headers: list | None = None):
    body = json.dumps({"error": error}).encode()
    start_response(
        status,
        [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(body))),
            *(headers or []),
        ],
    )
    return [body]
