"""Security headers on every response; only /embed/* may be framed, by EMBED_FRAME_ANCESTORS."""

from __future__ import annotations

import pytest

from app import create_app

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
