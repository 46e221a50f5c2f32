"""Security headers on every response; only /embed/* may be framed, by EMBED_FRAME_ANCESTORS.

Responses name no server software or version (`Server: Collective Lab`, checked over real HTTP
because Werkzeug adds its header at the socket), and a redirect never repeats the Host header.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app import create_app

ROOT = Path(__file__).resolve().parents[2]

PAGES = ["/", "/healthz", "/api/collectives", "/lab", "/no-such-page", "/static/js/palette.js"]
EMBEDS = ["/embed/allreduce/ring", "/embed/allreduce/ring?ranks=4&autoplay=1"]


def csp(headers) -> dict[str, str]:
    """Parse a Content-Security-Policy header into {directive: sources}."""
    out = {}
    for part in headers["Content-Security-Policy"].split(";"):
        name, _, sources = part.strip().partition(" ")
        out[name] = sources
    return out


def headers_of(client, path: str):
    """Return the headers of GET `path`, closing the response (static files hold a file)."""
    with client.get(path) as response:
        return response.headers


@pytest.mark.parametrize("path", PAGES + EMBEDS)
def test_every_response_gets_nosniff_and_a_referrer_policy(client, path):
    headers = headers_of(client, path)
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "strict-origin-when-cross-origin"


@pytest.mark.parametrize("path", PAGES)
def test_pages_other_than_embeds_deny_framing(client, path):
    headers = headers_of(client, path)
    assert csp(headers)["frame-ancestors"] == "'none'"
    assert headers["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize("path", PAGES + EMBEDS)
def test_scripts_come_only_from_this_origin(client, path):
    policy = csp(headers_of(client, path))
    assert policy["script-src"] == "'self'"  # no 'unsafe-inline', no 'unsafe-eval'
    assert policy["object-src"] == "'none'"
    assert policy["default-src"] == "'self'"
    assert policy["connect-src"] == "'self'"


def test_api_errors_deny_framing_too(client):
    response = client.post("/api/simulate", data="nope")
    assert response.status_code == 400
    assert response.headers["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize("path", EMBEDS)
def test_embeds_may_be_framed_by_any_origin_by_default(client, path):
    headers = headers_of(client, path)
    # No frame-ancestors at all: "*" would still refuse a parent page opened from a file.
    assert "frame-ancestors" not in csp(headers)
    assert csp(headers)["script-src"] == "'self'"
    assert "X-Frame-Options" not in headers


def test_embed_frame_ancestors_comes_from_the_setting():
    app = create_app({"TESTING": True, "EMBED_FRAME_ANCESTORS": "https://wiki.example.com"})
    client = app.test_client()
    embed = csp(client.get("/embed/allreduce/ring").headers)
    assert embed["frame-ancestors"] == "https://wiki.example.com"
    assert csp(client.get("/lab").headers)["frame-ancestors"] == "'none'"


def test_embed_frame_ancestors_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("COLLECTIVE_LAB_EMBED_FRAME_ANCESTORS", "'self' https://wiki.example.com")
    headers = create_app({"TESTING": True}).test_client().get("/embed/allreduce/ring").headers
    assert csp(headers)["frame-ancestors"] == "'self' https://wiki.example.com"


@pytest.mark.parametrize("value", ["", "* ; script-src *", "https://a.example\r\nX-Evil: 1"])
def test_an_unsafe_frame_ancestors_setting_stops_the_app_at_startup(value):
    with pytest.raises(ValueError, match="EMBED_FRAME_ANCESTORS must be"):
        create_app({"TESTING": True, "EMBED_FRAME_ANCESTORS": value})


def test_vendored_libraries_are_cached_for_a_year_and_other_static_files_for_an_hour(client):
    vendor = headers_of(client, "/static/vendor/socket.io-4.8.4.min.js")
    assert vendor["Cache-Control"] == "public, max-age=31536000, immutable"
    assert headers_of(client, "/static/js/palette.js")["Cache-Control"] == "public, max-age=3600"


def test_text_assets_are_served_compressed(client):
    with client.get(
        "/static/vendor/plotly-cartesian-4.1.1.min.js", headers={"Accept-Encoding": "gzip"}
    ) as response:
        assert response.headers["Content-Encoding"] == "gzip"
        assert len(response.data) < 700_000  # 1.5 MB uncompressed


# -- what a response says about the server and the host it was asked for --------------------------

HOSTILE_HOST = "evil.example"
SLASH_REDIRECTS = [
    ("/lessons", "/lessons/"),
    ("/lessons?q=ring", "/lessons/?q=ring"),
    ("/embed", "/embed/"),
]


@pytest.mark.parametrize(("path", "location"), SLASH_REDIRECTS)
def test_a_slash_redirect_is_relative_and_ignores_the_host_header(client, path, location):
    response = client.get(path, headers={"Host": HOSTILE_HOST})
    assert response.status_code in (301, 308)
    assert response.headers["Location"] == location
    assert not [v for _, v in response.headers.items() if HOSTILE_HOST in v]


def get_over_http(port: int, path: str, host: str | None = None):
    """GET `path` from 127.0.0.1:`port` over a real socket; return (status, headers list, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest("GET", path, skip_host=host is not None)
        if host is not None:
            conn.putheader("Host", host)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.getheaders(), response.read()
    finally:
        conn.close()


PROBED = ["/", "/lessons/", "/lessons", "/api/collectives", "/no-such-page", "/static/js/theme.js"]


def check_server_header(headers: list[tuple[str, str]], what: str) -> None:
    """Assert no header names the server software's version; Server, if any, is ours."""
    servers = [v for k, v in headers if k.lower() == "server"]
    assert servers in ([], ["Collective Lab"]), f"{what}: Server headers {servers}"
    for name, value in headers:
        for product in ("Werkzeug", "Python", "gunicorn"):
            assert product.lower() not in value.lower(), f"{what}: {name}: {value}"


@pytest.mark.server
@pytest.mark.parametrize("path", PROBED)
def test_the_live_server_names_no_software_version(live_server, path):
    status, headers, _ = get_over_http(live_server.port, path)
    assert status < 500
    check_server_header(headers, f"GET {path}")


@pytest.mark.server
def test_the_live_servers_lessons_redirect_ignores_a_hostile_host_header(live_server):
    status, headers, _ = get_over_http(live_server.port, "/lessons", host=HOSTILE_HOST)
    assert status in (301, 308)
    assert dict(headers)["Location"] == "/lessons/"
    assert not [v for _, v in headers if HOSTILE_HOST in v]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.server
def test_make_runs_server_names_no_software_version(tmp_path):
    port = free_port()
    env = {**os.environ, "COLLECTIVE_LAB_INSTANCE_PATH": str(tmp_path)}
    server = subprocess.Popen(
        [sys.executable, "-m", "app", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(300):  # wait for it to listen (at most 30 s)
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.1):
                break
            time.sleep(0.1)
        for path in PROBED:
            status, headers, _ = get_over_http(port, path)
            assert status < 500, (path, status)
            check_server_header(headers, f"python -m app: GET {path}")
        _, headers, _ = get_over_http(port, "/lessons", host=HOSTILE_HOST)
        assert dict(headers)["Location"] == "/lessons/"
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
