"""bench.wire's two measures: the compact trace's documented encoding, and the proxy's count."""

from __future__ import annotations

import socket
import threading

from app.collectives import simulate
from bench import wire


def test_the_compact_trace_of_a_two_rank_ring_has_the_documented_size():
    trace = simulate("allreduce", "ring", ranks=2, elements=2)
    chunks = 4 + 2 * 8  # count, then start and stop per chunk
    cell = 2 + 4 + 1 + 1 + 1 + 4  # rank, chunk, tag, a 2-bit bitset, preview count, one float32
    initial = 4 + 4 * cell  # both ranks hold both chunks, each its own contribution
    step = 2 + 4 + 2 * (2 + 2 + 4 + 1) + 2 * cell  # two transfers and two changed cells
    assert trace.total_steps == 2
    assert len(wire.compact_trace(trace)) == chunks + initial + 2 * step


def test_the_proxy_counts_what_the_server_sends_after_its_handshake():
    head = b"HTTP/1.1 101 Switching Protocols\r\nSec-WebSocket-Extensions: x\r\n\r\n"
    body = b"y" * 100_000
    server = socket.create_server(("127.0.0.1", 0))

    def serve():
        conn, _ = server.accept()
        with conn:
            conn.recv(1024)
            conn.sendall(head + body)

    threading.Thread(target=serve, daemon=True).start()
    proxy = wire.CountingProxy(server.getsockname()[1])
    try:
        with socket.create_connection(("127.0.0.1", proxy.port)) as c:
            c.sendall(b"GET / HTTP/1.1\r\nUpgrade: websocket\r\n\r\n")
            got = b""
            while len(got) < len(head) + len(body):
                got += c.recv(65536)
        (conn,) = proxy.websockets()
        assert conn.down == len(body)
        assert conn.header(conn.response, "Sec-WebSocket-Extensions") == "x"
        assert conn.header(conn.request, "Upgrade") == "websocket"
    finally:
        proxy.close()
        server.close()
