"""Closing a websocket whose peer reset the connection does not raise in a server thread."""

from __future__ import annotations

from simple_websocket import ws

from app.web.live import ws_compat


class ResetSocket:
    def send(self, data: bytes) -> int:
        raise ConnectionResetError(104, "Connection reset by peer")


def test_close_after_the_peer_reset_marks_the_socket_closed_without_raising(app):
    ws_compat.apply()
    conn = object.__new__(ws.Base)  # no handshake: only what close() touches
    conn.connected = True
    conn.sock = ResetSocket()
    conn.ws = type("Proto", (), {"send": staticmethod(lambda event: b"close-frame")})()
    conn.close()
    assert conn.connected is False
