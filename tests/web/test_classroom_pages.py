"""The classroom's pages: /class, a room's page, its QR code; canonical codes, 404s, headers.

The QR code is checked by reading the SVG back into its matrix of modules and comparing it with
the symbol segno makes for the join URL the page should carry: a QR code of any other text (a
wrong host, the lower-case code) has another matrix.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest
import segno

from app.classroom.codes import ALPHABET, new_code
from tests.web.test_headers import csp
from tests.web.test_lab_pages import Page

CODE = "ACK3D7"
SVG_NS = "{http://www.w3.org/2000/svg}"


def qr_matrix(svg: bytes) -> tuple[int, list[list[int]]]:
    """Read segno's SVG back: (its side in modules, the dark modules as rows of 0/1).

    segno draws each row's dark runs as one path: `M x y` then relative `m dx dy` moves and `h n`
    runs, at half-module heights (y + 0.5), after a first path that fills the light background.
    """
    root = ET.fromstring(svg)
    side = int(root.get("viewBox").split()[2])
    dark = next(p for p in root.iter(f"{SVG_NS}path") if p.get("stroke"))
    grid = [[0] * side for _ in range(side)]
    x = y = 0.0
    for op, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?: (-?[\d.]+))?", dark.get("d")):
        if op == "M":
            x, y = float(a), float(b)
        elif op == "m":
            x, y = x + float(a), y + float(b)
        else:
            for i in range(int(a)):
                grid[int(y)][int(x) + i] = 1
            x += int(a)
    return side, grid


def segno_matrix(url: str, border: int = 4) -> list[list[int]]:
    """The modules of segno's QR code of `url`, with its light border, as rows of 0/1."""
    symbol = segno.make(url, error="m", micro=False)
    return [[int(bool(v)) for v in row] for row in symbol.matrix_iter(border=border)]


def config_of(html: str) -> dict:
    page = Page(html)
    return json.loads(page.one("script", id="lab-config")["text"])


# -- /class ------------------------------------------------------------------------------------


def test_class_page_offers_to_start_and_a_join_form_that_works_without_javascript(client):
    response = client.get("/class")
    assert response.status_code == 200
    page = Page(response.get_data(as_text=True))
    assert page.one("button", **{"data-role": "start"})["text"].strip() == "Start a class"
    form = page.one("form", **{"class": "class-join-form"})
    assert form["attrs"]["action"] == "/class" and form["attrs"]["method"] == "get"
    assert page.one("input", id="join-code")["attrs"]["name"] == "code"


@pytest.mark.parametrize("typed", ["ack3d7", "ACK-3D7", " ack 3d7 ", "Ack-3d7"])
def test_a_typed_code_in_any_spelling_goes_to_the_canonical_room(client, typed):
    response = client.get("/class", query_string={"code": typed})
    assert response.status_code == 302
    assert response.headers["Location"] == f"/class/{CODE}"


@pytest.mark.parametrize("typed", ["ACK3D", "ACK3D7X", "OOOOOO", "ACK3D0", "", "x" * 40])
def test_a_typed_code_that_is_not_one_is_named_on_the_form(client, typed):
    response = client.get("/class", query_string={"code": typed})
    assert response.status_code == 400
    page = Page(response.get_data(as_text=True))
    problem = page.one("p", id="join-problem")["text"]
    assert "is not a class code" in problem and "6 characters" in problem
    assert page.one("input", id="join-code")["attrs"]["aria-invalid"] == "true"


# -- a room's page -----------------------------------------------------------------------------


def test_room_page_carries_the_lab_the_class_parts_and_the_join_url(client):
    response = client.get(f"/class/{CODE}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    page = Page(html)
    root = page.one("div", **{"data-role": "class"})
    assert root["attrs"]["data-code"] == CODE
    for role in ("teacher-bar", "student-bar", "join-card", "ended", "poll-card", "polls"):
        assert len(page.find_all("section", **{"data-role": role})) == 1, role
    assert page.one("form", id="lab-form")  # the normal lab, with its player and views
    assert page.one("img", src=f"/class/{CODE}/qr.svg")["attrs"]["alt"].endswith(
        f"http://localhost/class/{CODE}"
    )
    assert page.one("a", **{"data-role": "join-link"})["attrs"]["href"] == (
        f"http://localhost/class/{CODE}"
    )
    config = config_of(html)
    assert config["class"]["code"] == CODE
    assert config["class"]["join_url"] == f"http://localhost/class/{CODE}"
    assert config["keep_url"] is True and config["load"] is None
    assert config["class"]["topics_url"] == "/api/quiz/topics"


def test_room_page_loads_only_scripts_from_files_the_class_scripts_last(client):
    page = Page(client.get(f"/class/{CODE}").get_data(as_text=True))
    scripts = page.find_all("script")
    inline = [s for s in scripts if "src" not in s["attrs"]]
    assert inline and {s["attrs"].get("type") for s in inline} == {"application/json"}  # data
    names = [s["attrs"]["src"].rsplit("/", 1)[1] for s in scripts if "src" in s["attrs"]]
    assert names.index("lab-controls.js") < names.index("class-room.js") == len(names) - 1
    assert names.index("quiz-kinds.js") < names.index("class-poll-card.js")


def test_every_class_script_file_the_page_names_exists(client):
    page = Page(client.get(f"/class/{CODE}").get_data(as_text=True))
    for script in page.find_all("script"):
        src = script["attrs"].get("src")
        if src:
            with client.get(src) as response:
                assert response.status_code == 200, src


@pytest.mark.parametrize("spelling", ["ack3d7", "ack-3d7", "Ack3D7", "ACK-3D7", "ack%203d7"])
def test_room_urls_in_other_spellings_redirect_to_the_canonical_one(client, spelling):
    response = client.get(f"/class/{spelling}")
    assert response.status_code == 301
    assert response.headers["Location"] == f"/class/{CODE}"


@pytest.mark.parametrize(
    ("path", "shown"),
    [("ACK3D", "ACK3D"), ("OOOOOO", "OOOOOO"), ("ACK3D7A", "ACK3D7A"), ("12345Z", "12345Z")],
)
def test_a_malformed_room_code_gets_a_404_page_naming_the_problem(client, path, shown):
    response = client.get(f"/class/{path}")
    assert response.status_code == 404
    page = Page(response.get_data(as_text=True))
    message = page.one("p", **{"data-role": "error-message"})["text"]
    assert f"“{shown}” is not a class code" in message
    assert " ".join(ALPHABET) in message
    again = page.one("a", href="/class", **{"class": "button primary"})
    assert again["text"] == "Type the code again"


def test_a_long_malformed_code_is_shortened_in_the_message(client):
    response = client.get("/class/" + "Q" * 300)
    assert response.status_code == 404
    message = Page(response.get_data(as_text=True)).one("p", **{"data-role": "error-message"})
    assert "Q" * 60 + "…" in message["text"] and "Q" * 61 not in message["text"]


def test_markup_in_a_malformed_code_is_escaped(client):
    response = client.get("/class/<b>x</b>")
    assert response.status_code == 404
    html = response.get_data(as_text=True)
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html


# -- the QR code -------------------------------------------------------------------------------


def test_qr_svg_encodes_the_absolute_join_url(client):
    response = client.get(f"/class/{CODE}/qr.svg")
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    side, grid = qr_matrix(response.data)
    url = f"http://localhost/class/{CODE}"
    expected = segno_matrix(url)
    assert side == len(expected)
    assert grid == expected
    assert grid != segno_matrix(f"http://localhost/class/{CODE.lower()}")
    title = ET.fromstring(response.data).find(f"{SVG_NS}title").text
    assert title == f"QR code: join class {CODE} at {url}"


def test_qr_follows_the_host_the_request_came_to(app):
    client = app.test_client()
    response = client.get(f"/class/{CODE}/qr.svg", base_url="https://class.example:8443")
    _, grid = qr_matrix(response.data)
    assert grid == segno_matrix(f"https://class.example:8443/class/{CODE}")


def test_qr_of_a_code_in_another_spelling_encodes_the_canonical_url(client):
    _, grid = qr_matrix(client.get("/class/ack-3d7/qr.svg").data)
    assert grid == segno_matrix(f"http://localhost/class/{CODE}")


def test_qr_is_cacheable_and_answers_a_conditional_request_with_304(client):
    response = client.get(f"/class/{CODE}/qr.svg")
    assert response.cache_control.public and response.cache_control.max_age == 24 * 3600
    etag = response.headers["ETag"]
    again = client.get(f"/class/{CODE}/qr.svg", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.data == b""
    other = client.get(f"/class/{new_code()}/qr.svg", headers={"If-None-Match": etag})
    assert other.status_code == 200


def test_qr_of_a_malformed_code_is_404(client):
    assert client.get("/class/OOOOOO/qr.svg").status_code == 404


# -- headers -----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/class", f"/class/{CODE}", f"/class/{CODE}/qr.svg", "/class/Z"])
def test_class_pages_get_the_sites_security_headers(client, path):
    with client.get(path) as response:
        headers = response.headers
    policy = csp(headers)
    assert policy["script-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'"
    assert policy["img-src"] == "'self' data:"  # the page shows its QR code from this origin
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Server"] == "Collective Lab"


def test_qr_svg_holds_no_script_or_external_reference(client):
    root = ET.fromstring(client.get(f"/class/{CODE}/qr.svg").data)
    tags = {el.tag.removeprefix(SVG_NS) for el in root.iter()}
    assert tags == {"svg", "title", "path"}
    assert not any(k.endswith("href") for el in root.iter() for k in el.attrib)


def test_nav_links_the_classroom(client):
    page = Page(client.get("/").get_data(as_text=True))
    assert page.one("a", href="/class")["text"] == "Classroom"


def test_class_pages_in_chinese_and_the_english_unchanged(client):
    start = Page(client.get("/class?lang=zh").get_data(as_text=True))
    assert start.one("button", **{"data-role": "start"})["text"].strip() == "开始上课"
    room = client.get(f"/class/{CODE}?lang=zh").get_data(as_text=True)
    for words in ("加入课堂 " + CODE, "名学生在场", "公布答案", "跟随老师"):
        assert words in room, words
    assert f'href="http://localhost/class/{CODE}"' in room  # the join link has no language
    problem = client.get("/class?code=zz&lang=zh").get_data(as_text=True)
    assert "“zz”不是课堂代码" in problem
    english = client.get(f"/class/{CODE}?lang=en").get_data(as_text=True)
    assert "Join class " + CODE in english and "students present" in english
    assert not re.search(r"[\u4e00-\u9fff]", english.split("</header>", 1)[1])  # past the switch
