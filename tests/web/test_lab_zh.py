"""The lab, its embed and the race in Chinese (issue 20): `?lang=zh` shows the controls, the
catalog's words and the first picture in Chinese, and the English pages keep their words."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest

from app.collectives import catalog
from app.i18n import NAMES
from app.i18n.catalog import translate

CJK = re.compile(r"[\u4e00-\u9fff]")
# Controls every lab page shows, as the templates write them in English.
LAB_WORDS = ("Run", "Share / embed", "Algorithm", "Elements per rank", "Topology", "Buffers")
EMBED_WORDS = ("Open in the full lab", "Topology", "Buffers")
RING = "/embed/allreduce/ring"


def zh(text: str, **values) -> str:
    """`text` as the zh catalog has it; a test of a string needs its translation to exist."""
    translated = translate("zh", text, **values)
    assert translated != text % values if values else translated != text, text
    return translated


def config(html: str, role: str = "lab-config") -> dict:
    body = re.search(rf'<script type="application/json" id="{role}">(.*?)</script>', html, re.S)
    return json.loads(unescape(body.group(1)))


def shows(html: str, text: str) -> bool:
    """Whether `text` is the whole text of an element (or of its start, before a child)."""
    return re.search(rf">\s*{re.escape(text)}\s*<", html) is not None


def without_switch(html: str) -> str:
    """The page without the language switch's own name for Chinese, which every page shows."""
    return html.replace(NAMES["zh"], "")


@pytest.mark.parametrize("url", ["/lab", "/lab?collective=allreduce&algorithm=ring"])
def test_lab_controls_in_chinese(client, url):
    html = client.get(url + ("&" if "?" in url else "?") + "lang=zh").get_data(as_text=True)
    for word in LAB_WORDS:
        assert shows(html, zh(word)), word
    assert zh("AllReduce") in html  # the collective's title in the form
    ring = next(e for e in catalog() if e["collective"] == "allreduce" and e["algorithm"] == "ring")
    sent = {e["algorithm"]: e for e in config(html)["catalog"] if e["collective"] == "allreduce"}
    assert sent["ring"]["description"] == zh(ring["description"])  # what the script shows
    assert '<html lang="zh-Hans"' in html


def test_lab_in_english_is_unchanged(client):
    html = client.get("/lab?lang=en").get_data(as_text=True)
    for word in LAB_WORDS:
        assert shows(html, word), word
    assert not CJK.search(without_switch(html))
    ring = next(e for e in catalog() if e["collective"] == "allreduce" and e["algorithm"] == "ring")
    assert ring["description"] in html


def test_embed_in_chinese_draws_its_first_picture_in_chinese(client):
    html = client.get(f"{RING}?lang=zh").get_data(as_text=True)
    for word in EMBED_WORDS:
        assert zh(word) in html, word
    assert zh("rank × chunk") in html  # the step-0 grid, drawn on the server
    assert zh("Step 0, before the first transfer: %(summary)s", summary="")[:4] in html
    english = client.get(f"{RING}?lang=en").get_data(as_text=True)
    for word in EMBED_WORDS:
        assert word in english, word
    assert "Step 0, before the first transfer" in english
    assert not CJK.search(without_switch(english))


def test_lab_error_page_frames_the_message_in_chinese(client):
    response = client.get(f"{RING}?lang=zh&ranks=999")
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert zh("That simulation cannot be shown") in html
    assert "ranks" in html  # the field's own message, as the server writes it


def test_race_and_its_topologies_in_chinese(client):
    html = client.get("/lab?mode=race&lang=zh").get_data(as_text=True)
    assert shows(html, zh("The race"))
    assert shows(html, zh("Message size"))
    titles = {c["name"]: c["title"] for c in config(html, "race-config")["collectives"]}
    assert titles["allreduce"] == zh("AllReduce")
    specs = client.get("/api/topologies?lang=zh").get_json()["topologies"]
    fat_tree = next(s for s in specs if s["name"] == "fat_tree")
    assert fat_tree["label"] == zh("Multi-node, rail-optimized fat-tree")
    english = client.get("/api/topologies?lang=en").get_json()["topologies"]
    assert next(s for s in english if s["name"] == "fat_tree")["label"] == (
        "Multi-node, rail-optimized fat-tree"
    )


def test_lab_scripts_get_their_messages_in_chinese(client):
    """The player's words come from the catalog in the page (#messages-data)."""
    html = client.get("/lab?lang=zh").get_data(as_text=True)
    messages = config(html, "messages-data")
    assert messages["step {k} of {n}"] == zh("step {k} of {n}")
    assert messages["Pause"] == zh("Pause")
