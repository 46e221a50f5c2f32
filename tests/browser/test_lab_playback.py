"""The lab's playback in real Chromium: a dropped connection, the playback rate, the End key.

- A server that goes away mid-stream and comes back on the same port: the page says the
  connection was lost, re-requests the same run on reconnect (runs are deterministic), keeps
  the user on the step they were on, says so, and completes the run, also when the server
  that comes back refuses WebSockets and the client must reconnect by long-polling.
- At 64 ranks and 8×, the steps advance at 8 per second, measured on the page's own clock.
- The embed does the same: a run a restart cut off is requested again, and the viewer stays.
- End jumps to the last received step.
"""

from __future__ import annotations

import json
import re
import socket
import threading

import pytest
from playwright.sync_api import Error as PlaywrightError
from werkzeug.serving import make_server

from app import create_app
from bench.page import measure_playback
from tests.conftest import TEST_CONFIG

pytestmark = pytest.mark.browser

COUNTER = '.player [data-role="counter"]'
BADGE = '.player [data-role="badge"]'
NOTICE = '.player [data-role="notice"]'
LAB_TEXT = "document.querySelector('.lab').textContent"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RestartableServer:
    """The app on a fixed port, which can be stopped like a crashed process and started again.

    Stopping closes the listening socket and every accepted connection, as the operating
    system does when a server process dies; starting serves a fresh app on the same port.
    """

    def __init__(self, port: int) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self._server = None
        self._thread = None
        self._connections: list[socket.socket] = []

    def start(self, websocket: bool = True) -> RestartableServer:
        """Serve; `websocket=False` refuses WebSocket upgrades, as some proxies do."""
        app = create_app(TEST_CONFIG)
        if not websocket:
            app.wsgi_app = refuse_websocket(app.wsgi_app)
        server = make_server("127.0.0.1", self.port, app, threaded=True)
        accept = server.get_request

        def get_request():
            conn, addr = accept()
            self._connections.append(conn)
            return conn, addr

        server.get_request = get_request
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        for conn in self._connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed by its handler
            conn.close()
        self._connections.clear()
        self._thread.join(timeout=5)


def refuse_websocket(wsgi_app):
    def app(environ, start_response):
        if "transport=websocket" in environ.get("QUERY_STRING", ""):
            start_response("400 Bad Request", [("Content-Type", "text/plain")])
            return [b"no WebSocket here"]
        return wsgi_app(environ, start_response)

    return app


@pytest.fixture
def restartable_server():
    server = RestartableServer(free_port()).start()
    yield server
    if server._server is not None:
        server.stop()


class SlowStreams:
    """Make every `simulate` the page sends stream at `interval_ms` between steps, and watch.

    The lab always asks for interval 0; a slow stream leaves time to stop the server half-way.
    `simulates` lists the simulate packets the page sent; `steps` counts the sim_step packets
    the server sent it for its latest simulate (the page may process them later when it is
    busy). Both Socket.IO transports are watched: the client tries WebSocket first and falls
    back to HTTP long-polling when a (re)connection over WebSocket fails, which a loaded machine
    makes likely right after a restart.
    """

    def __init__(self, page, interval_ms: int) -> None:
        self.interval_ms = interval_ms
        self.simulates: list[str] = []
        self.steps = 0
        self._ack_id = None  # of the latest simulate
        self._run_id = None  # that simulate's run
        page.route_web_socket(re.compile(r"/socket\.io/"), self._route_websocket)
        page.route(re.compile(r"/socket\.io/\?.*transport=polling"), self._route_polling)

    def _to_server(self, packet: str) -> str:
        sent = re.match(r'42(\d+)\["simulate",', packet)
        if sent:
            packet = packet.replace('"interval_ms":0', f'"interval_ms":{self.interval_ms}')
            self.simulates.append(packet)
            self._ack_id, self._run_id, self.steps = sent[1], None, 0
        return packet

    def _to_page(self, packet: str) -> None:
        ack = re.match(r"43(\d+)(\[.*)", packet, re.S)
        if ack and ack[1] == self._ack_id:
            self._run_id = json.loads(ack[2])[0].get("run_id")
        elif packet.startswith('42["sim_step",'):
            step = json.loads(packet[2:])[1]
            if self._run_id is not None and step["run_id"] == self._run_id:
                self.steps += 1

    def _route_websocket(self, ws) -> None:
        server = ws.connect_to_server()

        def to_server(message) -> None:
            server.send(self._to_server(message) if isinstance(message, str) else message)

        def to_page(message) -> None:
            if isinstance(message, str):
                self._to_page(message)
            ws.send(message)

        ws.on_message(to_server)
        server.on_message(to_page)

    def _route_polling(self, route) -> None:
        """A polling payload holds packets separated by the record separator U+001E."""
        request = route.request
        if request.method == "POST":
            packets = (request.post_data or "").split("\x1e")
            route.continue_(post_data="\x1e".join(self._to_server(p) for p in packets))
            return
        try:
            response = route.fetch(timeout=0)
        except PlaywrightError:  # the server went away during a long poll
            route.abort()
            return
        for packet in response.text().split("\x1e"):
            self._to_page(packet)
        route.fulfill(response=response)


EXPECTED_ERRORS = (
    "ERR_CONNECTION_REFUSED",  # reconnection attempts while the server is down
    "ERR_FAILED",  # a long poll SlowStreams aborted because the server went away
    "Unexpected response code: 400",  # the restarted server refusing the WebSocket upgrade
)


def unexpected(console_errors: list[str]) -> list[str]:
    """Return the console errors that a server going away and back does not explain."""
    return [e for e in console_errors if not any(x in e for x in EXPECTED_ERRORS)]


def received(page) -> tuple[int, int]:
    """Return (steps received, total) from the badge while the run streams."""
    text = page.locator(BADGE).inner_text()
    m = re.match(r"receiving… (\d+) of (\d+) steps", text)
    assert m, f"the run was expected to be streaming; the badge says {text!r}"
    return int(m[1]), int(m[2])


def test_a_run_cut_by_a_server_restart_is_requested_again_and_completes(restartable_server, page):
    srv = restartable_server
    streams = SlowStreams(page, 250)
    simulates = streams.simulates
    page.goto(f"{srv.url}/lab?collective=allreduce&algorithm=ring&ranks=16&speed=8")
    page.wait_for_function("() => document.documentElement.dataset.socket === 'connected'")
    while len(simulates) < page.evaluate("window.labMetrics.simulateEmits"):
        page.wait_for_timeout(20)  # the frames of a run on load reach the route a little later
    simulates.clear()  # count from Run
    page.click("#run")
    while streams.steps < 3:  # stop the server once it has sent three steps of Run's run
        page.wait_for_timeout(20)
    srv.stop()
    page.wait_for_function("() => document.documentElement.dataset.socket === 'disconnected'")
    page.wait_for_function(
        "() => /^receiving… ([3-9]|\\d\\d) of 30/.test("
        "document.querySelector('.player [data-role=badge]').textContent)"
    )
    got, total = received(page)
    assert got < total, "the server must go away before the run has streamed"
    page.wait_for_function(f"() => {LAB_TEXT}.includes('reconnecting')")  # says so
    page.keyboard.press("Home")  # pause, back to the start, then step to 2
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.locator(COUNTER).inner_text() == "step 2 of 30"

    srv.start(websocket=False)  # the client must fall back to long-polling to reconnect
    page.wait_for_function(f"() => {LAB_TEXT}.includes('re-requested')", timeout=30_000)
    assert page.locator(COUNTER).inner_text() == "step 2 of 30", "the user stays where they were"
    assert page.locator(NOTICE).is_visible()
    page.wait_for_function(
        f"() => document.querySelector('{BADGE}').textContent "
        "=== 'checked against numpy at the end'",
        timeout=30_000,
    )
    assert page.locator(COUNTER).inner_text() == "step 2 of 30"
    assert len(simulates) == 2
    assert simulates[0].split('["simulate",', 1)[1] == simulates[1].split('["simulate",', 1)[1]

    page.keyboard.press(" ")  # play the rest of the completed run
    page.wait_for_function(
        f"() => document.querySelector('{BADGE}').dataset.state === 'ok'", timeout=30_000
    )
    assert page.locator(COUNTER).inner_text() == "step 30 of 30"
    assert page.locator(BADGE).inner_text() == "✓ result verified against numpy"
    assert unexpected(page.console_errors) == []


def test_an_embed_resumes_a_run_a_server_restart_cut_off(restartable_server, page):
    srv = restartable_server
    streams = SlowStreams(page, 250)
    page.goto(f"{srv.url}/embed/allreduce/ring?ranks=16&autoplay=0")
    while streams.steps < 3:  # the embed asks for its run at once; stop after three steps
        page.wait_for_timeout(20)
    srv.stop()
    page.wait_for_function(
        f"() => document.querySelector('{NOTICE}').textContent.includes('reconnecting')"
    )
    got, total = received(page)
    assert got < total, "the server must go away before the run has streamed"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.locator(COUNTER).inner_text() == "step 2 of 30"

    srv.start()
    page.wait_for_function(
        f"() => document.querySelector('{NOTICE}').textContent.includes('re-requested')",
        timeout=30_000,
    )
    page.wait_for_function(
        f"() => document.querySelector('{BADGE}').textContent "
        "=== 'checked against numpy at the end'",
        timeout=30_000,
    )
    assert page.locator(COUNTER).inner_text() == "step 2 of 30", "the viewer stays where it was"
    assert len(streams.simulates) == 2
    first, again = (m.split('["simulate",', 1)[1] for m in streams.simulates)
    assert first == again
    assert unexpected(page.console_errors) == []


def test_playback_at_64_ranks_and_8x_advances_8_steps_a_second(live_server, page):
    """The rate is the slope of step against the page's own clock (bench/page.py measures it)."""
    r = measure_playback(page, live_server.url, ranks=64, speed=8, steps=48)
    print(f"\n64 ranks at 8x: {r['rate']:.2f} steps/s over {r['updates']} counter updates")
    assert 0.9 <= r["rate"] / 8 <= 1.1, f"8x played at {r['rate']:.2f} steps/s"
    assert r["ordered"], "the counter only moves forward while playing"
    assert page.console_errors == []


def test_end_jumps_to_the_last_received_step(live_server, page):
    page.goto(f"{live_server.url}/lab?collective=allreduce&algorithm=ring&ranks=4&speed=0.25")
    page.wait_for_function("() => document.documentElement.dataset.socket === 'connected'")
    page.click("#run")
    page.wait_for_function(
        f"() => document.querySelector('{BADGE}').textContent === "
        "'checked against numpy at the end'"
    )
    page.keyboard.press("End")
    assert page.locator(COUNTER).inner_text() == "step 6 of 6"
    assert page.locator(BADGE).inner_text() == "✓ result verified against numpy"
    assert page.locator('.player [data-role="play"]').get_attribute("aria-pressed") == "false"
    page.keyboard.press("Home")
    assert page.locator(COUNTER).inner_text() == "step 0 of 6"
    assert "End" in page.locator(".keys").inner_text()
    assert page.console_errors == []
