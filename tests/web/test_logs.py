"""Bad input from a client is logged once per address per interval, and never as a traceback.

A malformed Socket.IO or engine.io packet used to write a full traceback each (about 700 bytes
for a 4-byte packet), so one connection could fill the disk. Here 1,000 malformed packets go
over a real websocket (and over HTTP long-polling) to a live server of a fresh app, and the
captured log must hold no traceback and at most a few lines, one of which says what came from
where. The throttle itself is checked with a fake clock.
"""

from __future__ import annotations

import http.client
import json
import logging
import socket

import pytest

from app import create_app
from app.web.live.bad_input import BadInputLog
from tests.conftest import TEST_CONFIG, LiveServer
from tests.web.test_fuzz_sockets import RawSocket

# What a broken or hostile client sends: engine.io packets that do not decode (empty, not a
# packet type), Socket.IO packets with no event name, packet types a client must not send,
# binary events announcing no attachments, and attachments that point nowhere.
MALFORMED = [
    "4",
    "42[]",
    "42777[]",  # asks for an ack: answered with an error
    "42{}",
    '42"simulate"',
    "44",
    "4{}x",
    "45-[",
    '451-["simulate",{"_placeholder":true,"num":7}]',
    "x",  # the next packet is taken as that attachment, and is refused with it
    "",
    "b!!",
    "42/nowhere,[1]",
]
PACKETS = 1000
MAX_LINES = 3  # one line per client address per interval, plus room for one more source


def log_text(records: list[logging.LogRecord]) -> str:
    """Format `records` as a log file would show them, tracebacks included."""
    formatter = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    return "".join(formatter.format(r) + "\n" for r in records)


def check_quiet(caplog, what: str) -> str:
    """Assert the captured log has no traceback and at most MAX_LINES records; return it."""
    records = [r for r in caplog.records if r.levelno >= logging.WARNING]
    text = log_text(records)
    assert "Traceback" not in text and not any(r.exc_info for r in records), (
        f"{what} logged a traceback ({len(text)} bytes of log):\n{text[:3000]}"
    )
    assert len(records) <= MAX_LINES, (
        f"{what} logged {len(records)} lines ({len(text)} bytes):\n{text[:3000]}"
    )
    return text


@pytest.fixture
def server():
    with LiveServer(create_app(TEST_CONFIG)) as live:
        yield live


@pytest.mark.server
def test_a_thousand_malformed_packets_over_a_websocket_log_one_line_and_no_traceback(
    server, caplog
):
    caplog.set_level(logging.WARNING)
    raw = RawSocket(server.url)
    try:
        for i in range(PACKETS):
            raw.ws.send(MALFORMED[i % len(MALFORMED)])
        raw.ws.send("42[]")  # the last packet before the run is not an attachment header
        raw.normal_run()  # the same connection still runs the lab
    finally:
        raw.close()
    text = check_quiet(caplog, f"{PACKETS} malformed websocket packets")
    assert "127.0.0.1" in text and "malformed" in text, f"the bad input was not logged:\n{text}"


@pytest.mark.server
def test_malformed_long_polling_posts_log_no_traceback(server, caplog):
    caplog.set_level(logging.WARNING)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    for _ in range(100):
        conn.request("GET", "/socket.io/?EIO=4&transport=polling")
        sid = json.loads(conn.getresponse().read()[1:])["sid"]
        url = f"/socket.io/?EIO=4&transport=polling&sid={sid}"
        conn.request("POST", url, body=b"40")
        assert conn.getresponse().read() == b"OK"
        for body in (b"4", b"42[]", b"44", b"x"):
            conn.request("POST", url, body=body)
            response = conn.getresponse()
            response.read()
            assert response.status < 500
        conn.request("POST", url, body=b"1")  # close, as a client leaving does (if still open)
        conn.getresponse().read()
    conn.close()
    check_quiet(caplog, "400 malformed polling packets")


@pytest.mark.server
def test_a_malformed_websocket_handshake_is_a_400_without_a_traceback(server, caplog):
    caplog.set_level(logging.WARNING)
    request = (
        b"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n"  # no key, no version
    )
    for _ in range(20):
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(request)
            status = sock.recv(64).split(b"\r\n", 1)[0]
        assert status.split()[1] == b"400", status
    text = check_quiet(caplog, "20 malformed websocket handshakes")
    assert "127.0.0.1" in text, f"the bad handshake was not logged:\n{text}"


@pytest.mark.server
def test_two_clients_behind_one_address_share_one_line_per_interval(server, caplog):
    caplog.set_level(logging.WARNING)
    noisy, other = RawSocket(server.url), RawSocket(server.url)
    try:
        for _ in range(50):
            noisy.ws.send("42[]")
        other.ws.send("42[]")
        noisy.normal_run()
        other.normal_run()
    finally:
        noisy.close()
        other.close()
    # Both come from 127.0.0.1, so they share one line per interval: the address is the key.
    text = check_quiet(caplog, "two clients' malformed packets")
    assert text.count("malformed") == 1, text


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_throttle_logs_once_per_address_per_interval_and_counts_the_rest(caplog):
    caplog.set_level(logging.INFO)
    clock = FakeClock()
    log = BadInputLog(logging.getLogger("tests.bad_input"), interval_s=10, clock=clock)
    for _ in range(5):
        log.note("10.0.0.1", "malformed packet (no event name)")
    log.note("10.0.0.2", "malformed packet (no event name)")
    clock.now += 9.9
    log.note("10.0.0.1", "malformed packet (no event name)")
    assert [r.getMessage() for r in caplog.records] == [
        "bad input from 10.0.0.1: malformed packet (no event name)",
        "bad input from 10.0.0.2: malformed packet (no event name)",
    ]
    clock.now += 0.2
    log.note("10.0.0.1", "unknown event 'x'")
    assert caplog.records[-1].getMessage() == (
        "bad input from 10.0.0.1: unknown event 'x' "
        "(5 more from this address since its last line, not logged)"
    )
    assert all(r.exc_info is None for r in caplog.records)
    assert all(r.levelno == logging.WARNING for r in caplog.records)


def test_the_throttle_keeps_a_bounded_number_of_addresses():
    clock = FakeClock()
    log = BadInputLog(logging.getLogger("tests.bad_input"), clock=clock, max_addresses=100)
    for i in range(10_000):
        log.note(f"10.0.{i // 256}.{i % 256}", "x")
    assert len(log) <= 100
