"""A run is narrated in its page's language (issue 20): over the socket, from the cache, over HTTP.

The socket's language is read from the handshake as a page's is from its request: `lang` in the
query (what the lab's client sends), the `lang` cookie, Accept-Language, English. The narration
a client receives must be the engine's narration in that language, whether the run came from
the engine or the run cache, which keeps the two languages apart.
"""

from __future__ import annotations

import pytest
import socketio as python_socketio

from app.collectives import simulate
from app.collectives.narration import narrate
from app.web.extensions import socketio
from app.web.live import language, sockets
from tests.conftest import LiveServer
from tests.web.test_sockets import payloads, wait_for

RING4 = {"collective": "allreduce", "algorithm": "ring", "ranks": 4, "elements": 8}
TRACE = simulate("allreduce", "ring", ranks=4, elements=8)
REFUSAL = "lang: must be one of en, zh, got 'xx'"


def narrations(sc, data: dict = RING4) -> list[str]:
    """Run `data` on test client `sc` to its end; return the narration of each step."""
    ack = sc.emit("simulate", data, callback=True)
    assert ack["ok"], ack
    steps = payloads(wait_for(sc, "sim_done"), "sim_step")
    return [s["narration"] for s in steps if s["run_id"] == ack["run_id"]]


@pytest.mark.parametrize(
    ("query", "headers", "lang"),
    [
        ("", {}, "en"),
        ("lang=zh", {}, "zh"),
        ("", {"Cookie": "lang=zh"}, "zh"),
        ("", {"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.5"}, "zh"),
        ("lang=en", {"Cookie": "lang=zh", "Accept-Language": "zh"}, "en"),
        ("", {"Accept-Language": "fr, de"}, "en"),
    ],
    ids=["default", "query", "cookie", "browser", "query-first", "unspoken"],
)
def test_the_socket_narrates_in_the_language_of_its_handshake(app, query, headers, lang):
    sc = socketio.test_client(app, query_string=query, headers=headers)
    try:
        assert sc.is_connected()
        assert narrations(sc) == narrate(TRACE, lang)
    finally:
        sc.disconnect()


def test_the_cache_keeps_each_language_apart(app, monkeypatch):
    calls = []
    monkeypatch.setattr(sockets, "simulate", lambda **kw: calls.append(kw) or simulate(**kw))
    clients = {
        lang: socketio.test_client(app, query_string=f"lang={lang}") for lang in ("zh", "en")
    }
    try:
        for _ in range(2):  # the second round comes from the cache
            for lang, sc in clients.items():
                assert narrations(sc) == narrate(TRACE, lang)
    finally:
        for sc in clients.values():
            sc.disconnect()
    stats = app.extensions["lab_run_cache"].stats()
    assert len(calls) == 2 and stats["entries"] == 2 and stats["hits"] == 2


@pytest.mark.parametrize("value", ["xx", "", "ZH", "zh-CN", "en,zh"])
def test_a_handshake_asking_for_an_unspoken_language_is_refused_naming_lang(app, value):
    sc = socketio.test_client(app, query_string=f"lang={value}")
    assert not sc.is_connected()
    environ = {"QUERY_STRING": f"lang={value}"}
    with pytest.raises(python_socketio.exceptions.ConnectionRefusedError) as refused:
        language.check("sid", environ)
    assert str(refused.value) == f"lang: must be one of en, zh, got {value!r}"


@pytest.mark.server
def test_a_real_client_hears_why_its_language_was_refused(app):
    with LiveServer(app) as server:
        client = python_socketio.Client(reconnection=False)
        heard = []
        client.on("connect_error", heard.append)
        with pytest.raises(python_socketio.exceptions.ConnectionError):
            client.connect(f"{server.url}?lang=xx", transports=["polling"], wait_timeout=10)
        client.disconnect()
    assert heard == [{"message": REFUSAL}]


@pytest.mark.parametrize(
    ("url", "headers", "cookie", "lang"),
    [
        ("/api/simulate", {}, None, "en"),
        ("/api/simulate?lang=zh", {}, None, "zh"),
        ("/api/simulate", {"Accept-Language": "zh-Hans"}, None, "zh"),
        ("/api/simulate", {}, "zh", "zh"),
    ],
    ids=["default", "query", "browser", "cookie"],
)
def test_the_http_api_narrates_in_the_requests_language(client, url, headers, cookie, lang):
    if cookie:
        client.set_cookie("lang", cookie)
    body = client.post(url, json=RING4, headers=headers).get_json()
    assert [s["narration"] for s in body["steps"]] == narrate(TRACE, lang)


def test_the_http_api_refuses_an_unspoken_language_naming_lang(client):
    response = client.post("/api/simulate?lang=xx", json=RING4)
    assert response.status_code == 400 and response.get_json() == {"error": REFUSAL}
