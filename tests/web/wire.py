"""Test helpers that speak to a server at the byte level, and run `python -m app` as a process.

`ProductionServer` starts the real server (`python -m app`) on a free port with extra settings
from the environment, and reads its serving process's own counters from /proc: threads,
resident memory, bytes read. The websocket helpers write frames by hand, so a test can send
what no well-behaved client library would: an extension offer, a frame announcing 100 MiB.
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OPEN_PACKET = re.compile(rb"0\{.*\}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(condition, timeout: float, what: str, every: float = 0.1) -> None:
    """Poll `condition` until it is true; raise AssertionError naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(every)
    raise AssertionError(f"{what}: not within {timeout} s")


def proc_field(pid: int, name: str, file: str = "status") -> int:
    """Read one `Name: value` field of /proc/<pid>/<file> as an integer (kB for memory)."""
    for line in Path(f"/proc/{pid}/{file}").read_text().splitlines():
        key, _, value = line.partition(":")
        if key == name:
            return int(value.split()[0])
    raise KeyError(f"{name} not in /proc/{pid}/{file}")


class ProductionServer:
    """`python -m app [args]` on 127.0.0.1 and a free port, `settings` as COLLECTIVE_LAB_* env."""

    def __init__(
        self, settings: dict | None = None, timeout: float = 60.0, args: Iterable[str] = ()
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env.update({f"COLLECTIVE_LAB_{k}": str(v) for k, v in (settings or {}).items()})
        self.log_path = Path(f"/tmp/collective-lab-test-server-{self.port}.log")
        self._log = self.log_path.open("w+")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(self.port), *args],
            cwd=ROOT,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, as a terminal would signal it
        )
        try:
            wait_until(self._answers, timeout, f"the server on port {self.port} did not answer")
        except AssertionError:
            self.__exit__(AssertionError, None, None)
            raise AssertionError(f"the server did not start:\n{self.output()}") from None

    def _answers(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"the server exited ({self.process.returncode}):\n{self.output()}")
        with socket.socket() as s:
            s.settimeout(2)
            if s.connect_ex(("127.0.0.1", self.port)) != 0:
                return False
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            with contextlib.suppress(OSError):
                return s.recv(16).startswith(b"HTTP/1.1 200")
        return False

    @property
    def serving_pid(self) -> int:
        """The process that runs the app: the server's worker process, or the server itself."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        pids = children.read_text().split() if children.exists() else []
        return int(pids[0]) if pids else self.process.pid

    def threads(self) -> int:
        return proc_field(self.serving_pid, "Threads")

    def rss_kib(self) -> int:
        return proc_field(self.serving_pid, "VmRSS")

    def peak_rss_kib(self) -> int:
        return proc_field(self.serving_pid, "VmHWM")

    def bytes_read(self) -> int:
        """Bytes the serving process has read from files and sockets (`rchar`)."""
        return proc_field(self.serving_pid, "rchar", "io")

    def output(self) -> str:
        """What the server printed so far (all of it, once it has stopped)."""
        if self._log.closed:
            return self._final_output
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        """Send `sig`, wait for the exit, and return the exit code (killing it past `timeout`)."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def __enter__(self) -> ProductionServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop(signal.SIGKILL if exc[0] else signal.SIGTERM)
        self._final_output = self.output()
        self._log.close()
        with contextlib.suppress(OSError):
            self.log_path.unlink()


# -- websockets by hand ---------------------------------------------------------------------------

WS_PATH = "/socket.io/?EIO=4&transport=websocket"
CONTINUATION, TEXT, BINARY, CLOSE = 0x0, 0x1, 0x2, 0x8


class WebSocket:
    """A websocket opened by hand: a valid handshake, then frames written and read raw."""

    def __init__(self, port: int, extra_headers: str = "", path: str = WS_PATH) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            self.head, self.pending = self._handshake(port, path, extra_headers)
        except BaseException:
            self.sock.close()
            raise
        self._inflate = zlib.decompressobj(-15)  # for a server that compresses its frames

    def _handshake(self, port: int, path: str, extra_headers: str) -> tuple[str, bytes]:
        """Send the upgrade request; return the response's head and what came after it."""
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"{extra_headers}\r\n".encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                break
            head += chunk
        head, _, rest = head.partition(b"\r\n\r\n")  # frames may come with the head
        return head.decode("latin-1"), rest

    def refusal(self) -> bytes:
        """The body of a response that refused the upgrade (read to its Content-Length)."""
        match = re.search(r"(?im)^content-length:\s*(\d+)", self.head)
        length = int(match.group(1)) if match else 0
        return self._take(length)

    def __enter__(self) -> WebSocket:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def compressed(self) -> bool:
        """Whether the server accepted permessage-deflate (compressed frames in both ways)."""
        return "permessage-deflate" in self.head.lower()

    def send_text(self, text: str) -> None:
        data = text.encode()
        self.sock.sendall(frame_header(TEXT, len(data)) + data)

    def read_frame(self) -> tuple[int, bytes]:
        """Read one (unmasked) server frame; return its opcode and payload."""
        first, second = self._take(2)
        length = second & 0x7F
        if length == 126:
            (length,) = struct.unpack("!H", self._take(2))
        elif length == 127:
            (length,) = struct.unpack("!Q", self._take(8))
        payload = self._take(length)
        if first & 0x40:  # RSV1: a compressed message
            payload = self._inflate.decompress(payload + b"\0\0\xff\xff")
        return first & 0x0F, payload

    def _take(self, n: int) -> bytes:
        while len(self.pending) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.pending += chunk
        data, self.pending = self.pending[:n], self.pending[n:]
        return data

    def join(self) -> WebSocket:
        """Complete the engine.io open and join the default Socket.IO namespace."""
        try:
            self._join()
        except BaseException:
            self.close()
            raise
        return self

    def _join(self) -> None:
        assert self.head.startswith("HTTP/1.1 101"), self.head
        opcode, data = self.read_frame()
        assert opcode == TEXT and OPEN_PACKET.fullmatch(data), data
        self.send_text("40")
        opcode, data = self.read_frame()
        assert opcode == TEXT and data.startswith(b"40{"), data

    def push_until_refused(self, blocks: Iterable[bytes]) -> int:
        """Send `blocks` until the server resets the connection; return the bytes sent."""
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)  # little in flight
        sent = 0
        try:
            for block in blocks:
                self.sock.sendall(block)
                sent += len(block)
        except (BrokenPipeError, ConnectionResetError):  # the server closed the connection
            pass
        return sent

    def read_until(self, accept, what: str) -> bytes:
        """Read frames, answering pings, until `accept(payload)`; return that payload."""
        while True:
            opcode, data = self.read_frame()
            if opcode == CLOSE:
                raise ConnectionError(f"the server closed the websocket before {what}")
            if data == b"2":  # engine.io ping
                self.send_text("3")
            elif accept(data):
                return data

    def close(self) -> None:
        self.sock.close()


def one_message(total: int, block: int = 65536) -> Iterator[bytes]:
    """A text message of `total` bytes in one frame: its header, then the payload in blocks."""
    yield frame_header(TEXT, total)
    payload = b"a" * block
    for start in range(0, total, block):
        yield payload[: min(block, total - start)]


def fragments(total: int, size: int = 16384) -> Iterator[bytes]:
    """A text message of `total` bytes sent as frames of `size` bytes (continuations)."""
    payload = b"a" * size
    for start in range(0, total, size):
        opcode = TEXT if start == 0 else CONTINUATION
        yield frame_header(opcode, size, fin=start + size >= total) + payload


def frame_header(opcode: int, length: int, *, fin: bool = True, rsv1: bool = False) -> bytes:
    """A client frame's header, masked with the all-zero key so the payload goes as it is."""
    first = (0x80 if fin else 0) | (0x40 if rsv1 else 0) | opcode
    if length < 126:
        head = struct.pack("!BB", first, 0x80 | length)
    elif length < 1 << 16:
        head = struct.pack("!BBH", first, 0x80 | 126, length)
    else:
        head = struct.pack("!BBQ", first, 0x80 | 127, length)
    return head + b"\0\0\0\0"
