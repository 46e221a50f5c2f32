"""Ctrl-C stops `python -m app` cleanly: runs cancelled, exit code 0, no traceback."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time

import pytest
import socketio


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    pytest.fail(f"the server did not listen on port {port} within {timeout}s")


@pytest.mark.server
def test_ctrl_c_mid_run_cancels_it_and_exits_without_a_traceback():
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal has it
    )
    try:
        wait_for_port(port)
        # A fresh process answers its first connection after its imports (1.2 s on a quiet
        # machine): the client's default one-second wait for the namespace, and the websocket's
        # own 5 s handshake timeout, both ran out under a full parallel run on CI's two cores.
        client = socketio.Client(request_timeout=30)
        client.connect(f"http://127.0.0.1:{port}", transports=["websocket"], wait_timeout=10)
        ack = client.call(
            "simulate",
            {
                "collective": "allreduce",
                "algorithm": "ring",
                "ranks": 8,
                "elements": 64,
                "interval_ms": 2000,
            },
        )
        assert ack["ok"] is True
        time.sleep(0.3)
        server.send_signal(signal.SIGINT)
        output, _ = server.communicate(timeout=15)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=10)  # reaped here, not reported as a leak in the next test
    assert server.returncode == 0, output
    assert "Traceback" not in output
    assert "stopped (1 running simulations cancelled)" in output
