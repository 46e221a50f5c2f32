"""Errors outside any view: JSON under /api/, a page elsewhere, never a traceback."""

from __future__ import annotations

import pytest
from flask import Blueprint


@pytest.mark.parametrize("path", ["/api/simulate", "/api/quiz/answer"])
def test_a_wrong_method_on_the_api_is_json_naming_the_allowed_one(client, path):
    response = client.get(path)
    assert response.status_code == 405
    assert response.get_json() == {"error": f"GET is not allowed on {path}; use POST"}
    assert "POST" in response.headers["Allow"]


def test_an_unknown_api_path_is_json(client):
    response = client.get("/api/nothing-here")
    assert response.status_code == 404
    assert response.get_json() == {"error": "no such page: /api/nothing-here"}


@pytest.mark.parametrize(
    "path",
    [
        "/api/simulate",
        "/api/toolkit/drills/ring-allreduce/reveal",
        "/api/nccl-tests",
        "/api/nccl-log",
    ],
)
def test_a_body_past_the_size_limit_is_json_naming_the_body_and_the_limit(app, client, path):
    limit = app.config["MAX_CONTENT_LENGTH"]
    response = client.post(path, data=b" " * (limit + 1), content_type="application/json")
    assert response.status_code == 413
    assert response.get_json() == {"error": f"body: at most {limit} bytes"}


def test_an_unknown_page_is_a_calm_html_page_with_links(client):
    response = client.get("/no/such/page")
    assert response.status_code == 404
    html = response.get_data(as_text=True)
    assert "404 · Not Found" in html and "no such page: /no/such/page" in html
    assert 'href="/lab"' in html


def test_an_unexpected_error_is_logged_and_answered_without_a_traceback(app, caplog):
    boom = Blueprint("boom", __name__)

    @boom.get("/api/boom")
    def explode():
        raise RuntimeError("secret internals")

    app.register_blueprint(boom)
    with caplog.at_level("ERROR"):
        response = app.test_client().get("/api/boom")
    assert response.status_code == 500
    body = response.get_json()
    assert body == {"error": "the server failed unexpectedly; the error was logged"}
    assert "secret internals" not in response.get_data(as_text=True)
    assert "secret internals" in caplog.text
