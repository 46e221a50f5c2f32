"""A real redis-server for the tests, on 127.0.0.1 and a free port, with nothing kept on disk.

Scale-out (several server processes sharing Socket.IO's message queue and the classroom's
state) is tested against the real thing, Debian's `redis-server`; `.ci/run` installs it.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time

REDIS_SERVER = shutil.which("redis-server")


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on at this moment."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """`redis-server` on loopback, no persistence; `url` is its redis:// address (db 0)."""

    def __init__(self, executable: str = REDIS_SERVER or "redis-server") -> None:
        self.executable = executable
        self.port = 0
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, attempts: int = 5) -> RedisServer:
        """Start the server; another process may take the free port first, so try again."""
        for _ in range(attempts):
            self.port = free_port()
            self.process = subprocess.Popen(
                [
                    self.executable,
                    "--bind", "127.0.0.1",
                    "--port", str(self.port),
                    "--save", "",
                    "--appendonly", "no",
                    "--protected-mode", "yes",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )  # fmt: skip
            if self._wait_ready(timeout_s=10):
                return self
            self.stop()
        raise RuntimeError(f"redis-server did not start after {attempts} attempts")

    def _wait_ready(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False  # exited: most likely the port was taken
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return True
            except OSError:
                time.sleep(0.05)
        return False

    def flush(self) -> None:
        """Empty every database, so one test's rooms never meet the next test's."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
            s.sendall(b"FLUSHALL\r\n")
            s.recv(16)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
