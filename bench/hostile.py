"""Hostile clients (issue 12): eight attacks on the lab server, each against a fresh server.

`python -m bench.hostile [--phase NAME[,NAME]] [--seconds N] [--root DIR]` starts the server
exactly as `python -m app --host 127.0.0.1 --port <free>` (from this checkout, or from the code
in DIR), once per phase, and measures it from /proc: the sum of VmRSS, threads and open files
over the server process and every process it forked (gunicorn's workers, if any). Each phase:

1. a probe, in a process of its own so that the attack's threads do not slow it, and from a
   client address of its own (127.0.0.2: the attacker's per-address caps are not its), connects
   over Socket.IO and, every PROBE_PERIOD_S, starts a tiny run (ring allreduce, 8 ranks x 64,
   interval 0) and times `simulate` -> first `sim_step`, then times GET /api/collectives;
2. once the probe has warmed up, the baseline (RSS, threads, files) is taken;
3. the attack runs, bounded in count (below) and in time (`--seconds`, default 10, at most
   20); it goes to 127.0.0.1 only, and every socket it opens has a timeout. A server whose
   RSS passes CEILING_MB (4 GB) is killed at once, since the machine is shared: its row says
   "killed at the ceiling";
4. the attack's sockets are closed; SETTLE_S later the "after" figures are taken, and the
   probe, which ran throughout (attack, closing, settling), stops;
5. the server is stopped (Ctrl-C, then harder), and any process it left is killed.

The attacks (found in the issue; every request legal by the API's own rules):

- calculator_bomb: 4 threads ask the worst legal calculator request (ddp_overlap: bucket_mib
  at its minimum, layers, tensors_per_layer and ranks at their maxima, read from /api/calc)
  over /api/calc/ddp_overlap and /embed/calc/ddp_overlap, at most 400 requests;
- deflate_bomb: 4 websockets offering permessage-deflate each send one message that is
  ~100 KB on the wire and inflates to 100 MB; then one plain 100 MiB message;
- non_reader: one Socket.IO client on a 4 KiB receive buffer that sends `simulate` of the
  largest run at the allowed rate (SIMULATE_RATE_PER_S; 2 s after the first, so that run
  completes) and never reads; the phase is shorter than engine.io's ping interval, so it
  needs no pong to stay connected;
- attachment_flood: a packet announcing 999,999,999 binary attachments, then 64,000-byte
  binary frames, at most 64 MiB over at most 32 connections;
- pinned_runs: 64 Socket.IO connections each start the largest run at interval_ms=5000;
- http_flood: 50 concurrent POST /api/simulate of the largest run, at most 3 each;
- half_open: 500 TCP connections that send part of an HTTP request, then nothing, held;
- polling_flood: at most 2,000 Engine.IO polling handshakes from 4 threads.

Attack counts: "sent" (requests, messages, frames or connections), "served" (the server did
what the attacker asked, or kept its connection to the end), "refused" (an error status, a
refused or closed connection), "errors" (timeouts, no answer by the end of the phase).

Targets, per phase: peak RSS within the server's memory budget (the setting
LAB_MEMORY_BUDGET_MB, when the server's code has one: peak - baseline < budget), the probe's
first step p95 < 250 ms with no failed probe, and RSS after within +32 MB of the baseline.
Figures that miss a target are printed as FAIL, not raised: this is a benchmark.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import functools
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .common import HOST, ROOT, app_server, percentile, process_tree, tree_status

TINY = {
    "collective": "allreduce",
    "algorithm": "ring",
    "ranks": 8,
    "elements": 64,
    "interval_ms": 0,
}
PROBE_PERIOD_S = 0.5
PROBE_TIMEOUT_S = 5.0  # a probe run with no first step by then is a failure
PROBE_TARGET_MS = 250
PROBE_ADDRESS = "127.0.0.2"  # the probe's own client address: Linux routes 127/8 to loopback
AFTER_TARGET_MB = 32
BUDGET_SETTING = "LAB_MEMORY_BUDGET_MB"
DEFAULT_SECONDS = 10.0
MAX_SECONDS = 20.0
SETTLE_S = 4.0
CEILING_MB = 4096  # a server past this RSS is killed: the machine is shared (TreeMonitor)
IO_TIMEOUT_S = 2.0  # the longest any attack socket waits at a time
GRACE_S = 5.0  # how long attack threads get to notice the end of their phase
ENGINEIO_WS = "/socket.io/?EIO=4&transport=websocket"
OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x1, 0x2, 0x8, 0x9, 0xA

# Bounds of each attack (besides its time).
CALC_THREADS, CALC_REQUESTS = 4, 400
BOMBS, BOMB_BYTES, PLAIN_BYTES = 4, 100 * 10**6, 100 << 20
FIRST_RUN_S = 2.0
ANNOUNCED, ATTACHMENT_BYTES, FLOOD_BYTES, FLOOD_CONNECTIONS = 999_999_999, 64_000, 64 << 20, 32
PINNED, PINNED_INTERVAL_MS, CONNECT_THREADS = 64, 5000, 8
HTTP_CLIENTS, HTTP_PER_CLIENT = 50, 3
HALF_OPEN = 500
POLLS, POLL_THREADS = 2000, 4


# --------------------------------------------------------------------------- raw websocket


class Closed(Exception):
    """The server refused or closed the connection; the message says how."""


class PhaseOver(TimeoutError):
    """No answer by the end of the phase."""

    def __init__(self) -> None:
        super().__init__("no answer by the end of the phase")


class RawWebSocket:
    """A websocket client that writes frames exactly as told: what a library would refuse.

    Client frames use the all-zero mask key, which RFC 6455 allows and which leaves the payload
    as it is, so a 100 MiB frame costs no masking. Server frames are read unmasked and, since
    only deflate_bomb offers compression and never reads data, uncompressed.
    """

    def __init__(
        self, port: int, path: str, *, deflate: bool = False, rcvbuf: int | None = None
    ) -> None:
        self.port = port
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.buffer = b""
        self.extensions = ""
        try:
            if rcvbuf:  # before connect, so the window the server sees is small from the start
                self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            self.sock.settimeout(IO_TIMEOUT_S)
            self.sock.connect((HOST, port))
            self._handshake(path, deflate)
        except BaseException:
            self.close()
            raise

    def _handshake(self, path: str, deflate: bool) -> None:
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: {HOST}:{self.port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
        ]
        if deflate:
            lines.append("Sec-WebSocket-Extensions: permessage-deflate")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk or len(self.buffer) > 65536:
                raise Closed("websocket handshake: connection closed by the server")
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        status_line, *headers = head.decode("latin-1").split("\r\n")
        status = status_line.split(" ", 2)[1] if " " in status_line else "?"
        if status != "101":
            raise Closed(f"websocket handshake answered HTTP {status}")
        for line in headers:
            name, _, value = line.partition(":")
            if name.strip().lower() == "sec-websocket-extensions":
                self.extensions = value.strip()

    def send(self, opcode: int, payload: bytes, *, rsv1: bool = False) -> None:
        """Send one whole frame (RSV1 marks a compressed message)."""
        n = len(payload)
        header = bytes([0x80 | (0x40 if rsv1 else 0) | opcode])
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", n)
        self.sock.sendall(header + b"\0\0\0\0")
        self.sock.sendall(payload)

    def send_text(self, text: str) -> None:
        self.send(OP_TEXT, text.encode())

    def _fill(self, n: int) -> None:
        """Read until the buffer holds `n` bytes; consume nothing (a timeout loses no byte)."""
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise Closed("connection closed by the server")
            self.buffer += chunk

    def recv_frame(self) -> tuple[int, bytes]:
        """Return the next frame's opcode and payload (a close frame raises Closed)."""
        self._fill(2)
        b0, b1 = self.buffer[0], self.buffer[1]
        n, at = b1 & 0x7F, 2
        if n == 126:
            self._fill(4)
            n, at = struct.unpack("!H", self.buffer[2:4])[0], 4
        elif n == 127:
            self._fill(10)
            n, at = struct.unpack("!Q", self.buffer[2:10])[0], 10
        masked = bool(b1 & 0x80)  # servers never mask; read it right anyway
        start = at + (4 if masked else 0)
        self._fill(start + n)
        mask, payload = self.buffer[at:start], self.buffer[start : start + n]
        self.buffer = self.buffer[start + n :]
        if masked:
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        opcode = b0 & 0x0F
        if opcode == OP_CLOSE:
            code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
            raise Closed(f"closed by the server (websocket close {code})")
        return opcode, payload

    def recv_text(self) -> str:
        """Return the next text message, answering websocket pings on the way."""
        while True:
            opcode, payload = self.recv_frame()
            if opcode == OP_PING:
                self.send(OP_PONG, payload)
            elif opcode == OP_TEXT:
                return payload.decode("utf-8", "replace")

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


def socketio_handshake(ws: RawWebSocket) -> None:
    """Open the Engine.IO session and connect to Socket.IO's default namespace."""
    opening = ws.recv_text()
    if not opening.startswith("0"):
        raise Closed(f"engine.io opened with {opening[:60]!r}")
    ws.send_text("40")
    while True:
        reply = ws.recv_text()
        if reply == "2":  # an engine.io ping: answer it
            ws.send_text("3")
            continue
        if not reply.startswith("40"):
            raise Closed(f"namespace connect answered {reply[:80]!r}")
        return


def peer_closed(sock: socket.socket) -> bool:
    """Say, without waiting, whether the server has closed (or answered and closed) `sock`."""
    try:
        sock.setblocking(False)  # with a timeout set, recv would first wait for data
        sock.recv(1, socket.MSG_PEEK)  # data (an error page) or b"" (closed): either way, done
        return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def still_open(sock: socket.socket, seconds: float = 1.0) -> bool:
    """Read and drop what `sock` has for up to `seconds`; say whether it is still open then."""
    deadline = time.monotonic() + seconds
    try:
        while (left := deadline - time.monotonic()) > 0:
            sock.settimeout(left)
            if not sock.recv(1 << 20):
                return False
    except TimeoutError:
        return True
    except OSError:
        return False
    return True


# --------------------------------------------------------------------------- an attack's world


def classify(exc: BaseException) -> tuple[str, str]:
    """Return (kind, outcome) for an exception an attack met: refused or errors."""
    if isinstance(exc, Closed):
        return "refused", str(exc)
    if isinstance(exc, ConnectionRefusedError):
        return "refused", "connection refused"
    if isinstance(exc, ConnectionResetError | BrokenPipeError | ConnectionAbortedError):
        return "refused", "connection closed by the server"
    if isinstance(exc, PhaseOver):
        return "errors", str(exc)
    if isinstance(exc, TimeoutError):
        return "errors", f"timeout ({IO_TIMEOUT_S:g} s without progress)"
    return "errors", f"{type(exc).__name__}: {exc}"[:100]


class Attack:
    """What one attack shares: the server's port, the deadline, its sockets, its counts.

    counts: "sent" (requests, messages, frames or connections), "served" (the server did what
    the attacker asked), "refused" (it said no or closed the connection), "errors" (timeouts,
    no answer by the end). outcomes: what exactly, e.g. "HTTP 429".
    """

    def __init__(self, port: int, seconds: float, settings: dict) -> None:
        self.port = port
        self.seconds = seconds
        self.settings = settings
        self.deadline = time.monotonic() + seconds
        self.stop = threading.Event()
        self.counts: Counter = Counter()
        self.outcomes: Counter = Counter()
        self.notes: list[str] = []
        self.received_bytes = 0
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._taken = 0
        self.threads: list[threading.Thread] = []

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def over(self) -> bool:
        return self.stop.is_set() or self.left() <= 0

    def take(self, limit: int) -> bool:
        """Claim one unit of the attack's count bound; False once `limit` are claimed."""
        with self._lock:
            self._taken += 1
            return self._taken <= limit

    def outcome(self, kind: str, what: str, n: int = 1) -> None:
        if n <= 0:
            return
        with self._lock:
            self.counts[kind] += n
            self.outcomes[what] += n

    def sent(self, n: int = 1) -> None:
        with self._lock:
            self.counts["sent"] += n

    def failed(self, exc: BaseException) -> None:
        if self.stop.is_set():
            self.outcome("errors", "cut off at the end of the phase")
        else:
            self.outcome(*classify(exc))

    def answered(self, status: int, nbytes: int) -> None:
        with self._lock:
            self.received_bytes += nbytes
        self.outcome("served" if 200 <= status < 300 else "refused", f"HTTP {status}")

    # sockets: every one is tracked, so the end of the phase can close it

    def track(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.add(sock)

    def release(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.discard(sock)
        with contextlib.suppress(OSError):
            sock.close()

    def connect(self) -> socket.socket:
        sock = socket.create_connection((HOST, self.port), timeout=IO_TIMEOUT_S)
        self.track(sock)
        return sock

    def websocket(self, path: str = ENGINEIO_WS, **kwargs) -> RawWebSocket:
        ws = RawWebSocket(self.port, path, **kwargs)
        self.track(ws.sock)
        return ws

    def socketio(self, **kwargs) -> RawWebSocket:
        """Return a raw websocket connected to Socket.IO's default namespace."""
        ws = self.websocket(**kwargs)
        try:
            socketio_handshake(ws)
        except BaseException:
            self.release(ws.sock)
            raise
        return ws

    def close_all(self) -> None:
        with self._lock:
            sockets, self._sockets = list(self._sockets), set()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                sock.close()

    def recv(self, sock: socket.socket, n: int = 65536) -> bytes:
        """Receive from `sock`, waiting as long as the phase lasts (PhaseOver after)."""
        while True:
            left = self.left()
            if left <= 0 or self.stop.is_set():
                raise PhaseOver()
            sock.settimeout(min(IO_TIMEOUT_S, left))
            try:
                return sock.recv(n)
            except TimeoutError:
                continue

    def http(self, method: str, path: str, body: bytes = b"") -> tuple[int, int]:
        """Send one request (Connection: close), read its answer to the end; (status, bytes)."""
        sock = self.connect()
        try:
            head = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{self.port}", "Connection: close"]
            if body:
                head += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
            sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body)
            first, total = b"", 0
            while chunk := self.recv(sock):
                total += len(chunk)
                if len(first) < 64:
                    first += chunk[:64]
            if not first:
                raise Closed("connection closed by the server without an answer")
            return int(first.split(b" ", 2)[1]), total
        finally:
            self.release(sock)

    def workers(self, fn: Callable, items: Iterable, threads: int) -> None:
        """Call `fn(item)` for every item on `threads` threads; wait for them (to the end)."""
        todo = list(items)
        lock = threading.Lock()

        def work() -> None:
            while not self.over():
                with lock:
                    if not todo:
                        return
                    item = todo.pop(0)
                try:
                    fn(item)
                except Exception as e:  # noqa: BLE001 - an attack's surprise is counted, not raised
                    self.failed(e)

        pool = [threading.Thread(target=work, daemon=True) for _ in range(threads)]
        self.threads += pool
        for t in pool:
            t.start()
        for t in pool:
            t.join(max(0.0, self.left()) + GRACE_S)

    def hold(self) -> None:
        """Wait until the end of the phase (connections stay open meanwhile)."""
        self.stop.wait(max(0.0, self.left()))

    def closed_yet(self, ws: RawWebSocket) -> None:
        """Count a connection the attack kept to the end: did the server close it?"""
        if still_open(ws.sock):
            self.outcome("served", "connection still open at the end")
        else:
            self.outcome("refused", "connection closed by the server")


def run_attack(attack: Callable[..., None], ctx: Attack, kwargs: dict) -> None:
    """Run `attack` until it ends or the phase does; then close every socket it left open."""

    def guarded() -> None:
        try:
            attack(ctx, **kwargs)
        except Exception as e:  # noqa: BLE001 - reported in the phase's notes
            ctx.notes.append(f"attack stopped early: {type(e).__name__}: {e}"[:160])

    main = threading.Thread(target=guarded, daemon=True)
    main.start()
    main.join(max(0.0, ctx.left()) + GRACE_S)
    ctx.stop.wait(max(0.0, ctx.left()))  # an attack that ended early: the phase still lasts
    ctx.stop.set()
    ctx.close_all()
    end = time.monotonic() + GRACE_S
    for t in [main, *ctx.threads]:
        t.join(max(0.0, end - time.monotonic()))
    left = sum(t.is_alive() for t in [main, *ctx.threads])
    if left:
        ctx.notes.append(f"{left} attack threads still running {GRACE_S:g} s after the end")


# --------------------------------------------------------------------------- the attacks


def worst_calculator_query(url: str) -> str:
    """Return ddp_overlap's most expensive legal query, from the ranges the server publishes."""
    fields: dict = {}
    with contextlib.suppress(OSError, ValueError):
        with urllib.request.urlopen(url + "/api/calc", timeout=5) as r:
            spec = next(c for c in json.load(r) if c["name"] == "ddp_overlap")
            fields = {f["name"]: f for f in spec["fields"]}

    def smallest(name: str) -> float:
        low = fields.get(name, {}).get("low") or 0
        return low * 1.000001 if low > 0 else 1e-9  # the range is open at 0

    def largest(name: str, fallback: int) -> int:
        high = fields.get(name, {}).get("high")
        return int(high) if high is not None else fallback

    query = {
        "bucket_mib": smallest("bucket_mib"),
        "first_bucket_mib": smallest("first_bucket_mib"),
        "layers": largest("layers", 10_000),
        "tensors_per_layer": largest("tensors_per_layer", 1000),
        "ranks": largest("ranks", 1 << 16),
    }
    return urllib.parse.urlencode(query)


def calculator_bomb(ctx: Attack, query: str) -> None:
    """Ask the worst legal calculator request from several threads, via the API and the embed."""
    paths = (f"/api/calc/ddp_overlap?{query}", f"/embed/calc/ddp_overlap?{query}")
    ctx.notes.append(f"each request: /api/calc|embed/calc/ddp_overlap?{query}")

    def ask(i: int) -> None:
        while not ctx.over() and ctx.take(CALC_REQUESTS):
            ctx.sent()
            try:
                ctx.answered(*ctx.http("GET", paths[i % 2]))
            except Exception as e:  # noqa: BLE001 - counted
                ctx.failed(e)

    ctx.workers(ask, range(CALC_THREADS), CALC_THREADS)


@functools.cache
def deflated_message(size: int) -> bytes:
    """Return an engine.io text message of `size` bytes, raw-deflated as permessage-deflate."""
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = b"0" * (1 << 20)
    parts = [z.compress(b"4")]
    left = size - 1
    while left > 0:
        parts.append(z.compress(chunk[: min(left, len(chunk))]))
        left -= len(chunk)
    parts.append(z.flush(zlib.Z_SYNC_FLUSH))
    data = b"".join(parts)
    return data[:-4] if data.endswith(b"\x00\x00\xff\xff") else data


def after_sending(ctx: Attack, ws: RawWebSocket) -> None:
    """Record what the server did with an oversized message: close the socket, or keep it."""
    try:
        deadline = time.monotonic() + IO_TIMEOUT_S
        while time.monotonic() < deadline:
            ws.recv_frame()
        ctx.outcome("served", "message taken: connection still open")
    except TimeoutError:
        ctx.outcome("served", "message taken: connection still open")
    except Exception as e:  # noqa: BLE001 - a close is the answer we hope for
        ctx.failed(e)


def deflate_bomb(ctx: Attack, bomb: bytes) -> None:
    """Send compressed messages that inflate to BOMB_BYTES; then one plain PLAIN_BYTES message."""
    ctx.notes.append(
        f"{BOMBS} messages of {len(bomb) / 1024:.0f} KiB on the wire inflating to "
        f"{BOMB_BYTES / 1e6:.0f} MB each, then one plain {PLAIN_BYTES >> 20} MiB message"
    )

    def send_bomb(_: int) -> None:
        ctx.sent()
        try:
            ws = ctx.websocket(deflate=True)
        except Exception as e:  # noqa: BLE001 - counted
            ctx.failed(e)
            return
        try:
            if "permessage-deflate" not in ws.extensions:
                ctx.outcome("refused", "compression not accepted")
                return
            ws.send(OP_TEXT, bomb, rsv1=True)
            after_sending(ctx, ws)
        except Exception as e:  # noqa: BLE001 - counted
            ctx.failed(e)
        finally:
            ctx.release(ws.sock)

    ctx.workers(send_bomb, range(BOMBS), BOMBS)
    if ctx.over():
        return
    ctx.sent()
    try:
        ws = ctx.websocket()
    except Exception as e:  # noqa: BLE001 - counted
        ctx.failed(e)
        return
    try:
        ws.sock.settimeout(max(IO_TIMEOUT_S, min(10.0, ctx.left())))  # 100 MiB on loopback
        ws.send(OP_TEXT, b"4" + b"0" * (PLAIN_BYTES - 1))
        ws.sock.settimeout(IO_TIMEOUT_S)
        after_sending(ctx, ws)
    except Exception as e:  # noqa: BLE001 - counted
        ctx.failed(e)
    finally:
        ctx.release(ws.sock)


def non_reader(ctx: Attack, big: dict, rate: float) -> None:
    """Send `simulate` of the largest run at the allowed rate and never read an answer."""
    message = "42" + json.dumps(["simulate", big])
    ws = ctx.socketio(rcvbuf=4096)
    count = 0
    while not ctx.over() and count < rate * MAX_SECONDS:
        ctx.sent()
        try:
            ws.send_text(message)
        except Exception as e:  # noqa: BLE001 - the server closing on it is the hoped-for answer
            ctx.failed(e)
            break
        count += 1
        # The first run gets time to finish, so that the server's run cache can stream every
        # later one at once (a new simulate cancels the run before it).
        ctx.stop.wait(FIRST_RUN_S if count == 1 else 1 / rate)
    ctx.notes.append(
        f"one connection, 4 KiB receive buffer: {count} simulate of {big['ranks']}x"
        f"{big['elements']} at {rate:g}/s, nothing read"
    )
    ctx.hold()
    ctx.closed_yet(ws)


def attachment_flood(ctx: Attack) -> None:
    """Announce ANNOUNCED binary attachments, then send binary frames up to FLOOD_BYTES."""
    announce = f'45{ANNOUNCED}-["simulate",{{"_placeholder":true,"num":0}}]'
    frame = b"\0" * ATTACHMENT_BYTES
    sent_bytes = connections = 0
    ws = None
    while not ctx.over() and sent_bytes < FLOOD_BYTES and connections < FLOOD_CONNECTIONS:
        connections += 1
        try:
            ws = ctx.socketio()
            ws.send_text(announce)
            while not ctx.over() and sent_bytes < FLOOD_BYTES:
                ctx.sent()
                ws.send(OP_BINARY, frame)
                sent_bytes += len(frame)
        except Exception as e:  # noqa: BLE001 - closed by the server: counted, then reconnect
            ws = None
            ctx.failed(e)
    ctx.notes.append(
        f"{sent_bytes / 2**20:.0f} MiB in {ATTACHMENT_BYTES:,}-byte frames over {connections} "
        f"connection(s), each announcing {ANNOUNCED:,} attachments"
    )
    ctx.hold()
    if ws is not None:
        ctx.closed_yet(ws)


def pinned_runs(ctx: Attack, big: dict) -> None:
    """Open PINNED connections that each start the largest run, paced at 5 s a step."""
    message = "420" + json.dumps(["simulate", {**big, "interval_ms": PINNED_INTERVAL_MS}])

    def pin(_: int) -> None:
        ctx.sent()
        ws = ctx.socketio()
        ws.send_text(message)
        ack_by = time.monotonic() + 10
        while True:
            try:
                reply = ws.recv_text()
            except TimeoutError:
                if time.monotonic() < ack_by and not ctx.over():
                    continue
                raise
            if reply.startswith("430"):
                ack = json.loads(reply[3:])[0]
                break
        if isinstance(ack, dict) and ack.get("ok"):
            ctx.outcome("served", "run started")
        else:
            error = ack.get("error") if isinstance(ack, dict) else ack
            ctx.outcome("refused", f"ack: {error}"[:100])

    ctx.workers(pin, range(PINNED), CONNECT_THREADS)
    ctx.notes.append(
        f"{PINNED} connections, each the largest run ({big['ranks']}x{big['elements']}) at "
        f"interval_ms={PINNED_INTERVAL_MS}; held to the end"
    )
    ctx.hold()


def http_flood(ctx: Attack, big: dict) -> None:
    """POST the largest simulation from HTTP_CLIENTS clients at once, HTTP_PER_CLIENT each."""
    body = json.dumps(big).encode()

    def flood(_: int) -> None:
        for _ in range(HTTP_PER_CLIENT):
            if ctx.over():
                return
            ctx.sent()
            try:
                ctx.answered(*ctx.http("POST", "/api/simulate", body))
            except Exception as e:  # noqa: BLE001 - counted
                ctx.failed(e)

    ctx.workers(flood, range(HTTP_CLIENTS), HTTP_CLIENTS)
    ctx.notes.append(
        f"{HTTP_CLIENTS} clients x up to {HTTP_PER_CLIENT} POST /api/simulate "
        f"{big['ranks']}x{big['elements']}; {ctx.received_bytes / 1e6:.0f} MB of answers read"
    )


def half_open(ctx: Attack) -> None:
    """Open HALF_OPEN connections that send part of a request, then hold them silent."""
    partial = f"GET /healthz HTTP/1.1\r\nHost: {HOST}\r\n".encode()
    held: list[socket.socket] = []
    lock = threading.Lock()

    def open_one(_: int) -> None:
        ctx.sent()
        sock = ctx.connect()
        sock.sendall(partial)
        with lock:
            held.append(sock)

    start = time.monotonic()
    ctx.workers(open_one, range(HALF_OPEN), CONNECT_THREADS)
    ctx.notes.append(f"{len(held)} connections open {time.monotonic() - start:.1f} s in")
    ctx.hold()
    closed = sum(peer_closed(s) for s in held)
    ctx.outcome("refused", "closed by the server before the end", closed)
    ctx.outcome("served", "still open at the end", len(held) - closed)


def polling_flood(ctx: Attack) -> None:
    """Make up to POLLS Engine.IO polling handshakes, as fast as they are answered."""
    paths = (f"/socket.io/?EIO=4&transport=polling&t={i}" for i in range(10**9))
    lock = threading.Lock()

    def poll(_: int) -> None:
        while not ctx.over() and ctx.take(POLLS):
            with lock:
                path = next(paths)
            ctx.sent()
            try:
                ctx.answered(*ctx.http("GET", path))
            except Exception as e:  # noqa: BLE001 - counted
                ctx.failed(e)

    ctx.workers(poll, range(POLL_THREADS), POLL_THREADS)


def largest_run(settings: dict) -> dict:
    """Return the largest ring allreduce the server's limits allow (64 x 4096 by default)."""
    ranks = int(settings.get("LAB_MAX_RANKS", 64))
    elements = max(1, int(settings.get("LAB_MAX_CELLS", 1 << 18)) // ranks)
    return {**TINY, "ranks": ranks, "elements": elements}


@dataclass(frozen=True)
class PhaseSpec:
    """A phase: its title, its attack, and what the attack needs, made before the baseline."""

    title: str
    attack: Callable[..., None]
    prepare: Callable[[str, dict], dict] = lambda url, settings: {}


PHASES: dict[str, PhaseSpec] = {
    "calculator_bomb": PhaseSpec(
        "calculator bomb",
        calculator_bomb,
        lambda url, settings: {"query": worst_calculator_query(url)},
    ),
    "deflate_bomb": PhaseSpec(
        "deflate bomb", deflate_bomb, lambda url, settings: {"bomb": deflated_message(BOMB_BYTES)}
    ),
    "non_reader": PhaseSpec(
        "non-reader",
        non_reader,
        lambda url, settings: {
            "big": largest_run(settings),
            "rate": float(settings.get("SIMULATE_RATE_PER_S", 5.0)),
        },
    ),
    "attachment_flood": PhaseSpec("attachment flood", attachment_flood),
    "pinned_runs": PhaseSpec(
        "pinned runs", pinned_runs, lambda url, settings: {"big": largest_run(settings)}
    ),
    "http_flood": PhaseSpec(
        "HTTP flood", http_flood, lambda url, settings: {"big": largest_run(settings)}
    ),
    "half_open": PhaseSpec("half-open sockets", half_open),
    "polling_flood": PhaseSpec("polling flood", polling_flood),
}


# --------------------------------------------------------------------------- the probe


class ProbeLog:
    """The probe's output: one JSON line per sample, {kind, t, ms, why}; kind "run" or "get".

    A sample still waiting when the probe is stopped is written as a failure if it has waited
    PROBE_TARGET_MS or more already (it can only end late), and dropped otherwise.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.waiting: dict[str, float] = {}

    def begin(self, kind: str) -> float:
        t = time.monotonic()
        with self.lock:
            self.waiting[kind] = t
        return t

    def end(self, kind: str, t: float, ms: float | None, why: str | None) -> None:
        with self.lock:
            self.waiting.pop(kind, None)
            print(json.dumps({"kind": kind, "t": t, "ms": ms, "why": why}), flush=True)

    def finish(self) -> None:
        """Write what is still waiting and exit at once (a polite goodbye measures nothing)."""
        self.lock.acquire()  # held to the end: no sample is written after this
        for kind, t in self.waiting.items():
            waited = (time.monotonic() - t) * 1e3
            if waited >= PROBE_TARGET_MS:
                why = f"no answer by the end of the phase (waited {waited:.0f} ms)"
                print(json.dumps({"kind": kind, "t": t, "ms": None, "why": why}))
        sys.stdout.flush()
        os._exit(0)


def probe_main(url: str, max_seconds: float) -> None:
    """Be the probe: a tiny run, and apart a GET, every PROBE_PERIOD_S, written to stdout.

    Runs until stdin says anything or closes, or `max_seconds` pass, whichever is first.
    """
    from .load import LabClient  # only the probe process needs the Socket.IO client

    connect_from(PROBE_ADDRESS)
    out = ProbeLog()

    def runs() -> None:
        client = None
        while True:
            t = out.begin("run")
            client, ms, why = probe_run(url, client, LabClient)
            out.end("run", t, ms, why)
            time.sleep(max(0.0, PROBE_PERIOD_S - (time.monotonic() - t)))

    def gets() -> None:
        while True:
            t = out.begin("get")
            out.end("get", t, *probe_http(url))
            time.sleep(max(0.0, PROBE_PERIOD_S - (time.monotonic() - t)))

    stop = threading.Event()
    for target in (runs, gets, lambda: (sys.stdin.readline(), stop.set())):
        threading.Thread(target=target, daemon=True).start()
    stop.wait(max_seconds)
    out.finish()


def connect_from(address: str) -> None:
    """Make this process's IPv4 connections leave from `address` (another loopback address).

    The probe stands for another user: the per-address caps the attacker meets on 127.0.0.1
    (runs, connections, work units) must not be the probe's. Every client library here
    (urllib, requests, websocket-client) connects through `socket.socket.connect`.
    """
    connect = socket.socket.connect

    def connect_bound(sock: socket.socket, target) -> None:
        if sock.family == socket.AF_INET and sock.getsockname()[1] == 0:
            sock.bind((address, 0))
        connect(sock, target)

    socket.socket.connect = connect_bound


def probe_run(url: str, client, client_class) -> tuple[object, float | None, str | None]:
    """Start one tiny run; return (the client, ms to its first step or None, why not)."""
    if client is None or client.disconnected or not client.sio.connected:
        if client is not None:
            client.disconnect()
        client = client_class(url)
        try:
            client.connect()
        except Exception as e:  # noqa: BLE001 - a refused connection is a failed probe
            return None, None, f"connect failed: {type(e).__name__}: {e}"[:100]
    try:
        pending = client.send(TINY)
    except Exception as e:  # noqa: BLE001 - a dropped connection is a failed probe
        return client, None, f"emit failed: {type(e).__name__}"
    log = client.wait_steps(pending, 1, PROBE_TIMEOUT_S)
    first_ms, why = None, None
    if not pending.acked:
        why = "disconnected" if client.disconnected else f"no ack in {PROBE_TIMEOUT_S:g} s"
    elif pending.run_id is None:
        ack = pending.ack
        why = f"refused: {ack.get('error') if isinstance(ack, dict) else ack}"[:100]
    elif log is None or log.t_first is None:
        why = (log.error if log and log.error else None) or (
            f"no first step in {PROBE_TIMEOUT_S:g} s"
        )
    else:
        first_ms = (log.t_first - pending.t_emit) * 1e3
    if pending.run_id:
        client.wait_run(pending, 2.0)
        client.forget(pending.run_id)
    return client, first_ms, why


def probe_http(url: str) -> tuple[float | None, str | None]:
    """Time GET /api/collectives; return (ms or None, why not)."""
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(url + "/api/collectives", timeout=PROBE_TIMEOUT_S) as r:
            r.read()
    except urllib.error.HTTPError as e:
        return None, f"HTTP {e.code}"
    except OSError as e:
        return None, f"{type(e).__name__}"
    return (time.perf_counter() - start) * 1e3, None


class ProbeProcess:
    """The probe in its own process (`python -m bench.hostile --probe URL`), read line by line."""

    def __init__(self, url: str, max_seconds: float) -> None:
        self.url = url
        self.max_seconds = max_seconds
        self.samples: list[dict] = []
        self._lock = threading.Lock()
        self._err = tempfile.TemporaryFile()
        self.proc: subprocess.Popen | None = None
        self._reader: threading.Thread | None = None

    def __enter__(self) -> ProbeProcess:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bench.hostile", "--probe", self.url]
            + ["--probe-seconds", str(self.max_seconds)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._err,
            text=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        return self

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            with contextlib.suppress(ValueError):
                sample = json.loads(line)
                with self._lock:
                    self.samples.append(sample)

    def wait_ready(self, good: int = 2, timeout: float = 30) -> bool:
        """Wait until `good` probe runs have succeeded (the warm-up); say if they did."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if sum(s["kind"] == "run" and s["ms"] is not None for s in self.samples) >= good:
                    return True
            if self.proc is not None and self.proc.poll() is not None:
                return False
            time.sleep(0.1)
        return False

    def between(self, t0: float, t1: float) -> list[dict]:
        with self._lock:
            return [s for s in self.samples if t0 <= s["t"] <= t1]

    def errors(self) -> str:
        self._err.seek(0)
        return self._err.read().decode(errors="replace")[-2000:]

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop the probe (it writes what it still waits for and exits); idempotent."""
        if self.proc is None or self._err.closed:
            return
        with contextlib.suppress(OSError, ValueError):
            self.proc.stdin.write("stop\n")
            self.proc.stdin.close()
        try:
            self.proc.wait(PROBE_TIMEOUT_S + 3)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        if self._reader is not None:
            self._reader.join(5)
        with contextlib.suppress(OSError):
            self.proc.stdout.close()
        self._err.close()


# --------------------------------------------------------------------------- measuring


class TreeMonitor:
    """Sample the server's process tree every `period` s: RSS, threads, files; keep peaks.

    A tree whose RSS passes `ceiling_mb` is killed (SIGKILL) at once and `on_kill` is called:
    work that outlives its clients (a calculator request) would otherwise go on taking the
    shared machine's memory until the end of the phase.
    """

    def __init__(
        self,
        pid: int,
        ceiling_mb: float,
        on_kill: Callable[[], None] = lambda: None,
        period: float = 0.2,
    ) -> None:
        self.pid = pid
        self.ceiling_kb = ceiling_mb * 1024
        self.on_kill = on_kill
        self.killed = False
        self.period = period
        self.pids = [pid]
        self.peak: dict[str, int] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        i = 0
        while not self._stop.is_set():
            if i % 5 == 0:  # forked workers come and go; walking /proc costs more than a read
                self.pids = process_tree(self.pid)
            if self.sample()["VmRSS"] > self.ceiling_kb and not self.killed:
                self.kill()
            i += 1
            self._stop.wait(self.period)

    def kill(self) -> None:
        """Kill the whole tree now (its RSS passed the ceiling) and tell `on_kill`."""
        self.killed = True
        for pid in self.pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.on_kill()

    def sample(self) -> dict[str, int]:
        """Read the tree's figures now and fold them into the peaks."""
        now = tree_status(self.pids)
        with self._lock:
            for key in ("VmRSS", "Threads", "fds"):
                self.peak[key] = max(self.peak.get(key, 0), now[key])
        return now

    def reset(self) -> dict[str, int]:
        """Start the peaks afresh from now (and the kernel's VmHWM too); return now's figures."""
        self.pids = process_tree(self.pid)
        for pid in self.pids:
            with contextlib.suppress(OSError):
                with open(f"/proc/{pid}/clear_refs", "w") as f:
                    f.write("5")
        now = tree_status(self.pids)
        with self._lock:
            self.peak = {key: now[key] for key in ("VmRSS", "Threads", "fds")}
        return now

    def peak_rss_kb(self) -> int:
        """The sampled peak, or the kernel's high-water marks when those saw a higher one."""
        with self._lock:
            return max(self.peak.get("VmRSS", 0), tree_status(self.pids)["VmHWM"])

    def __enter__(self) -> TreeMonitor:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(2)


def _start_time(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def kill_leftovers(processes: dict[int, str | None]) -> int:
    """SIGKILL the server's descendants that outlived it (same pid and start time); count them."""
    killed = 0
    for pid, started in processes.items():
        if started is not None and _start_time(pid) == started:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
    return killed


def server_settings(cwd: Path, env: dict[str, str]) -> dict:
    """Return the settings the server in `cwd` will run with: its defaults, then COLLECTIVE_LAB_*.

    Read by running the server's own settings module, so a setting that code lacks is absent.
    """
    code = (
        "import json, os\n"
        "from app.web.settings import defaults\n"
        "values = defaults()\n"
        "for key, text in os.environ.items():\n"
        "    if key.startswith('COLLECTIVE_LAB_'):\n"
        "        try:\n"
        "            values[key[15:]] = json.loads(text)\n"
        "        except ValueError:\n"
        "            values[key[15:]] = text\n"
        "print(json.dumps(values, default=str))\n"
    )
    try:
        out = subprocess.run(
            [sys.executable, "-c", code],
            cwd=cwd,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=60,
        )
        return json.loads(out.stdout)
    except (OSError, ValueError, subprocess.SubprocessError):
        return {}


@dataclass
class PhaseResult:
    """Everything one phase measured."""

    name: str
    title: str
    seconds: float
    counts: Counter = field(default_factory=Counter)
    outcomes: Counter = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    samples: list[dict] = field(default_factory=list)
    base: dict = field(default_factory=dict)
    peak: dict = field(default_factory=dict)
    after: dict = field(default_factory=dict)
    budget_mb: float | None = None
    log_kb: float = 0.0
    server_alive: bool = True
    killed: bool = False  # by the bench, at the safety ceiling

    def probes(self, kind: str) -> list[dict]:
        return [s for s in self.samples if s["kind"] == kind]

    @property
    def first_steps(self) -> list[float]:
        """Milliseconds from `simulate` to the first `sim_step` of each probe run that had one."""
        return [s["ms"] for s in self.probes("run") if s["ms"] is not None]

    @property
    def probe_failures(self) -> Counter:
        return Counter(s["why"] for s in self.probes("run") if s["ms"] is None)

    @property
    def http_ms(self) -> list[float]:
        return [s["ms"] for s in self.probes("get") if s["ms"] is not None]

    def mb(self, which: dict) -> float:
        return which.get("VmRSS", 0) / 1024

    def budget_ok(self) -> bool | None:
        """Peak RSS under baseline + budget; None when the server has no budget setting."""
        if self.budget_mb is None:
            return None
        return self.server_alive and self.mb(self.peak) - self.mb(self.base) < self.budget_mb

    def probe_ok(self) -> bool:
        steps = self.first_steps
        return (
            bool(steps)
            and not self.probe_failures
            and percentile(steps, 95) < PROBE_TARGET_MS
            and self.server_alive
        )

    def after_ok(self) -> bool:
        return self.server_alive and self.mb(self.after) - self.mb(self.base) <= AFTER_TARGET_MB

    def passed(self) -> bool:
        return self.probe_ok() and self.after_ok() and self.budget_ok() is not False


# --------------------------------------------------------------------------- one phase


def run_phase(
    name: str,
    seconds: float,
    settle_s: float,
    settings: dict,
    env: dict[str, str],
    cwd: Path,
    ceiling_mb: float = CEILING_MB,
) -> PhaseResult:
    """Run one phase against a fresh server; return what it measured."""
    spec = PHASES[name]
    result = PhaseResult(name, spec.title, seconds)
    budget = settings.get(BUDGET_SETTING)
    result.budget_mb = float(budget) if isinstance(budget, int | float) else None
    processes: dict[int, str | None] = {}
    server = app_server(env, cwd)
    attacks: list[Attack] = []  # the one running, so a kill at the ceiling can end it

    def end_attack() -> None:
        for ctx in attacks:
            ctx.stop.set()

    # The probe starts with the server (its imports overlap the server's); it counts from t0.
    probe = ProbeProcess(server.url, seconds + settle_s + 120)
    with probe, server, TreeMonitor(server.pid, ceiling_mb, end_attack) as mon:
        kwargs = spec.prepare(server.url, settings)
        if not probe.wait_ready():
            result.notes.append(f"probe never warmed up: {probe.errors()[-300:]}")
        time.sleep(0.5)
        result.base = mon.reset()
        log0 = server.log_bytes()
        t0 = time.monotonic()
        ctx = Attack(server.port, seconds, settings)
        attacks.append(ctx)
        run_attack(spec.attack, ctx, kwargs)
        time.sleep(settle_s)
        result.after = mon.sample()
        t1 = time.monotonic()
        probe.stop()
        result.samples = probe.between(t0, t1)
        result.peak = {**mon.peak, "VmRSS": mon.peak_rss_kb()}
        result.server_alive = server.proc is not None and server.proc.poll() is None
        result.log_kb = (server.log_bytes() - log0) / 1024
        result.counts, result.outcomes = ctx.counts, ctx.outcomes
        result.notes += ctx.notes
        processes = {pid: _start_time(pid) for pid in process_tree(server.pid)[1:]}
    result.killed = mon.killed
    if mon.killed:
        result.notes.append(
            f"server killed by the bench: its RSS passed the {ceiling_mb:g} MB safety ceiling"
        )
    elif not result.server_alive:
        result.notes.append(f"the server died: {server.shutdown()}")
    else:
        result.notes.append(server.shutdown())
    killed = kill_leftovers(processes)
    if killed:
        result.notes.append(f"{killed} server processes outlived it and were killed")
    return result


# --------------------------------------------------------------------------- report


def _ms(values: list[float], q: float) -> str:
    return f"{percentile(values, q):.0f}" if values else "-"


def _verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else "PASS" if ok else "FAIL"


def table(results: list[PhaseResult]) -> str:
    """Return the results as a Markdown table, one row per phase."""
    rows = [
        "| phase | attack sent / served / refused / errors | probe first step p50 / p95 / max "
        "ms | probe fails / runs | probe GET p95 ms (fails) | RSS base / peak / after MB | threads "
        "base / peak / after | within budget | p95 < 250 ms | after <= +32 MB |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        c, steps = r.counts, r.first_steps
        fails = sum(r.probe_failures.values())
        if r.budget_mb is None:
            budget = "no budget configured"
        else:
            budget = (
                f"{_verdict(r.budget_ok())} (+{r.mb(r.peak) - r.mb(r.base):.0f} of "
                f"{r.budget_mb:g} MB)"
            )
        after = (
            "killed at the ceiling"
            if r.killed
            else "server died"
            if not r.server_alive
            else f"{r.mb(r.after):.0f}"
        )
        rows.append(
            f"| {r.title} | {c['sent']} / {c['served']} / {c['refused']} / {c['errors']} | "
            f"{_ms(steps, 50)} / {_ms(steps, 95)} / {_ms(steps, 100)} | "
            f"{fails} / {len(r.probes('run'))} | {_ms(r.http_ms, 95)} "
            f"({len(r.probes('get')) - len(r.http_ms)}) | "
            f"{r.mb(r.base):.0f} / {r.mb(r.peak):.0f} / {after} | "
            f"{r.base.get('Threads', 0)} / {r.peak.get('Threads', 0)} / "
            f"{r.after.get('Threads', 0)} | {budget} | {_verdict(r.probe_ok())} | "
            f"{_verdict(r.after_ok())} |"
        )
    return "\n".join(rows)


def details(r: PhaseResult) -> str:
    """Return the lines that explain one phase's row."""
    lines = [f"- {r.title} ({r.name}, {r.seconds:g} s):"]
    lines += [f"  - {note}" for note in r.notes]
    if r.outcomes:
        lines.append(
            "  - outcomes: " + ", ".join(f"{what} x{n}" for what, n in r.outcomes.most_common(6))
        )
    if r.probe_failures:
        lines.append(
            "  - probe failures: "
            + ", ".join(f"{why} x{n}" for why, n in r.probe_failures.most_common(4))
        )
    http_fails = Counter(s["why"] for s in r.probes("get") if s["ms"] is None)
    if http_fails:
        lines.append(
            "  - probe GET failures: "
            + ", ".join(f"{why} x{n}" for why, n in http_fails.most_common(3))
        )
    lines.append(
        f"  - open files base / peak / after: {r.base.get('fds', 0)} / {r.peak.get('fds', 0)} / "
        f"{r.after.get('fds', 0)}; server log during the phase {r.log_kb:.0f} KB"
    )
    return "\n".join(lines)


# --------------------------------------------------------------------------- entry points


def run(
    phases: list[str] | None = None,
    seconds: float = DEFAULT_SECONDS,
    settle_s: float = SETTLE_S,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    ceiling_mb: float = CEILING_MB,
) -> dict:
    """Run the chosen phases (all by default), print the table, and return the results."""
    cwd = Path(cwd or ROOT)
    env = dict(env or {})
    seconds = max(1.0, min(seconds, MAX_SECONDS))
    chosen = phases or list(PHASES)
    settings = server_settings(cwd, env)
    budget = settings.get(BUDGET_SETTING)
    print(
        f"hostile: {len(chosen)} phase(s) x {seconds:g} s + {settle_s:g} s settling, each on a "
        f"fresh `python -m app` from {cwd}"
        + (f" (env {env})" if env else "")
        + "; memory budget: "
        + (f"{BUDGET_SETTING}={budget}" if budget is not None else "no budget configured"),
        flush=True,
    )
    results = []
    for name in chosen:
        start = time.monotonic()
        try:
            result = run_phase(name, seconds, settle_s, settings, env, cwd, ceiling_mb)
        except RuntimeError as e:  # the server did not start (or exited at once)
            result = PhaseResult(name, PHASES[name].title, seconds, server_alive=False)
            result.notes.append(f"no measurement: {str(e)[:300]}")
        results.append(result)
        print(details(result), f"  ({time.monotonic() - start:.0f} s)", flush=True)
    report = table(results)
    print("\n" + report, flush=True)
    passed = sum(r.passed() for r in results)
    print(f"hostile: {passed} of {len(results)} phases met every target")
    return {"phases": results, "table": report, "passed": passed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.hostile", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--phase",
        action="append",
        default=[],
        help=f"phase(s) to run, comma-separated or repeated (default all): {', '.join(PHASES)}",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=DEFAULT_SECONDS,
        help=f"attack time per phase (default {DEFAULT_SECONDS:g}, at most {MAX_SECONDS:g})",
    )
    parser.add_argument(
        "--settle", type=float, default=SETTLE_S, help="seconds before the 'after' figures"
    )
    parser.add_argument(
        "--root",
        type=Path,
        help="serve the code in this directory instead of this checkout (e.g. a `git archive`)",
    )
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="environment for the server, e.g. COLLECTIVE_LAB_LAB_MEMORY_BUDGET_MB=256",
    )
    parser.add_argument(
        "--ceiling-mb",
        type=float,
        default=CEILING_MB,
        help=f"kill a server whose RSS passes this (default {CEILING_MB}; the machine is shared)",
    )
    parser.add_argument("--probe", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--probe-seconds", type=float, default=300, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.probe:
        probe_main(args.probe, args.probe_seconds)  # exits the process itself
    phases = [p.strip() for arg in args.phase for p in arg.split(",") if p.strip()]
    unknown = sorted(set(phases) - set(PHASES))
    if unknown:
        parser.error(f"unknown phase(s): {', '.join(unknown)}; there are {', '.join(PHASES)}")
    env = dict(kv.split("=", 1) for kv in args.server_env)
    try:
        run(phases, args.seconds, args.settle, args.root, env, args.ceiling_mb)
    except KeyboardInterrupt:  # the servers and probes were stopped on the way out
        print("hostile: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
