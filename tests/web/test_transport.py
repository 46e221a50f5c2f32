"""What one Socket.IO connection can make the server hold, tried over real sockets.

A deflate bomb (a small compressed frame that inflates to gigabytes), a message announcing
100 MiB, and a binary event announcing 999,999,999 attachments each used to cost the server
hundreds of MB. Here they go, written frame by frame, to `python -m app` (the production
server) and to the tests' in-process server, whose python-socketio state the attachment test
reads: compression is declined, a message is refused after about the limit has been read, and
no attachment is kept.
"""

from __future__ import annotations

import json
import socket
import threading
import zlib

import pytest
import socketio

from app import create_app
from app.web.extensions import socketio as flask_socketio
from app.web.live.transport import bound_blocking_calls
from tests.conftest import TEST_CONFIG, LiveServer
from tests.web.wire import (
    BINARY,
    TEXT,
    ProductionServer,
    WebSocket,
    fragments,
    frame_header,
    one_message,
)

pytestmark = pytest.mark.server

LIMIT = 64 * 1024  # MAX_SOCKET_MESSAGE_BYTES's default
RING8 = {"collective": "allreduce", "algorithm": "ring", "ranks": 8, "elements": 64}
OFFER = "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"


@pytest.fixture(scope="module")
def production():
    with ProductionServer() as server:
        yield server


@pytest.fixture(scope="module")
def lab():
    """The tests' threaded server and the python-socketio server of its app."""
    app = create_app(TEST_CONFIG)
    server = flask_socketio.server  # bound to `app` last: this app's own server
    with LiveServer(app) as live:
        yield live, server


def ack_of(ws: WebSocket, ack_id: int) -> list:
    """Read until the Socket.IO ack `ack_id` and return its arguments."""
    prefix = f"43{ack_id}".encode()
    return json.loads(ws.read_until(lambda d: d.startswith(prefix), "the ack")[len(prefix) :])


def simulate_is_acked(ws: WebSocket, ack_id: int) -> bool:
    ws.send_text(f'42{ack_id}["simulate",{json.dumps(RING8)}]')
    return ack_of(ws, ack_id)[0]["ok"] is True


def test_a_compression_offer_is_declined_and_a_compressed_frame_ends_the_connection(production):
    ws = WebSocket(production.port, OFFER)
    try:
        assert ws.head.startswith("HTTP/1.1 101"), ws.head
        assert not ws.compressed, f"the server accepted compression:\n{ws.head}"
        ws.join()
        assert simulate_is_acked(ws, 1)  # plain frames work
        # 64 MiB of text deflates to about 64 KiB: the bomb, sent though nothing was agreed.
        deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
        body = b'42["simulate",{"collective":"' + b"a" * (64 << 20)
        bomb = (deflate.compress(body) + deflate.flush(zlib.Z_SYNC_FLUSH))[:-4]
        ws.sock.sendall(frame_header(TEXT, len(bomb), rsv1=True) + bomb)
        with pytest.raises((ConnectionError, OSError)):
            ws.read_until(lambda _: False, "the end")  # a close frame, or the socket closing
    finally:
        ws.close()
    served_normally(production.url)


@pytest.mark.parametrize(
    "message", [one_message(100 << 20), fragments(100 << 20)], ids=["one frame", "fragments"]
)
def test_a_100_mib_message_is_refused_after_about_the_limit_is_read(production, message):
    ws = WebSocket(production.port).join()
    try:
        sent = ws.push_until_refused(message)
    finally:
        ws.close()
    # What the client got out before the reset: what the server read (about the limit) plus
    # what the two kernels' socket buffers held.
    assert sent < 16 * LIMIT, (
        f"the server took {sent / 2**20:.1f} MiB of a 100 MiB message before closing the "
        f"connection (limit {LIMIT // 1024} KiB)"
    )
    served_normally(production.url)


@pytest.mark.parametrize("announced", [1, 999_999_999])
def test_a_binary_event_is_answered_at_once_and_no_attachment_is_kept(lab, announced):
    live, server = lab
    ws = WebSocket(live.port).join()
    try:
        ws.send_text(f'45{announced}-1["simulate",{{"_placeholder":true,"num":0}}]')
        ack = ack_of(ws, 1)
        assert ack[0]["ok"] is False
        assert (
            f"binary attachments are not accepted (this packet announced {announced})"
            in (ack[0]["error"])
        )
        for _ in range(20):  # what would have been attachments: 1.25 MiB
            ws.sock.sendall(frame_header(BINARY, 65536) + bytes(65536))
        assert simulate_is_acked(ws, 2)  # the connection still speaks Socket.IO
        assert server._binary_packet == {}, "the server kept a binary packet's attachments"
    finally:
        ws.close()


def test_a_binary_ack_is_refused_and_nothing_is_kept(lab):
    live, server = lab
    ws = WebSocket(live.port).join()
    try:
        ws.send_text('46999999999-1[{"_placeholder":true,"num":0}]')
        ws.sock.sendall(frame_header(BINARY, 65536) + bytes(65536))
        assert simulate_is_acked(ws, 2)
        assert server._binary_packet == {}
    finally:
        ws.close()


def served_normally(url: str) -> None:
    """A new client still gets a full, verified run from the server."""
    # The client runs each message's handler on a thread of its own (engine.io's client), so
    # the last step's handler may finish after sim_done's: count, do not order.
    client = socketio.Client(reconnection=False)
    events: list[str] = []
    ended = threading.Event()

    def seen(event: str) -> None:
        events.append(event)
        if len(events) == 15:
            ended.set()

    client.on("sim_step", lambda _: seen("sim_step"))
    client.on("sim_done", lambda p: seen(f"sim_done verified={p['verified']}"))
    client.connect(url, transports=["websocket"], wait_timeout=10)
    try:
        assert client.call("simulate", {**RING8, "interval_ms": 0}, timeout=10)["ok"] is True
        assert ended.wait(20), f"the run did not end; got {events}"
    finally:
        client.disconnect()
    assert sorted(events) == ["sim_done verified=True"] + ["sim_step"] * 14, events


@pytest.mark.parametrize("serve", ["production", "lab"])
def test_a_long_polling_client_upgrades_to_a_websocket(serve, request):
    """The app's JSON module once decoded engine.io's "2probe" as an event: no upgrade ever."""
    fixture = request.getfixturevalue(serve)
    url = fixture.url if serve == "production" else fixture[0].url
    client = socketio.Client(reconnection=False)
    client.connect(url, transports=["polling", "websocket"], wait_timeout=10)
    try:
        assert client.transport() == "websocket"
        ended = threading.Event()
        client.on("sim_done", lambda p: ended.set())
        assert client.call("simulate", {**RING8, "interval_ms": 0}, timeout=10)["ok"] is True
        assert ended.wait(20), "the run did not end over the upgraded connection"
    finally:
        client.disconnect()


def _fails_within(call, seconds: float = 10.0) -> BaseException | None:
    """Run `call` on a thread; return what it raised, or None if it returned or still blocks."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:  # noqa: BLE001 - returned to the test
            raised.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    return raised[0] if raised else None


def test_a_websockets_socket_stays_blocking_and_a_silent_peer_fails_its_reads_and_sends():
    server_end, peer = socket.socketpair()
    with server_end, peer:
        server_end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        peer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        bound_blocking_calls(server_end, 0.2)
        # Blocking, so each send is one system call that writes the whole frame.
        assert server_end.gettimeout() is None
        assert isinstance(_fails_within(lambda: server_end.recv(1)), OSError)
        # A peer that reads nothing: the sends fill its buffer, then fail.
        frame = b"x" * 65536
        assert isinstance(
            _fails_within(lambda: [server_end.send(frame) for _ in range(64)]), OSError
        )
