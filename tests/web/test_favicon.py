"""The site icon: /favicon.ico answers (browsers ask for it on every page and embed) and every
page links the SVG icon, so no page logs a 404 for it."""

from __future__ import annotations

import pytest

from tests.lessons.htmltools import parse


def test_favicon_ico_is_the_svg_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    assert response.get_data(as_text=True).startswith("<svg")
    assert "max-age=" in response.headers["Cache-Control"]
    response.close()


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/lab",
        "/lessons/",
        "/lessons/ring-allreduce",
        "/quiz",
        "/calculators",
        "/embed/allreduce/ring",
    ],
)
def test_every_page_links_an_icon_that_loads(client, path):
    doc = parse(client.get(path).get_data(as_text=True))
    icons = [link.attrs["href"] for link in doc.find_all("link") if link.attrs.get("rel") == "icon"]
    assert icons, f"{path} links no icon"
    for href in icons:
        if not href.startswith("data:"):
            response = client.get(href)
            assert response.status_code == 200, href
            response.close()
