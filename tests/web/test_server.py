"""`python -m app` is a production server: bounded threads and connections, timeouts, a drain.

Each test starts the real server as a process (tests/web/wire.py), with small limits set through
the environment, and checks what a client or an operator would see: status lines and messages,
connections closed by the server, the serving process's thread count (/proc), the events a
running stream delivers when the server is told to stop, and the exit code.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import time

import pytest

from app.web.server import SILENT_PER_ADDRESS
from tests.web.test_websocket import Recorder
from tests.web.wire import CLOSE, ProductionServer, WebSocket, wait_until

pytestmark = pytest.mark.server

RING8 = {"collective": "allreduce", "algorithm": "ring", "ranks": 8, "elements": 64}
STEPS = 14  # ring allreduce on 8 ranks: 2(p-1)
KEY = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
WS = "GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: 127.0.0.1\r\n"
MALFORMED_UPGRADES = {
    "no key, no version": WS + "Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
    "version 8": WS
    + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
    + KEY
    + "Sec-WebSocket-Version: 8\r\n\r\n",
    "no Connection: Upgrade": WS
    + "Upgrade: websocket\r\n"
    + KEY
    + "Sec-WebSocket-Version: 13\r\n\r\n",
    "HTTP/1.0": WS.replace("HTTP/1.1", "HTTP/1.0") + "Upgrade: websocket\r\n"
    "Connection: Upgrade\r\n" + KEY + "Sec-WebSocket-Version: 13\r\n\r\n",
    "unknown session": WS.replace("websocket ", "websocket&sid=nope ")
    + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
    + KEY
    + "Sec-WebSocket-Version: 13\r\n\r\n",
    "upgrade to h2c": WS + "Upgrade: h2c\r\nConnection: Upgrade\r\n\r\n",
    "POST": WS.replace("GET", "POST")
    + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
    + KEY
    + "Sec-WebSocket-Version: 13\r\nContent-Length: 0\r\n\r\n",
}


def status_of(port: int, request: str) -> bytes:
    """Send a raw request and return the response's status line."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request.encode())
        head = b""
        while b"\r\n" not in head:
            chunk = sock.recv(1024)
            if not chunk:
                break
            head += chunk
    return head.split(b"\r\n", 1)[0]


def closed_by_server(sock: socket.socket) -> bool:
    """Say whether the server has closed `sock` (without waiting)."""
    sock.setblocking(False)
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:  # reset
        return True


def polling_handshake(port: int) -> tuple[int, str]:
    """Open an engine.io long-polling session; return the status and the body."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/socket.io/?EIO=4&transport=polling")
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


def test_the_server_serves_pages_and_a_full_run_over_a_websocket():
    with ProductionServer() as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", "/lab")
        response = conn.getresponse()
        response.read()
        conn.close()
        assert response.status == 200
        assert response.headers.get_all("Server") == ["Collective Lab"]
        run, _ = stream(server.url, {**RING8, "interval_ms": 0})
        try:
            assert run.ended.wait(20), names(run)
            # The client runs each handler on a thread of its own: the record may lag the wire.
            wait_until(lambda: len(run.events) >= STEPS + 2, 5, "events still missing")
        finally:
            run.client.disconnect()
        assert sorted(names(run)) == ["sim_done", "sim_start"] + ["sim_step"] * STEPS
        assert dict(run.events)["sim_done"]["verified"] is True
        assert "Traceback" not in server.output()


def test_malformed_websocket_upgrades_get_a_400_and_no_traceback():
    with ProductionServer() as server:
        statuses = {name: status_of(server.port, req) for name, req in MALFORMED_UPGRADES.items()}
        bad = {name: status for name, status in statuses.items() if b" 400 " not in status + b" "}
        assert not bad, f"not answered 400: {bad}"
        assert status_of(server.port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").endswith(
            b"200 OK"
        )
        assert "Traceback" not in server.output(), server.output()


def test_connections_past_the_cap_are_refused_with_503_and_a_message():
    settings = {"MAX_CONNECTIONS": 3, "SOCKET_PING_INTERVAL_S": 1, "SOCKET_PING_TIMEOUT_S": 1}
    with ProductionServer(settings) as server, contextlib.ExitStack() as admitted:
        for _ in range(2):
            admitted.enter_context(WebSocket(server.port)).join()
        status, body = polling_handshake(server.port)  # the third: a long-polling session
        assert status == 200 and body.startswith("0{"), (status, body)

        with WebSocket(server.port) as refused:
            assert refused.head.startswith("HTTP/1.1 503"), refused.head
            assert "Retry-After: 5" in refused.head
            error = json.loads(refused.refusal())["error"]
        assert error == "server full: 3 connections are open (MAX_CONNECTIONS); retry in 5 s"
        status, body = polling_handshake(server.port)
        assert status == 503 and "server full" in body, (status, body)

        # The long-polling session is abandoned: it answers no ping, so its slot comes back.
        wait_until(
            lambda: polling_handshake(server.port)[0] == 200,
            30,
            "an abandoned long-polling session still held its slot",
            every=0.5,
        )


def test_one_address_may_hold_only_its_share_of_connections_unless_it_is_a_class():
    settings = {"MAX_CONNECTIONS_PER_ADDRESS": 2}
    with ProductionServer(settings) as server, contextlib.ExitStack() as admitted:
        admitted.enter_context(WebSocket(server.port)).join()
        status, body = polling_handshake(server.port)  # the second: a long-polling session
        assert status == 200 and body.startswith("0{"), (status, body)
        with WebSocket(server.port) as refused:
            assert refused.head.startswith("HTTP/1.1 429"), refused.head
            assert "Retry-After: 5" in refused.head
            error = json.loads(refused.refusal())["error"]
        assert error == (
            "too many connections from your address: at most 2 may be open at once "
            "(MAX_CONNECTIONS_PER_ADDRESS); close a tab or retry in 5 s"
        )
        healthz = status_of(server.port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert healthz.endswith(b"200 OK"), "the cap is on connections, not on requests"

    settings = {"MAX_CONNECTIONS_PER_ADDRESS": 2, "CLASS_NETWORKS": "127.0.0.0/8"}
    with ProductionServer(settings) as server, contextlib.ExitStack() as admitted:
        for _ in range(4):  # a classroom behind one address: only MAX_CONNECTIONS applies
            admitted.enter_context(WebSocket(server.port)).join()


def test_sessions_opened_and_closed_in_a_loop_leave_no_thread_and_no_slot_behind():
    with ProductionServer({"MAX_CONNECTIONS": 20}) as server:
        before = server.threads()
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        statuses = []
        try:
            for _ in range(200):  # ten times the cap
                conn.request("GET", "/socket.io/?EIO=4&transport=polling")
                response = conn.getresponse()
                body = response.read().decode()
                statuses.append(response.status)
                if response.status != 200:
                    break
                sid = json.loads(body[1:])["sid"]
                conn.request("POST", f"/socket.io/?EIO=4&transport=polling&sid={sid}", body="1")
                conn.getresponse().read()  # engine.io's close packet
        finally:
            conn.close()
        assert statuses == [200] * 200, f"refused after {len(statuses) - 1}: {body}"
        # A closed session's threads end a moment later (later still on a loaded machine).
        wait_until(
            lambda: server.threads() <= before + 4,
            30,
            f"threads after 200 closed sessions stayed above {before} + 4 ({before} before)",
            every=0.2,
        )


def test_a_client_that_stops_answering_pings_is_disconnected():
    settings = {"SOCKET_PING_INTERVAL_S": 1, "SOCKET_PING_TIMEOUT_S": 1}
    with ProductionServer(settings) as server, WebSocket(server.port) as ws:
        ws.join()
        ws.sock.settimeout(30)
        pings = 0
        try:
            while True:  # answer nothing, as a client that went away without a FIN
                opcode, data = ws.read_frame()
                pings += data == b"2"
                if opcode == CLOSE:
                    break
        except TimeoutError:
            pytest.fail("the server kept a client that answered no ping for 30 s")
        except ConnectionError:
            pass  # the server closed the socket
        assert pings >= 1


def connections(stack: contextlib.ExitStack, port: int, n: int, send: bytes = b"") -> list:
    """Open `n` TCP connections (closed with `stack`), each sending `send` if anything."""
    socks = [stack.enter_context(socket.create_connection(("127.0.0.1", port))) for _ in range(n)]
    for sock in socks:
        if send:
            sock.sendall(send)
    return socks


def test_silent_and_stalled_connections_are_closed_after_the_idle_timeout():
    with ProductionServer({"SERVER_IDLE_TIMEOUT_S": 1}) as server:
        with contextlib.ExitStack() as stack:
            silent = connections(stack, server.port, 20)
            # Half a request: a slow client, or a slowloris.
            stalled = connections(stack, server.port, 5, b"GET /lab HTTP/1.1\r\nHost: x\r\n")
            wait_until(
                lambda: all(closed_by_server(s) for s in silent + stalled),
                30,
                "the server kept connections that sent nothing for its idle timeout (1 s)",
            )
        healthz = status_of(server.port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert healthz.endswith(b"200 OK"), healthz
        assert "Traceback" not in server.output(), server.output()


def test_threads_stay_bounded_under_200_half_open_sockets():
    # Room for every socket below: what bounds the threads here is that a silent one has none.
    with ProductionServer({"MAX_CONNECTIONS": 300, "SERVER_HTTP_THREADS": 4}) as server:
        before = server.threads()
        with contextlib.ExitStack() as stack:
            connections(stack, server.port, 200)
            connections(stack, server.port, 20, b"GET /lab HTTP/1.1\r\n")
            time.sleep(1)  # let the server take them all in
            during = server.threads()
            healthz = status_of(server.port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert healthz.endswith(b"200 OK"), healthz
        assert during <= before + 20 + 4, (
            f"{during} threads with 200 silent and 20 stalled connections open ({before} "
            "before): a silent connection must hold no thread, a stalled one at most one"
        )


def test_a_flood_of_silent_connections_from_one_address_keeps_no_request_out():
    # Silent connections may stay a minute: a real request must get in all the same.
    with ProductionServer({"SERVER_IDLE_TIMEOUT_S": 60}) as server:
        with contextlib.ExitStack() as stack:
            connections(stack, server.port, 1000)
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
            try:
                conn.request("GET", "/healthz")
                status = conn.getresponse().status
            finally:
                conn.close()
            files = len(os.listdir(f"/proc/{server.serving_pid}/fd"))
    assert status == 200
    assert files <= SILENT_PER_ADDRESS + 64, f"{files} open files for 1,000 silent connections"


def stream(url: str, params: dict) -> tuple[Recorder, str]:
    """Connect a recording client and start a run; return the client and the run's id."""
    run = Recorder()
    run.client.connect(url, transports=["websocket"], wait_timeout=10)
    ack = run.client.call("simulate", params, timeout=10)
    assert ack["ok"] is True, ack
    return run, ack["run_id"]


def names(run: Recorder) -> list[str]:
    return [name for name, _ in run.events]


def stop_mid_run(settings: dict, interval_ms: int, stop) -> tuple[Recorder, str, int, str]:
    """Start a run, `stop(server)` after its first step; return what the client got."""
    with ProductionServer(settings) as server:
        run, run_id = stream(server.url, {**RING8, "interval_ms": interval_ms})
        try:
            wait_until(lambda: "sim_step" in names(run), 10, "the run did not start")
            stop(server)
            assert run.ended.wait(30), names(run)
        finally:
            run.client.disconnect()
        code = server.process.wait(30)
        return run, run_id, code, server.output()


def sigterm(server: ProductionServer) -> None:
    server.process.send_signal(signal.SIGTERM)


def ctrl_c(server: ProductionServer) -> None:
    """What a terminal does on Ctrl-C: SIGINT to every process of the group."""
    os.killpg(server.process.pid, signal.SIGINT)


def test_sigterm_lets_a_running_stream_finish_then_exits_0():
    run, run_id, code, output = stop_mid_run({"SHUTDOWN_GRACE_S": 20}, 150, sigterm)  # 2 s
    assert code == 0, output
    assert names(run) == ["sim_start"] + ["sim_step"] * STEPS + ["sim_done"]
    assert {p["run_id"] for _, p in run.events} == {run_id}
    assert "Traceback" not in output


@pytest.mark.parametrize("stop", [sigterm, ctrl_c], ids=["SIGTERM after the grace", "Ctrl-C"])
def test_a_stream_still_running_ends_with_sim_error_and_the_server_exits_0(stop):
    run, run_id, code, output = stop_mid_run({"SHUTDOWN_GRACE_S": 1}, 5000, stop)  # 65 s
    assert code == 0, output
    assert run.events[-1] == ("sim_error", {"run_id": run_id, "error": "server shutting down"})
    assert "sim_done" not in names(run)
    assert output.count("stopped (1 running simulations cancelled)") == 1, output
    assert "Traceback" not in output and "SIGKILL" not in output, output


def test_a_bad_setting_stops_the_start_with_a_line_naming_it():
    """A typo in a setting once surfaced as a gunicorn worker's traceback."""
    import subprocess
    import sys

    from tests.redis_server import free_port

    env = {
        **os.environ,
        "COLLECTIVE_LAB_CLASS_NETWORKS": "10.0.0.0/33",
        "COLLECTIVE_LAB_CLASS_MAX_MEMBERS": "abc",
    }
    started = subprocess.run(
        [sys.executable, "-m", "app", "--port", str(free_port())],
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
        env=env, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert started.returncode == 78  # EX_CONFIG
    assert started.stderr.splitlines() == [
        "Collective Lab: setting COLLECTIVE_LAB_CLASS_MAX_MEMBERS must be a number >= 0, got 'abc'",
        "Collective Lab: setting COLLECTIVE_LAB_CLASS_NETWORKS must be CIDR networks separated "
        "by spaces or commas, such as '10.0.0.0/8 2001:db8::/32'; got '10.0.0.0/33'",
    ]
    assert "Collective Lab on" not in started.stdout  # it never served


def test_the_default_settings_have_no_problem():
    from app.web import settings
    from app.web.server import load_settings

    assert settings.problems(load_settings()) == []
    assert settings.problems({"MAX_CONTENT_LENGTH": -1}) == [
        "MAX_CONTENT_LENGTH must be a number >= 0, got -1"
    ]
    assert settings.problems({"MEASURE_ENABLED": 0}) == [
        "MEASURE_ENABLED must be true or false, got 0"
    ]
