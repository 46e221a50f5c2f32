"""Shared fixtures: the app and its clients, a real server on 127.0.0.1, and headless Chromium.

Tests that need a browser skip with a visible reason on a developer's machine without one,
but fail when CI=true: CI must run everything.
"""

from __future__ import annotations

import os
import shutil
import threading

import pytest
from hypothesis import settings
from werkzeug.serving import make_server

from app import create_app
from app.web.extensions import socketio
from app.web.headers import RequestHandler

# No per-example deadline: it is a timed assertion, and a loaded machine fails it at random.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def require(condition: bool, reason: str) -> None:
    """Skip the test when `condition` is false, or fail it under CI, naming the reason."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"CI must run this test, but: {reason}")
    pytest.skip(reason)


# Rate limits have their own tests (tests/web/test_limits.py); elsewhere a test may send
# thousands of requests from one address, so the API bucket is made deep enough.
TEST_CONFIG = {"TESTING": True, "API_BURST": 1_000_000}


@pytest.fixture
def app():
    return create_app(TEST_CONFIG)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def socket_client(app, client):
    sc = socketio.test_client(app, flask_test_client=client)
    yield sc
    if sc.is_connected():
        sc.disconnect()


class LiveServer:
    """The app served by werkzeug's threaded server on 127.0.0.1 and a free port."""

    def __init__(self, app) -> None:
        self._server = make_server(
            "127.0.0.1", 0, app, threaded=True, request_handler=RequestHandler
        )
        self.port = self._server.server_port
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> LiveServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._thread.join(timeout=5)


@pytest.fixture(scope="session")
def live_server():
    app = create_app(TEST_CONFIG)
    with LiveServer(app) as server:
        yield server


@pytest.fixture(scope="session")
def browser():
    require(CHROMIUM is not None, "no chromium on PATH (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - the test extras install it
        require(False, "playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A fresh browser page that records console errors and failed requests."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.console_errors = []
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))
    pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
    yield pg
    context.close()


def empty_page(page, site_url: str) -> None:
    """Leave `page` as a fresh one would start: the last document gone, the site's local and
    session storage and the context's cookies cleared. For a page that a module's tests share
    (a new page starts a renderer, most of a short browser test's time)."""
    page.goto(f"{site_url}/favicon.ico")  # the site's origin, to reach its storage
    page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
    page.context.clear_cookies()
    page.goto("about:blank")


@pytest.fixture(scope="session")
def redis_server():
    """A real redis-server on 127.0.0.1 for the whole session (skipped without one, but CI)."""
    from tests.redis_server import REDIS_SERVER, RedisServer

    require(REDIS_SERVER is not None, "no redis-server on PATH (apt-get install redis-server)")
    server = RedisServer().start()
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server):
    """The session's redis-server, emptied for this test: its redis:// URL."""
    redis_server.flush()
    return redis_server.url
