"""What the benchmarks share: a server in its own process, its memory and CPU, an ordered client.

Every benchmark runs the server as a separate process on 127.0.0.1 (the machine has few cores,
and client and server must be measured apart), reads its memory and CPU from /proc, and stops
it with SIGINT, the way Ctrl-C would, so a traceback on shutdown shows in its log.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from socket import IPPROTO_TCP, TCP_NODELAY

import engineio
import socketio

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
CLK_TCK = os.sysconf("SC_CLK_TCK")
# Werkzeug logs one line per request; these are the lines that say something went wrong.
_PROBLEM = re.compile(r"Traceback|Exception|Error|CRITICAL")
_ACCESS = re.compile(r'^\S+ - - \[.*?\] (".*" \d{3}|code 400, message Bad request)')


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def percentile(values: Sequence[float], q: float) -> float:
    """Return the q-th percentile (0..100) of `values`, nearest-rank; NaN when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


class ServerProcess:
    """A server started as `python <args> --port <free port>` in the repository root.

    Use as a context manager: it waits until `ready_path` answers, and on exit sends SIGINT
    (Ctrl-C), then SIGTERM, then SIGKILL, each after a bounded wait.
    """

    def __init__(
        self,
        args: Sequence[str],
        ready_path: str = "/",
        timeout: float = 20,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.args = [sys.executable, *args, "--host", HOST, "--port", str(self.port)]
        self.ready_path = ready_path
        self.env = env or {}
        self.cwd = cwd or ROOT  # the code it serves: this checkout, or another (bench.hostile)
        self.timeout = timeout
        self.proc: subprocess.Popen | None = None
        self._log = tempfile.NamedTemporaryFile(prefix="bench-server-", suffix=".log", delete=False)
        self._text: str | None = None
        self._stop_mark = 0
        self.signal_used = ""
        self.exit_code: int | None = None
        self.stop_seconds: float | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def serving_pid(self) -> int:
        """The process that serves: gunicorn's worker under `python -m app`, else `pid`.

        `python -m app` is gunicorn's master, which only watches its worker: its memory, CPU
        and threads say nothing about the load.
        """
        children = f"/proc/{self.pid}/task/{self.pid}/children"
        with contextlib.suppress(OSError):
            with open(children) as f:
                pids = f.read().split()
            if pids:
                return int(pids[-1])
        return self.pid

    def __enter__(self) -> ServerProcess:
        env = dict(os.environ, PYTHONUNBUFFERED="1", **self.env)
        self.proc = subprocess.Popen(
            self.args, cwd=self.cwd, env=env, stdout=self._log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + self.timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log()}")
            try:
                with urllib.request.urlopen(self.url + self.ready_path, timeout=2) as r:
                    r.read()
                return self
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(
                        f"server not ready in {self.timeout} s:\n{self.log()}"
                    ) from None
                time.sleep(0.1)

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop the server: SIGINT (Ctrl-C), then SIGTERM, then SIGKILL; record how it ended."""
        if self.proc is None or self._text is not None:
            return
        self._stop_mark = self.log_lines()
        start = time.monotonic()
        for sig, wait in ((signal.SIGINT, 10), (signal.SIGTERM, 5), (signal.SIGKILL, 5)):
            if self.proc.poll() is not None:
                break
            self.signal_used = sig.name
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(wait)
        self.exit_code = self.proc.returncode
        self.stop_seconds = time.monotonic() - start
        self._text = self.log()
        self._log.close()
        Path(self._log.name).unlink(missing_ok=True)

    def shutdown(self) -> str:
        """Describe how the server stopped: signal, exit code, time, errors it printed."""
        if self.exit_code is None:
            return "server still running"
        problems = self.problems(self._stop_mark)
        return (
            f"server stopped by {self.signal_used} in {self.stop_seconds:.1f} s, exit code "
            f"{self.exit_code}, {len(problems)} error lines while stopping"
            + (f" (first: {problems[0][:120]})" if problems else "")
        )

    def log(self) -> str:
        """Return everything the server printed so far."""
        if self._text is not None:
            return self._text
        self._log.flush()
        return Path(self._log.name).read_text(errors="replace")

    def problems(self, since: int = 0) -> list[str]:
        """Return the log lines after line `since` that report an error (not access lines)."""
        return [
            line
            for line in self.log().splitlines()[since:]
            if _PROBLEM.search(line) and not _ACCESS.search(line)
        ]

    def log_bytes(self) -> int:
        """Return how many bytes the server has printed so far (a measure of log floods)."""
        if self._text is not None:
            return len(self._text.encode())
        self._log.flush()
        return os.path.getsize(self._log.name)

    def log_lines(self) -> int:
        """Return how many lines the server has printed (a mark for `problems`)."""
        return len(self.log().splitlines())

    def status(self) -> dict[str, int]:
        """Return VmRSS, VmHWM (kB) and Threads from /proc/<pid>/status."""
        out = {}
        with open(f"/proc/{self.serving_pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM", "Threads"):
                    out[key] = int(value.split()[0])
        return out

    def rss_mb(self) -> float:
        return self.status()["VmRSS"] / 1024

    def hwm_mb(self) -> float:
        return self.status()["VmHWM"] / 1024

    def threads(self) -> int:
        return self.status()["Threads"]

    def reset_peak(self) -> bool:
        """Reset VmHWM to the current RSS (Linux clear_refs 5); say if the kernel allowed it."""
        try:
            with open(f"/proc/{self.serving_pid}/clear_refs", "w") as f:
                f.write("5")
            return True
        except OSError:
            return False

    def cpu_seconds(self) -> float:
        """Return the server's user + system CPU time so far, in seconds."""
        with open(f"/proc/{self.serving_pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK


def no_delay(wsgi_app: Callable) -> Callable:
    """Wrap a bare server's `wsgi_app` so Socket.IO sockets send small frames at once, as the app's.

    With Nagle's algorithm on, a small write waits for the client's delayed ACK (40 ms on
    Linux); the app turns it off (app/web/live/sockets.py), so the bare servers do too.
    """

    def app(environ: dict, start_response: Callable):
        sock = environ.get("werkzeug.socket")
        if sock is not None and environ.get("PATH_INFO", "").startswith("/socket.io"):
            with contextlib.suppress(OSError):
                sock.setsockopt(IPPROTO_TCP, TCP_NODELAY, 1)
        return wsgi_app(environ, start_response)

    return app


def app_server(env: dict[str, str] | None = None, cwd: Path | None = None) -> ServerProcess:
    """The Collective Lab app, exactly as `python -m app` serves it (from `cwd`'s code)."""
    return ServerProcess(["-m", "app"], ready_path="/healthz", env=env, cwd=cwd)


def process_tree(pid: int) -> list[int]:
    """Return `pid` and every process descended from it (a server's forked workers)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        children.setdefault(ppid, []).append(int(entry.name))
    tree, todo = [], [pid]
    while todo:
        p = todo.pop()
        tree.append(p)
        todo.extend(children.get(p, ()))
    return tree


def tree_status(pids: Sequence[int]) -> dict[str, int]:
    """Sum VmRSS and VmHWM (kB), Threads and open file descriptors over `pids`.

    A process that has exited meanwhile counts as nothing; "processes" says how many answered.
    """
    total = {"VmRSS": 0, "VmHWM": 0, "Threads": 0, "fds": 0, "processes": 0}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    key, _, value = line.partition(":")
                    if key in ("VmRSS", "VmHWM", "Threads"):
                        total[key] += int(value.split()[0])
            total["fds"] += len(os.listdir(f"/proc/{pid}/fd"))
            total["processes"] += 1
        except (OSError, ValueError):
            continue
    return total


def loadavg(values: Sequence[float] | None = None) -> str:
    """Format a load average (`values`, or the machine's now) as "1.00 0.50 0.25"."""
    try:
        return " ".join(f"{x:.2f}" for x in (os.getloadavg() if values is None else values))
    except OSError:
        return "n/a"


def machine_busy_seconds() -> float:
    """Return the CPU time every process on the machine has used (all cores, not idle/iowait)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / CLK_TCK


def own_cpu_seconds() -> float:
    """Return this process's user + system CPU time so far (all threads), in seconds."""
    t = os.times()
    return t.user + t.system


class _InlineEngineIO(engineio.Client):
    """An Engine.IO client that handles each message on its read thread, in arrival order.

    The stock client starts a new thread per message, so two events that arrived in order
    can reach their handlers out of order, and each message costs a thread start; neither is
    the server's doing. Handlers must therefore not block (never `call` from a handler).
    """

    def _trigger_event(self, event, *args, **kwargs):
        if event == "message":
            kwargs["run_async"] = False
        return super()._trigger_event(event, *args, **kwargs)


class OrderedClient(socketio.Client):
    """A python-socketio client whose handlers see events in the order the server sent them.

    It is also made lean, so that the benchmarks measure the server rather than the client on
    a machine they share: without the optional `wsaccel`, websocket-client checks the UTF-8 of
    every text frame in pure Python (three quarters of the client's CPU on 20 kB frames), and
    Engine.IO's JSON wraps every integer in a Python length check.
    """

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("json", json)
        kwargs.setdefault("websocket_extra_options", {"skip_utf8_validation": True})
        super().__init__(**kwargs)

    def _engineio_client_class(self):
        return _InlineEngineIO
