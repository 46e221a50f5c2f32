"""Property-based fuzzing of the lab's Socket.IO handlers: bad input is refused by name.

Flask-SocketIO's test client sends `simulate`, `cancel` and made-up events with payloads of
every JSON shape (wrong types, NaN and Infinity, negatives, unicode with surrogates and
right-to-left marks, nesting, extra positional arguments). Every ack must be
`{"ok": false, "error": ...}` naming the offending field (or the parameters as a whole), or a
real `{"ok": true, ...}`; every stream a valid payload started must end without an unexpected
error; and afterwards the same connection runs ring allreduce on 8 ranks: 14 steps, verified.
It also connects with random handshake languages (`lang`): refused by name unless spoken.

Over a real websocket to the live server (python-socketio's client, and raw Socket.IO frames
for what a JSON encoder would not write): payloads near and over MAX_SOCKET_MESSAGE_BYTES,
JSON literals the test client cannot send (10**400, 5,000-level nesting), and malformed
packets. The server may close a connection that breaks the protocol or the size limit, but it
must keep serving the next client.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from pathlib import Path
from urllib.parse import quote

import pytest
import socketio
import websocket
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app import create_app
from app.collectives import simulate
from app.collectives.narration import narrate
from app.web import params
from app.web.extensions import socketio as flask_socketio
from app.web.live import language, measure, sockets
from tests.conftest import TEST_CONFIG

ROOT = Path(__file__).resolve().parents[2]
CONFIG = {**TEST_CONFIG, "SIMULATE_RATE_PER_S": 1e6, "SIMULATE_BURST": 1_000_000}
MAX_MESSAGE = create_app(TEST_CONFIG).config["MAX_SOCKET_MESSAGE_BYTES"]
RING8 = {"collective": "allreduce", "algorithm": "ring", "ranks": 8, "elements": 64}
LAB_EVENTS = {"sim_start", "sim_step", "sim_done", "sim_error"}
UNEXPECTED = "failed unexpectedly"  # sim_error's words for an exception the engine did not mean
LEAKS = ("Traceback (most recent call last)", 'File "/', "site-packages", str(ROOT))
JUNK = "zzjunk"
SETTINGS = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# -- strategies -----------------------------------------------------------------------------------

ALL_CHARS = st.characters(exclude_categories=())  # surrogates, controls, RTL marks included
# engine.io refuses integers of more than 100 digits before any handler sees them; the test
# client would raise, so those go over the wire below (test_json_the_encoder_would_not_write).
INTS = st.one_of(
    st.integers(),
    st.integers(-(10**98), 10**98),
    st.sampled_from([2**63, -(2**63) - 1, 2**64, 10**99, -1, 0, 64, 65, 4096, 262144]),
)
TEXT = st.one_of(
    st.sampled_from(
        [
            "",
            "8",
            "8.0",
            "NaN",
            "allreduce",
            "ring",
            "\u202eevil",
            "\u200f\u05e9\u05dc\u05d5\u05dd",
            "\ud800",
            "\x00",
            "a" * 10_000,
            "<script>window.__pwned=1</script>",
        ]
    ),
    st.text(ALL_CHARS, max_size=20),
)
SCALARS = st.one_of(
    st.none(), st.booleans(), INTS, st.floats(allow_nan=True, allow_infinity=True), TEXT
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(TEXT, children, max_size=4)
    ),
    max_leaves=10,
)
KEYS = st.one_of(st.sampled_from(params.FIELDS), st.text(ALL_CHARS, max_size=8).map(JUNK.__add__))


@st.composite
def arguments(draw, base: dict, keys=KEYS) -> tuple:
    """Draw an event's positional arguments: none, one of any shape, or several."""
    kind = draw(st.sampled_from(["none", "any", "object", "mutated", "mutated", "extra"]))
    if kind == "none":
        return ()
    if kind == "any":
        return (draw(JSON_VALUES),)
    if kind == "object":
        return (draw(st.dictionaries(keys, JSON_VALUES, max_size=6)),)
    payload = dict(base)
    for key in draw(st.lists(keys, min_size=1, max_size=2)):
        payload[key] = draw(st.one_of(SCALARS, JSON_VALUES))
    if kind == "mutated":
        return (payload,)
    return (payload, *draw(st.lists(JSON_VALUES, min_size=1, max_size=3)))


# -- checks ---------------------------------------------------------------------------------------


def names_a_field(message: str, names) -> bool:
    if JUNK in message:
        return True
    return any(re.search(rf"(?<![A-Za-z_]){re.escape(n)}(?![A-Za-z_])", message) for n in names)


def shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 200 else f"{text[:200]}... ({len(text)} chars)"


def check_simulate_ack(ack: object, args: tuple) -> None:
    what = f"simulate{shown(args)}"
    assert isinstance(ack, dict), f"{what} was acked {ack!r}"
    assert ack.get("ok") in (True, False), f"{what} was acked {ack!r}"
    if ack["ok"]:
        assert re.fullmatch(r"[0-9a-f]{16}", ack.get("run_id", "")), f"{what} -> {ack!r}"
        return
    error = ack.get("error")
    assert isinstance(error, str) and error, f"{what} was acked {ack!r}"
    for leak in LEAKS:
        assert leak not in error, f"{what} leaks {leak!r}: {error}"
    assert names_a_field(error, (*params.FIELDS, "parameters")), (
        f"{what}: the error names no field: {error!r}"
    )


def check_events(events: list[dict]) -> None:
    for event in events:
        assert event["name"] in LAB_EVENTS, f"unexpected event {event['name']!r}"
        if event["name"] == "sim_error":
            error = event["args"][0]["error"]
            assert UNEXPECTED not in error, f"a run failed unexpectedly: {error}"
            for leak in LEAKS:
                assert leak not in error, f"sim_error leaks {leak!r}: {error}"


# -- the test client ------------------------------------------------------------------------------


class Lab:
    """A fresh app and a Socket.IO test client connected to it."""

    def __init__(self) -> None:
        self.app = create_app(CONFIG)
        self.client = flask_socketio.test_client(self.app)
        self.runs = self.app.extensions["lab_runs"]
        self.events: list[dict] = []

    def emit(self, event: str, *args):
        return self.client.emit(event, *args, callback=True)

    def drain(self) -> list[dict]:
        new = self.client.get_received()
        self.events.extend(new)
        return new

    def settle(self, timeout_s: float = 20) -> None:
        """Cancel the current run and wait until no run's task is left."""
        self.emit("cancel")
        deadline = time.monotonic() + timeout_s
        while self.runs.running() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not self.runs.running(), f"runs still going: {self.runs.running()}"
        self.drain()

    def normal_run(self, timeout_s: float = 20) -> None:
        """Run ring allreduce on 8 ranks and check its 14 steps and the verdict."""
        self.settle()
        ack = self.emit("simulate", RING8)
        assert ack["ok"] is True, ack
        deadline = time.monotonic() + timeout_s
        mine: list[dict] = []
        while time.monotonic() < deadline:
            mine += [e for e in self.drain() if e["args"][0].get("run_id") == ack["run_id"]]
            if mine and mine[-1]["name"] in ("sim_done", "sim_error"):
                break
            time.sleep(0.005)
        names = [e["name"] for e in mine]
        assert names == ["sim_start"] + ["sim_step"] * 14 + ["sim_done"], names
        steps = [e["args"][0]["index"] for e in mine if e["name"] == "sim_step"]
        assert steps == list(range(14))
        assert mine[-1]["args"][0]["verified"] is True

    def close(self) -> None:
        if self.client.is_connected():
            self.client.disconnect()
        deadline = time.monotonic() + 10
        while self.runs.running() and time.monotonic() < deadline:
            time.sleep(0.01)


@pytest.fixture
def lab():
    lab = Lab()
    yield lab
    lab.close()


def test_random_simulate_payloads_are_refused_by_name_then_a_normal_run_works(lab):
    lab.normal_run()
    sent = []

    @SETTINGS
    @given(args=arguments(RING8))
    def fuzz(args):
        sent.append(args)
        check_simulate_ack(lab.emit("simulate", *args), args)
        lab.drain()

    fuzz()
    assert len(sent) >= SETTINGS.max_examples
    assert lab.client.is_connected()
    lab.settle()
    check_events(lab.events)
    lab.normal_run()


def test_random_cancel_payloads_get_an_ack_naming_run_id(lab):
    @SETTINGS
    @given(args=arguments({"run_id": "0123456789abcdef"}), running=st.booleans())
    def fuzz(args, running):
        if running:
            assert lab.emit("simulate", {**RING8, "interval_ms": 1000})["ok"] is True
        ack = lab.emit("cancel", *args)
        what = f"cancel{shown(args)}"
        assert isinstance(ack, dict) and ack.get("ok") in (True, False), f"{what} -> {ack!r}"
        if ack["ok"]:
            assert isinstance(ack["cancelled"], bool), f"{what} -> {ack!r}"
        else:
            assert "run_id" in ack["error"], f"{what}: the error names no field: {ack!r}"

    fuzz()
    assert lab.client.is_connected()
    lab.settle()
    check_events(lab.events)
    lab.normal_run()


def check_unknown_event_ack(event: str, ack: object) -> None:
    """Assert `ack` is an error naming the unknown event (shortened if long) and the known ones."""
    assert isinstance(ack, dict) and ack.get("ok") is False, f"{event!r} was acked {ack!r}"
    assert set(ack) == {"ok", "error"}, f"{event!r} was acked {ack!r}"
    error = ack["error"]
    if len(event) <= 20:
        assert error == f"unknown event {event!r}; known events: simulate, cancel", error
    else:  # a long name is not echoed in full
        assert error.startswith("unknown event ") and len(error) < 150, error
        assert error.endswith("; known events: simulate, cancel"), error


def test_unknown_events_are_acked_with_the_known_events_and_change_nothing(lab):
    # "connect" and "disconnect" are python-socketio's reserved names: never dispatched as
    # events (a client-sent "disconnect" is covered by the rate-limit test below).
    reserved = {"simulate", "cancel", "connect", "disconnect", "undecodable"}
    names = st.one_of(
        st.text(ALL_CHARS, min_size=1, max_size=12),
        st.sampled_from(["*", "sim", "message", "json", "x" * 100]),
    )

    @SETTINGS
    @given(event=names.filter(lambda n: n not in reserved), args=arguments(RING8))
    def fuzz(event, args):
        check_unknown_event_ack(event, lab.emit(event, *args))
        assert lab.drain() == [], f"{event!r} made the server send events"
        assert lab.client.is_connected()

    fuzz()
    assert lab.runs.running() == []
    lab.normal_run()


def test_a_random_mix_of_events_leaves_the_connection_working(lab):
    steps = st.lists(
        st.tuples(st.sampled_from(["simulate", "cancel", "nope"]), arguments(RING8)),
        min_size=1,
        max_size=6,
    )

    @settings(SETTINGS, max_examples=40)
    @given(steps=steps)
    def fuzz(steps):
        for event, args in steps:
            ack = lab.emit(event, *args)
            if event == "simulate":
                check_simulate_ack(ack, args)
        lab.drain()

    fuzz()
    lab.settle()
    check_events(lab.events)
    lab.normal_run()


def test_random_handshake_languages_connect_or_are_refused_by_name():
    # The connection's language (app/web/live/language.py) is the handshake's `lang`, on the
    # lab's namespace and on /measure: a
    # language the lab speaks connects, any other value is refused naming lang and the allowed
    # values, and a connection in Chinese then streams its runs narrated in Chinese.
    app = create_app(CONFIG)
    values = st.one_of(
        st.sampled_from(["en", "zh", "", "ZH", "zh-CN", "en,zh", "\x00", "\ud800", "a" * 2000]),
        TEXT,
    )

    @settings(SETTINGS, max_examples=60)
    @given(value=values)
    def fuzz(value):
        query = "lang=" + quote(value.encode("utf-8", "surrogatepass"))
        sc = flask_socketio.test_client(app, query_string=query)
        spoken = value in ("en", "zh")
        assert sc.is_connected() == spoken, f"lang={value!r}"
        measuring = flask_socketio.test_client(app, namespace=measure.NAMESPACE, query_string=query)
        assert measuring.is_connected(measure.NAMESPACE) == spoken, f"/measure, lang={value!r}"
        if spoken:
            sc.disconnect()
            measuring.disconnect(namespace=measure.NAMESPACE)
            return
        with pytest.raises(socketio.exceptions.ConnectionRefusedError) as refused:
            language.check("sid", {"QUERY_STRING": query})
        error = str(refused.value)
        assert error.startswith("lang: must be one of en, zh, got "), error
        assert len(error) < 200, error

    fuzz()
    sc = flask_socketio.test_client(app, query_string="lang=zh")
    try:
        ack = sc.emit("simulate", RING8, callback=True)
        assert ack["ok"] is True, ack
        deadline = time.monotonic() + 20
        steps: list[dict] = []
        while len(steps) < 14 and time.monotonic() < deadline:
            steps += [e["args"][0] for e in sc.get_received() if e["name"] == "sim_step"]
            time.sleep(0.005)
        texts = [s["narration"] for s in steps]
        assert texts == narrate(simulate(**RING8), "zh")
    finally:
        sc.disconnect()


def test_a_client_sent_disconnect_event_does_not_reset_its_rate_limit():
    # python-socketio hands an *event* named "disconnect" to the disconnect handler while the
    # client stays connected; the handler then forgets the client's rate bucket.
    app = create_app({**TEST_CONFIG, "SIMULATE_RATE_PER_S": 0.001, "SIMULATE_BURST": 3})
    client = flask_socketio.test_client(app)
    slow = {**RING8, "interval_ms": 5000}
    try:
        first = [client.emit("simulate", slow, callback=True)["ok"] for _ in range(4)]
        assert first == [True, True, True, False]
        client.emit("disconnect", "client namespace disconnect", callback=True)
        assert client.is_connected()
        again = client.emit("simulate", slow, callback=True)
        assert again["ok"] is False and "too many simulate requests" in again["error"], (
            f"an event named 'disconnect' reset the simulate rate limit: {again}"
        )
    finally:
        client.disconnect()


# -- a real websocket to the live server ----------------------------------------------------------


class Recorder:
    """A python-socketio client that records the lab's events and its disconnection."""

    def __init__(self, url: str, transport: str = "websocket") -> None:
        self.client = socketio.Client(reconnection=False)
        self.events: list[tuple[str, dict]] = []
        self.ended = threading.Event()
        self.gone = threading.Event()
        for name in LAB_EVENTS:
            self.client.on(name, self._recorder(name))
        self.client.on("disconnect", lambda *_: self.gone.set())
        self.client.connect(url, transports=[transport], wait_timeout=5)

    def _recorder(self, name: str):
        def record(payload: dict) -> None:
            self.events.append((name, payload))
            if name in ("sim_done", "sim_error"):
                self.ended.set()

        return record

    def normal_run(self) -> None:
        ack = self.client.call("simulate", RING8, timeout=10)
        assert ack["ok"] is True, ack
        assert self.ended.wait(20), f"no sim_done; got {[n for n, _ in self.events]}"
        # python-socketio's client runs each message's handler on a thread of its own, so the
        # record may be in another order than the wire's (and sim_done may be recorded before
        # the last step): wait for all 16 events, then check each came once.
        deadline = time.monotonic() + 5
        while True:
            mine = [(n, p) for n, p in self.events if p.get("run_id") == ack["run_id"]]
            if len(mine) >= 16 or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        assert sorted(n for n, _ in mine) == ["sim_done", "sim_start"] + ["sim_step"] * 14
        assert sorted(p["index"] for n, p in mine if n == "sim_step") == list(range(14))
        assert mine[-1][1]["verified"] is True

    def close(self) -> None:
        if self.client.connected:
            self.client.disconnect()
        ws = getattr(self.client.eio, "ws", None)
        if ws is not None:  # the client leaves it open when the server dropped the connection
            ws.shutdown()


def served_normally(url: str) -> None:
    """Assert that a new client gets a full, verified ring allreduce run."""
    raw = RawSocket(url)
    try:
        raw.normal_run()
    finally:
        raw.close()


@pytest.mark.server
def test_a_payload_just_under_the_message_limit_is_refused_by_name(live_server):
    rec = Recorder(live_server.url)
    try:
        big = {**RING8, "collective": "x" * (MAX_MESSAGE - 1024)}
        ack = rec.client.call("simulate", big, timeout=10)
        assert ack["ok"] is False and ack["error"].startswith("collective must be one of")
        assert len(ack["error"]) < 1000  # the value is not echoed back in full
        rec.normal_run()  # the same connection keeps working
    finally:
        rec.close()


@pytest.mark.server
@pytest.mark.parametrize(
    ("transport", "size"),
    [
        ("websocket", MAX_MESSAGE + 1024),
        ("websocket", 10 * MAX_MESSAGE),
        ("polling", MAX_MESSAGE + 1024),
    ],
)
def test_a_payload_over_the_message_limit_closes_that_connection_only(live_server, transport, size):
    bystander = RawSocket(live_server.url)
    rec = Recorder(live_server.url, transport)
    acks: list = []
    try:
        rec.client.emit("simulate", {**RING8, "collective": "x" * size}, callback=acks.append)
        assert rec.gone.wait(10), "the server kept a connection that sent too much"
        assert acks == []
        bystander.normal_run()  # a client connected before is not disturbed
    finally:
        rec.close()
        bystander.close()
    served_normally(live_server.url)


class RawSocket:
    """A Socket.IO connection spoken by hand over a websocket, to send any text at all."""

    def __init__(self, url: str) -> None:
        ws_url = url.replace("http://", "ws://") + "/socket.io/?EIO=4&transport=websocket"
        self.ws = websocket.create_connection(ws_url, timeout=5)
        assert self.ws.recv().startswith("0{")  # engine.io open
        self.ws.send("40")  # socket.io connect, default namespace
        assert self.ws.recv().startswith("40{")
        self.next_id = 0
        self.pending: list[str] = []  # messages that came while waiting for an ack

    def call(self, text: str, wait_s: float = 2.0) -> object:
        """Send `42<id><text>` and return the ack's arguments, or None if none came in time."""
        self.next_id += 1
        self.ws.send(f"42{self.next_id}{text}")
        prefix = f"43{self.next_id}"
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            self.ws.settimeout(max(0.05, deadline - time.monotonic()))
            try:
                message = self.ws.recv()
            except websocket.WebSocketTimeoutException:
                return None
            if message == "2":  # engine.io ping
                self.ws.send("3")
            elif message.startswith(prefix):
                return json.loads(message[len(prefix) :])
            else:
                self.pending.append(message)
        return None

    def normal_run(self) -> None:
        """Run ring allreduce on 8 ranks and check its 14 steps and the verdict."""
        ack = self.call(f'["simulate", {json.dumps(RING8)}]')
        assert ack is not None and ack[0]["ok"] is True, ack
        events: list[tuple[str, dict]] = []
        self.ws.settimeout(20)
        while not events or events[-1][0] not in ("sim_done", "sim_error"):
            message = self.pending.pop(0) if self.pending else self.ws.recv()
            if message == "2":
                self.ws.send("3")
            elif message.startswith("42["):
                name, payload = json.loads(message[2:])
                if payload.get("run_id") == ack[0]["run_id"]:
                    events.append((name, payload))
        assert [n for n, _ in events] == ["sim_start"] + ["sim_step"] * 14 + ["sim_done"]
        assert [p["index"] for n, p in events if n == "sim_step"] == list(range(14))
        assert events[-1][1]["verified"] is True

    def close(self) -> None:
        """Leave as a browser tab does: say goodbye, then drop the socket (no close wait)."""
        with contextlib.suppress(websocket.WebSocketException, OSError):
            self.ws.send("41")
            self.ws.send("1")
        self.ws.shutdown()


BASE = json.dumps(RING8)[:-1]  # an object still open, to append a raw member to
RAW_PAYLOADS = {
    "NaN": f'["simulate", {BASE}, "ranks": NaN}}]',
    "Infinity": f'["simulate", {BASE}, "elements": Infinity}}]',
    "-Infinity": f'["simulate", {BASE}, "seed": -Infinity}}]',
    "1e400": f'["simulate", {BASE}, "ranks": 1e400}}]',
    "duplicate keys": f'["simulate", {BASE}, "ranks": 8, "ranks": "8"}}]',
    "lone surrogate": f'["simulate", {BASE}, "op": "\\ud800"}}]',
    "right-to-left": f'["simulate", {BASE}, "collective": "\u202eevil"}}]',
    "10**400": f'["simulate", {BASE}, "seed": {10**400}}}]',
    "nested 5,000 deep": '["simulate", ' + "[" * 5000 + "]" * 5000 + "]",
}


@pytest.mark.server
@pytest.mark.parametrize("name", list(RAW_PAYLOADS))
def test_json_the_encoder_would_not_write_is_refused_by_name(live_server, name):
    raw = RawSocket(live_server.url)
    try:
        ack = raw.call(RAW_PAYLOADS[name])
        assert ack is not None, f"simulate with {name} got no ack at all: the client waits forever"
        assert isinstance(ack, list) and len(ack) == 1
        check_simulate_ack(ack[0], (name,))
        assert ack[0]["ok"] is False
        assert raw.call(f'["simulate", {json.dumps(RING8)}]')[0]["ok"] is True
    finally:
        raw.close()
    served_normally(live_server.url)


@pytest.mark.server
def test_an_unknown_event_over_a_websocket_is_acked_with_an_error(live_server):
    raw = RawSocket(live_server.url)
    try:
        ack = raw.call('["simulat", {"ranks": 8}]')
        assert isinstance(ack, list) and len(ack) == 1, f"no ack, or not one argument: {ack!r}"
        check_unknown_event_ack("simulat", ack[0])
        raw.normal_run()
    finally:
        raw.close()


MALFORMED = {
    "truncated JSON": '["simulate"',
    "empty array": "[]",
    "a number for the event name": "[1]",
    "an object instead of an array": '{"a": 1}',
    "not JSON": "simulate",
}


@pytest.mark.server
@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_malformed_packet_does_not_stop_the_connection_or_the_server(live_server, name):
    raw = RawSocket(live_server.url)
    try:
        raw.call(MALFORMED[name], wait_s=0.5)  # no ack is owed for a broken packet
        ack = raw.call(f'["simulate", {json.dumps(RING8)}]')
        assert ack is not None and ack[0]["ok"] is True, f"after {name}: {ack!r}"
    finally:
        raw.close()
    served_normally(live_server.url)


@pytest.mark.server
def test_invalid_utf8_in_a_text_frame_closes_only_that_connection(live_server):
    raw = RawSocket(live_server.url)
    try:
        raw.ws.send(b'421["simulate", "\xff\xfe"]', opcode=websocket.ABNF.OPCODE_TEXT)
        raw.ws.settimeout(5)
        try:
            while raw.ws.recv() not in ("", None):
                pass
        except (websocket.WebSocketConnectionClosedException, ConnectionError):
            pass
    finally:
        raw.close()
    served_normally(live_server.url)


# -- admission: runs past a limit are refused naming it (issue 12) ---------------------------------

LIMITED = {
    **CONFIG,
    "LAB_RUNS_PER_ADDRESS": 1,
    "LAB_MEMORY_BUDGET_MB": 1,  # the lab's default run (0.4 MB) fits twice; 64 ranks never
    "LAB_MAX_RUN_S": 1,  # 14 steps 100 ms apart already take longer
}
LIMIT_WORDS = ("your address", "memory budget", "simulations are running")
SMALL_RUNS = st.fixed_dictionaries(
    {
        "collective": st.just("allreduce"),
        "algorithm": st.sampled_from(["ring", "recursive_doubling", "rabenseifner"]),
        "ranks": st.sampled_from([2, 4, 8, 64]),
        "elements": st.sampled_from([64, 128]),
        "seed": st.integers(0, 3),
        "interval_ms": st.sampled_from([0, 20, 100, 5000]),
    }
)


def test_runs_past_an_admission_limit_are_refused_naming_it(monkeypatch):
    # Runs with seed 3 stay in the engine until the end, holding their share of the budget
    # (until their client replaces them): the budget fills up now and then.
    opened = threading.Event()

    def engine(**kwargs):
        if kwargs["seed"] == 3:
            opened.wait(30)
        return simulate(**kwargs)

    monkeypatch.setattr(sockets, "simulate", engine)
    app = create_app(LIMITED)
    # Three addresses: three runs of 8 ranks (0.38 MB each) fill the 1 MB budget.
    addresses = ("203.0.113.1", "203.0.113.1", "198.51.100.2", "192.0.2.3")
    clients = []
    for address in addresses:
        flask_client = app.test_client()
        flask_client.environ_base["REMOTE_ADDR"] = address
        clients.append(flask_socketio.test_client(app, flask_test_client=flask_client))
    events: list[dict] = []

    @settings(SETTINGS, max_examples=60)
    @given(who=st.integers(0, len(clients) - 1), data=SMALL_RUNS)
    def fuzz(who, data):
        ack = clients[who].emit("simulate", data, callback=True)
        assert ack.get("ok") in (True, False), ack
        if not ack["ok"]:
            error = ack["error"]
            for leak in LEAKS:
                assert leak not in error, error
            assert any(words in error for words in LIMIT_WORDS), error
            assert ("retry_after_s" in ack) == ("retry in" in error), ack
        for c in clients:
            events.extend(c.get_received())

    try:
        fuzz()
        opened.set()
        runs = app.extensions["lab_runs"]
        for c in clients:
            c.emit("cancel", callback=True)
        deadline = time.monotonic() + 20
        while runs.running() and time.monotonic() < deadline:
            time.sleep(0.01)
        for c in clients:
            events.extend(c.get_received())
    finally:
        opened.set()
        for c in clients:
            c.disconnect()
    check_events(events)
    for event in events:
        if event["name"] == "sim_error":  # the only refusal that comes after the ack
            assert "interval_ms must be at most" in event["args"][0]["error"], event
    assert app.extensions["lab_admission"].usage()["runs"] == 0


# -- the classroom's /class events (issue 14) ------------------------------------------------------

CLASS = "/class"
CLASS_CONFIG = {
    **TEST_CONFIG,
    **{f"CLASS_{kind}_RATE_PER_S": 1e6 for kind in ("DRIVE", "ANSWER", "CREATE")},
    **{f"CLASS_{kind}_BURST": 1_000_000 for kind in ("DRIVE", "ANSWER", "CREATE")},
}
CLASS_FIELDS = (
    "payload", "code", "name", "teacher_token", "member_id", "state", "question_id",
    "poll_id", "answer", "role", "lang",
)  # fmt: skip
CLASS_KEYS = st.one_of(
    st.sampled_from(CLASS_FIELDS[1:]), st.text(ALL_CHARS, max_size=8).map(JUNK.__add__)
)
CLASS_STATE = {**RING8, "ranks": 4, "elements": 16, "step": 1, "playing": False, "speed": 1}
CLASS_BROKEN = "failed unexpectedly"


def refusal(ack: object, what: str) -> str | None:
    """Return the error of a refusal ack (None for ok: true); assert it leaks nothing."""
    assert isinstance(ack, dict) and ack.get("ok") in (True, False), f"{what} -> {ack!r}"
    if ack["ok"]:
        return None
    error = ack.get("error")
    assert isinstance(error, str) and error, f"{what} -> {ack!r}"
    for leak in LEAKS:
        assert leak not in error, f"{what} leaks {leak!r}: {error}"
    return error


def check_class_ack(ack: object, event: str, args: tuple) -> None:
    """Assert `ack` is {ok: true, ...} or {ok: false, error} naming a field, with no leak."""
    what = f"{event}{shown(args)}"
    error = refusal(ack, what)
    if error is None:
        return
    assert CLASS_BROKEN not in error, f"{what} -> {ack!r}"
    field, _, rest = error.partition(": ")
    named = field in CLASS_FIELDS or field.startswith(("state", "answer."))
    # the key, quoted; in the language the event or the member's join asked for
    unknown = field.startswith('"') and rest.startswith(("unknown field of ", f"{event} "))
    assert named or unknown, f"{what}: the error names no field: {error!r}"


class Classroom:
    """An app with a room, its teacher and one student, all on Flask-SocketIO test clients."""

    def __init__(self) -> None:
        self.app = create_app(CLASS_CONFIG)
        self.teacher = self.connect()
        self.student = self.connect()
        self.open()

    def connect(self):
        return flask_socketio.test_client(self.app, namespace=CLASS)

    def emit(self, client, event: str, *args):
        return client.emit(event, *args, callback=True, namespace=CLASS)

    def open(self) -> None:
        """Make a room with a poll open, the teacher and the student in it."""
        ack = self.emit(self.teacher, "room_create", {})
        self.code, self.token = ack["code"], ack["teacher_token"]
        self.teach("room_join")
        self.teach("room_drive", state=CLASS_STATE)
        self.poll_id = self.teach("poll_open", question_id="predict-next-step")["poll_id"]
        assert self.emit(self.student, "room_join", {"code": self.code})["ok"] is True

    def teach(self, event: str, **payload) -> dict:
        ack = self.emit(self.teacher, event, {"code": self.code, "teacher_token": self.token,
                                              **payload})  # fmt: skip
        assert ack["ok"] is True, ack
        return ack

    def room(self):
        return self.app.extensions["classroom"].store.room(self.code)

    def works(self) -> None:
        """A normal drive reaches the student with the next seq: nothing was corrupted."""
        assert self.emit(self.student, "room_join", {"code": self.code})["ok"] is True
        self.student.get_received(CLASS)
        seq = self.teach("room_drive", state=CLASS_STATE)["seq"]
        assert seq == self.room().seq
        got = [e["args"][0] for e in self.student.get_received(CLASS) if e["name"] == "room_state"]
        assert got[-1]["seq"] == seq


STUDENT_BASES = {
    "room_create": {"lang": "zh"},
    "room_join": {"name": "Ada", "member_id": "member-0001", "lang": "zh"},
    "room_leave": {},
    "room_drive": {"teacher_token": "forged", "state": CLASS_STATE},
    "poll_open": {"teacher_token": "forged", "question_id": "predict-next-step"},
    "poll_answer": {"answer": ["c0"]},
    "poll_reveal": {"teacher_token": "forged"},
    "room_end": {"teacher_token": "forged"},
}


def test_random_classroom_events_from_a_student_are_refused_by_name_and_change_nothing():
    room = Classroom()
    before = room.room()

    @SETTINGS
    @given(event=st.sampled_from(list(STUDENT_BASES)), data=st.data())
    def fuzz(event, data):
        base = {"code": room.code, "poll_id": room.poll_id, **STUDENT_BASES[event]}
        if event not in ("poll_answer", "poll_reveal"):
            del base["poll_id"]
        args = data.draw(arguments(base, CLASS_KEYS))
        ack = room.emit(room.student, event, *args)
        check_class_ack(ack, event, args)
        if event in ("room_drive", "poll_open", "poll_reveal", "room_end"):
            assert ack["ok"] is False, f"a student's {event}{shown(args)} was accepted: {ack}"
        assert room.teacher.is_connected(CLASS) and room.student.is_connected(CLASS)

    fuzz()
    after = room.room()
    assert (after.digest, after.state, after.seq, after.poll) == (
        before.digest, before.state, before.seq, before.poll
    )  # fmt: skip
    room.works()


def test_random_classroom_events_from_the_teacher_keep_the_room_sound():
    room = Classroom()
    bases = {
        "room_drive": {"state": CLASS_STATE},
        "poll_open": {"question_id": "predict-next-step"},
        "poll_reveal": {"poll_id": room.poll_id},
        "room_end": {},
    }

    @SETTINGS
    @given(event=st.sampled_from(list(bases)), data=st.data())
    def fuzz(event, data):
        base = {"code": room.code, "teacher_token": room.token, **bases[event]}
        args = data.draw(arguments(base, CLASS_KEYS))
        ack = room.emit(room.teacher, event, *args)
        check_class_ack(ack, event, args)
        if ack["ok"] and event == "room_end":
            room.open()
            bases["poll_reveal"]["poll_id"] = room.poll_id
        stored = room.room()
        assert stored is not None and stored.seq >= 1
        assert {"collective", "step", "playing", "speed"} <= set(stored.state), stored.state

    fuzz()
    room.works()


def test_unknown_classroom_events_are_acked_with_the_known_ones():
    room = Classroom()

    @settings(SETTINGS, max_examples=40)
    @given(event=st.text(ALL_CHARS, min_size=1, max_size=12), args=arguments({}, CLASS_KEYS))
    def fuzz(event, args):
        if event in (*STUDENT_BASES, "connect", "disconnect", "undecodable"):
            return
        ack = room.emit(room.student, event, *args)
        assert ack["ok"] is False and ack["error"].startswith("unknown event "), ack
        assert "known events: room_create, room_join" in ack["error"]

    fuzz()
    room.works()


@pytest.mark.server
@pytest.mark.parametrize(
    ("text", "words"),
    [
        (f'["room_join", {{"code": {10**400}}}]', "payload: the message could not be decoded"),
        ('["room_join", {"code": NaN}]', "code: not a room code"),
        ('["room_join", {"code": "ACK3D7", "code": 7}]', "code: not a room code"),
        ('["room_join", "\\ud800"]', "payload: room_join takes one object"),
    ],
)
def test_json_the_encoder_would_not_write_is_refused_on_class_by_name(live_server, text, words):
    raw = RawSocket(live_server.url)
    try:
        raw.ws.send(f"40{CLASS},")
        assert raw.ws.recv().startswith(f"40{CLASS},")
        raw.ws.send(f"42{CLASS},7{text}")
        raw.ws.settimeout(5)
        reply = raw.ws.recv()
        while reply == "2":  # engine.io ping
            raw.ws.send("3")
            reply = raw.ws.recv()
        assert reply.startswith(f"43{CLASS},7"), reply
        ack = json.loads(reply[len(f"43{CLASS},7") :])[0]
        assert ack["ok"] is False and ack["error"].startswith(words), ack
    finally:
        raw.close()


# -- the /measure page's events (issue 18) ---------------------------------------------------------

MEASURE = "/measure"
MEASURE_TINY = {
    "backend": "mpi", "collective": "allreduce", "ranks": 2, "min_bytes": 8, "max_bytes": 64,
    "factor": 2, "iters": 5, "warmup": 1,
}  # fmt: skip
MEASURE_NAMED = (*measure.FIELDS, *measure.OPTIONAL, "parameters", "run", "fit", "backend mpi")
MEASURE_KEYS = st.one_of(
    st.sampled_from([*MEASURE_TINY, "preset"]), st.text(ALL_CHARS, max_size=8).map(JUNK.__add__)
)


def fake_sweep(config, on_row, cancelled):
    """Stand in for the ranks: the fuzz checks the handlers, not MPI (tests/web has real runs)."""
    return {"config": config.as_dict(), "machine": {}, "rows": [], "status": "done", "error": ""}


def check_measure_ack(ack: object, event: str, args: tuple) -> None:
    """Assert `ack` is {ok: true, ...} or {ok: false, error} naming a field (or the key sent)."""
    what = f"{event}{shown(args)}"
    error = refusal(ack, what)
    if error is None:
        return
    keys = args[0] if len(args) == 1 and isinstance(args[0], dict) else {}
    named = error.startswith(tuple(f"{f}:" for f in MEASURE_NAMED))
    sent = any(error.startswith(f"{str(k)[:40]}:") for k in keys)
    busy = error.startswith("a measurement is already running")
    assert named or sent or busy, f"{what}: the error names no field: {error!r}"


def test_random_measure_events_are_refused_by_name_and_leave_the_server_free(monkeypatch):
    monkeypatch.setattr(measure, "sweep", fake_sweep)
    monkeypatch.setattr(measure, "missing", lambda backend: None)
    app = create_app(TEST_CONFIG)
    client = flask_socketio.test_client(app, namespace=MEASURE)
    handlers = app.extensions["measure"]
    events = st.sampled_from(["measure_start", "measure_cancel", "measure_save"])

    @SETTINGS
    @given(event=events, args=arguments(MEASURE_TINY, keys=MEASURE_KEYS))
    def fuzz(event, args):
        check_measure_ack(client.emit(event, *args, callback=True, namespace=MEASURE), event, args)
        client.get_received(MEASURE)
        assert client.is_connected(MEASURE)

    fuzz()
    end = time.monotonic() + 10
    while handlers.running is not None and time.monotonic() < end:
        time.sleep(0.01)
    assert handlers.running is None
    ack = client.emit("measure_nope", {}, callback=True, namespace=MEASURE)
    assert ack == {
        "ok": False,
        "error": "unknown event 'measure_nope'; known events: " + ", ".join(measure.EVENTS),
    }


@pytest.mark.parametrize("enabled", [True, False])
def test_any_connect_payload_to_measure_is_refused_when_off_and_ignored_when_on(enabled):
    """The namespace's connect handler (the setting MEASURE_ENABLED) reads nothing it is sent."""
    app = create_app({**TEST_CONFIG, "MEASURE_ENABLED": enabled})

    @SETTINGS
    @given(auth=st.one_of(st.none(), st.dictionaries(TEXT, JSON_VALUES, max_size=4)))
    def fuzz(auth):
        client = flask_socketio.test_client(app, namespace=MEASURE, auth=auth)
        assert client.is_connected(MEASURE) is enabled, f"auth {auth!r:.200}"
        if enabled:
            client.disconnect(namespace=MEASURE)

    fuzz()
