"""The race pages over HTTP: `/lab?mode=race`, `/embed/race` and the lessons' links to them.

A link that names a race the server refuses gets the friendly error page (400) naming the
field; every race a lesson links to is one the server runs.
"""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest

from app import create_app
from tests.conftest import TEST_CONFIG

LESSONS = Path(__file__).resolve().parents[2] / "lessons"
RACE_LINK = re.compile(r"\]\((/lab\?mode=race[^)\s]*)\)")
GOOD = "collective=allreduce&algorithms=ring,direct&ranks=4&bytes=1024&topology=nvswitch"


@pytest.fixture(scope="module")
def client():
    return create_app(TEST_CONFIG).test_client()


def error_message(html: str) -> str:
    found = re.search(r'data-role="error-message">([^<]*)<', html)
    assert found, "no friendly error page"
    return unescape(found.group(1))


def test_every_lesson_link_to_the_race_opens_a_race(client):
    links = [(p.stem, u) for p in LESSONS.glob("*.md") for u in RACE_LINK.findall(p.read_text())]
    assert len({slug for slug, _ in links}) >= 4, links
    for slug, url in links:
        response = client.get(url)
        assert response.status_code == 200, (slug, url, response.get_data(as_text=True)[:300])


@pytest.mark.parametrize("path", ["/lab?mode=race&", "/embed/race?"])
@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ("ranks=many", "ranks"),
        ("bytes=0", "bytes"),
        ("topology=moebius", "topology"),
        ("algorithms=ring", "algorithms"),
        ("speed=3", "speed"),
    ],
)
def test_a_bad_race_link_gets_the_error_page_naming_the_field(client, path, bad, field):
    name = bad.split("=")[0]
    query = "&".join(p for p in GOOD.split("&") if not p.startswith(name + "=")) + "&" + bad
    response = client.get(path + query)
    assert response.status_code == 400
    assert field in error_message(response.get_data(as_text=True))


def test_the_lab_refuses_an_unknown_mode_and_keeps_its_old_links(client):
    response = client.get("/lab?mode=duel")
    assert response.status_code == 400
    assert "mode" in error_message(response.get_data(as_text=True))
    assert client.get("/lab?collective=allreduce&algorithm=ring&ranks=4").status_code == 200
    assert client.get("/lab?mode=run&collective=allreduce&algorithm=ring").status_code == 200
