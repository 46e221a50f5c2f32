"""The calculators' words in the page's language: app/costs marks its titles, labels, help
texts, result labels and word values, the sentence under the answer, table headings, chart
titles and legends and notes with `N_`, and sends English; the pages and /api/calc translate
the marked text here, in the request's language, before the JSON leaves. Unmarked text
(algorithm and collective names), numbers and formulas stay as the cost model wrote them.
"""

from __future__ import annotations

from functools import partial

from app.i18n.catalog import translate_text

from .i18n import page_language


def spec_text(spec: dict, lang: str | None = None) -> dict:
    """Return a calculator's spec (`Calculator.as_dict()`) with its words in `lang` (the
    request's language by default)."""
    words = partial(translate_text, lang or page_language())
    fields = []
    for f in spec["fields"]:
        field = {**f, "label": words(f["label"]), "help": words(f["help"])}
        if "choices" in f:
            field["choices"] = [{**c, "label": words(c["label"])} for c in f["choices"]]
        fields.append(field)
    return {
        **spec,
        "title": words(spec["title"]),
        "summary": words(spec["summary"]),
        "fields": fields,
    }


def result_text(result: dict, lang: str | None = None) -> dict:
    """Return a calculator's result (`Result.as_dict()`) with its labels, word values, sentence,
    table headings and cells, charts' words and notes in `lang` (the request's language by
    default)."""
    words = partial(translate_text, lang or page_language())
    out = {
        **result,
        "outputs": [
            {**o, "label": words(o["label"]), "value": words(o["value"])} for o in result["outputs"]
        ],
        "charts": [_chart(chart, words) for chart in result["charts"]],
        "interpretation": words(result["interpretation"]),
        "notes": [words(note) for note in result["notes"]],
    }
    table = result.get("table") or {}
    if "columns" in table:
        out["table"] = {
            **table,
            "columns": [words(title) for title in table["columns"]],
            "rows": [[words(v) for v in row] for row in table["rows"]],
        }
    return out


def _chart(chart: dict, words) -> dict:
    """One chart's title, categories, legend names and bar labels through `words`."""
    out = {**chart, "title": words(chart["title"])}
    if "categories" in chart:
        out["categories"] = [words(c) for c in chart["categories"]]
    if "stacks" in chart:
        out["stacks"] = [{**s, "name": words(s["name"])} for s in chart["stacks"]]
    if "series" in chart:
        out["series"] = [{**s, "name": words(s["name"])} for s in chart["series"]]
    if "rows" in chart:
        out["rows"] = [
            {**r, "group": words(r["group"]), "label": words(r["label"])} for r in chart["rows"]
        ]
    if "markers" in chart:
        out["markers"] = [{**m, "label": words(m["label"])} for m in chart["markers"]]
    return out
