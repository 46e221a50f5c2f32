"""The calculators in Chinese (?lang=zh): the same numbers as in English, every label, help
text, result label and note in Chinese, identifiers left alone, and the English unchanged."""

from __future__ import annotations

import json
import re

import pytest
from markupsafe import escape

from app.costs.calculators import CALCULATORS
from app.costs.calculators.query import run_widget
from app.i18n.catalog import translate

CJK = re.compile(r"[\u4e00-\u9fff]")
WORD = re.compile(r"\b[a-z]{3,}\b")  # English prose to translate; "(b) RS → AR → AG" has none
DATA = re.compile(r'<script type="application/json" data-role="calc-data">(.*?)</script>', re.S)


def widget(client, url: str) -> dict:
    """The first widget's data on the page at `url`: spec, values and result."""
    response = client.get(url)
    assert response.status_code == 200
    return json.loads(DATA.search(response.get_data(as_text=True)).group(1))


def must_be_chinese(text: str) -> bool:
    """Whether `text` holds English words a Chinese reader must read: then it needs Chinese."""
    return bool(WORD.search(text.lower())) and not any(
        word in {"ring", "busbw", "nccl", "tests"} for word in WORD.findall(text.lower())
    )


@pytest.mark.parametrize("name", list(CALCULATORS))
def test_embed_in_chinese_has_the_english_numbers_and_chinese_words(client, name):
    en = widget(client, f"/embed/calc/{name}")
    zh = widget(client, f"/embed/calc/{name}?lang=zh")

    # The English is the calculator's own: titles, labels and results as app.costs writes them.
    spec = CALCULATORS[name]
    assert en["spec"]["title"] == spec.title
    assert [f["label"] for f in en["spec"]["fields"]] == [f.label for f in spec.fields]
    own = run_widget(name, {})[0]
    assert [o["label"] for o in en["result"]["outputs"]] == [o.label for o in own.outputs]
    assert en["result"]["notes"] == list(own.notes)

    # The same numbers, inputs, formula and choice values in both languages.
    assert zh["values"] == en["values"]
    for a, b in zip(zh["result"]["outputs"], en["result"]["outputs"], strict=True):
        assert a["key"] == b["key"] and a["kind"] == b["kind"]
        if b["kind"] != "text":
            assert a["value"] == b["value"]
    assert zh["result"]["formula"] == en["result"]["formula"]
    table_zh, table_en = zh["result"]["table"], en["result"]["table"]
    for row_zh, row_en in zip(table_zh.get("rows", []), table_en.get("rows", []), strict=True):
        kinds = table_en["kinds"]
        assert [v for v, k in zip(row_zh, kinds, strict=True) if k != "text"] == [
            v for v, k in zip(row_en, kinds, strict=True) if k != "text"
        ]
    for fz, fe in zip(zh["spec"]["fields"], en["spec"]["fields"], strict=True):
        assert [c["value"] for c in fz.get("choices", [])] == [
            c["value"] for c in fe.get("choices", [])
        ]
        # Algorithm and collective names stay identifiers.
        for cz, ce in zip(fz.get("choices", []), fe.get("choices", []), strict=True):
            if ce["label"] == ce["value"]:
                assert cz["label"] == ce["label"]

    # Every word a reader must read is Chinese.
    texts = [zh["spec"]["title"], zh["spec"]["summary"], *zh["result"]["notes"]]
    for f in zh["spec"]["fields"]:
        texts += [f["label"], f["help"]]
    texts += [o["label"] for o in zh["result"]["outputs"]]
    texts += zh["result"]["table"].get("columns", [])
    texts += [chart["title"] for chart in zh["result"]["charts"]]
    english = [t for t in texts if t and must_be_chinese(t) and not CJK.search(t)]
    assert english == []


def test_the_calculators_page_in_chinese(client):
    en = client.get("/calculators").get_data(as_text=True)
    zh = client.get("/calculators?lang=zh").get_data(as_text=True)
    assert "<h1>计算器</h1>" in zh and "<h1>Calculators</h1>" in en
    for spec in CALCULATORS.values():
        title = translate("zh", spec.title)
        assert CJK.search(title) and f">{escape(title)}</a>" in zh
        assert f">{escape(spec.title)}</a>" in en
    for english, chinese in (
        ("Formula", "公式"),
        ("Units", "单位"),
        ("Bandwidth unit", "带宽单位"),
    ):
        assert english in en and chinese in zh
    assert "The alpha-beta model behind every number" in en


def test_a_missing_calculator_is_named_in_chinese(client):
    english = client.get("/api/calc/nope").get_json()["error"]
    page = client.get("/embed/calc/nope?lang=zh")
    api = client.get("/api/calc/nope?lang=zh")
    assert page.status_code == api.status_code == 404
    assert "没有计算器 &#39;nope&#39;" in page.get_data(as_text=True)
    assert api.get_json()["error"].startswith("没有计算器 'nope'")
    assert english.startswith("no calculator 'nope'")


def test_the_api_answers_in_the_asked_language(client):
    zh = client.get("/api/calc/crossover?lang=zh&message_bytes=1024").get_json()
    en = client.get("/api/calc/crossover?message_bytes=1024").get_json()
    regime = {o["key"]: o for o in zh["outputs"]}["regime"]
    assert regime["value"] == "时延受限" and regime["label"] == "在 1 KiB 时"
    assert {o["key"]: o for o in en["outputs"]}["regime"]["value"] == "latency-bound"
    specs = client.get("/api/calc?lang=zh").get_json()
    assert [s["name"] for s in specs] == list(CALCULATORS)
    assert all(CJK.search(s["title"]) for s in specs)


def test_a_widgets_error_is_in_the_pages_language(client):
    box = re.compile(r'data-role="error" role="alert">(.*?)</p>')
    en = box.search(client.get("/embed/calc/compare?ranks=99999").get_data(as_text=True))
    zh = box.search(client.get("/embed/calc/compare?ranks=99999&lang=zh").get_data(as_text=True))
    assert en.group(1).startswith("ranks must be") and "99999" in en.group(1)
    assert zh.group(1).startswith("ranks ") and CJK.search(zh.group(1)) and "99999" in zh.group(1)
