"""The page's language: ?lang=, the remembered choice, the browser's; the switch; the scripts'
messages; and the catalog, complete and current."""

from __future__ import annotations

import html
import re

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from app.course import ROOT
from app.i18n.catalog import TRANSLATIONS
from app.web.factory import create_app

PO = TRANSLATIONS / "zh" / "LC_MESSAGES" / "messages.po"


@pytest.fixture(scope="module")
def app():
    return create_app({"TESTING": True})


def html_lang(response) -> str:
    return re.search(r'<html lang="([^"]+)"', response.get_data(as_text=True)).group(1)


def test_lang_on_the_url_sets_the_page_language_and_is_remembered(app):
    client = app.test_client()
    first = client.get("/lessons/?lang=zh")
    assert html_lang(first) == "zh-Hans"
    assert "lang=zh" in first.headers["Set-Cookie"]
    assert '<a href="/lab">实验室</a>' in first.get_data(as_text=True)
    assert html_lang(client.get("/quiz")) == "zh-Hans"  # remembered
    assert html_lang(client.get("/quiz?lang=en")) == "en"
    assert html_lang(client.get("/quiz")) == "en"


def test_the_browser_language_counts_until_one_is_chosen(app):
    client = app.test_client()
    assert html_lang(client.get("/", headers={"Accept-Language": "zh-CN,zh;q=0.9"})) == "zh-Hans"
    assert html_lang(client.get("/", headers={"Accept-Language": "fr,en;q=0.5"})) == "en"
    assert html_lang(client.get("/", headers={"Accept-Language": "fr"})) == "en"
    client.get("/?lang=en")
    assert html_lang(client.get("/", headers={"Accept-Language": "zh-CN"})) == "en"


def test_an_embed_takes_lang_without_changing_the_readers_choice(app):
    client = app.test_client()
    response = client.get("/embed/allreduce/ring?ranks=4&lang=zh")
    assert response.status_code == 200 and html_lang(response) == "zh-Hans"
    assert "Set-Cookie" not in response.headers
    assert "Cookie" in response.headers["Vary"] and "Accept-Language" in response.headers["Vary"]


@pytest.mark.parametrize("path", ["/lab", "/api/collectives", "/embed/allreduce/ring"])
def test_an_unknown_language_is_refused_naming_the_field(app, path):
    response = app.test_client().get(f"{path}?lang=fr")
    assert response.status_code == 400
    assert "lang: must be one of en, zh, got 'fr'" in html.unescape(response.get_data(as_text=True))


def unnamed(runs: list[dict]) -> list[dict]:
    """The runs with their steps' phase names left out (they are said in the page's language)."""
    return [{**r, "steps": [{**s, "phase": None} for s in r["steps"]]} for r in runs]


def test_lang_is_no_field_of_what_an_endpoint_asks(app):
    """A strict API takes ?lang= (it is the request's, not a field of the query)."""
    client = app.test_client()
    query = "collective=allreduce&algorithms=ring,double_binary_tree&ranks=8&bytes=1000000"
    zh, en = (client.get(f"/api/race?{query}{lang}").get_json() for lang in ("&lang=zh", ""))
    assert unnamed(zh["runs"]) == unnamed(en["runs"])  # the same race
    assert zh["order"] == en["order"]
    assert zh["verdict"] != en["verdict"]  # said in Chinese


def test_the_switch_links_this_page_in_each_language(app):
    text = app.test_client().get("/lab?ranks=8&lang=zh").get_data(as_text=True)
    switch = re.search(r'<nav class="language-switch".*?</nav>', text, re.S).group(0)
    assert 'href="/lab?ranks=8&amp;lang=en"' in switch and 'lang="en"' in switch
    assert re.search(r'href="/lab\?ranks=8&amp;lang=zh"[^>]*aria-current="true"', switch)


def test_scripts_read_the_catalogs_messages_as_json(app):
    client = app.test_client()
    assert client.get("/i18n/en.json").get_json() == {}
    zh = client.get("/i18n/zh.json").get_json()
    assert zh["Dark theme"] == "深色主题"
    page = client.get("/?lang=zh").get_data(as_text=True)
    inline = re.search(r'id="messages-data">(.*?)</script>', page).group(1)
    assert "\\u6df1\\u8272\\u4e3b\\u9898" in inline  # 深色主题, JSON-escaped
    assert client.get("/i18n/fr.json").status_code == 400


def _extracted() -> set[str]:
    """Every msgid the sources mark now, read as `make messages` reads them."""
    method_map = [
        ("app/**.py", "python"),
        ("templates/**.html", "jinja2"),
        ("static/js/**.js", "javascript"),
    ]
    keywords = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None, "translate": (2,)}
    ids = set()

    def sources(path: str) -> bool:
        return path.split("/")[0] in ("app", "templates", "static")

    for _file, _line, message, _comments, _context in extract_from_dir(
        str(ROOT), method_map, keywords=keywords, directory_filter=sources
    ):
        ids.add(message if isinstance(message, str) else message[0])
    return ids


def test_every_marked_string_is_translated_in_the_catalog():
    with PO.open("rb") as f:
        catalog = read_po(f)
    translated = {m.id for m in catalog if m.id and m.string and not m.fuzzy}
    missing = sorted(_extracted() - translated)
    assert not missing, (
        f"{len(missing)} strings lack a Chinese translation (make messages): {missing[:20]}"
    )


def test_every_translation_keeps_its_placeholders():
    with PO.open("rb") as f:
        catalog = read_po(f)
    for m in catalog:
        if not m.id or not m.string:
            continue
        for pattern in (r"%\(\w+\)s", r"\{\w+\}"):
            assert sorted(re.findall(pattern, m.id)) == sorted(re.findall(pattern, m.string)), m.id
