"""Every lesson page in Chinese reads in Chinese: its rendered text (lesson and page around it,
figure captions and diagram words included) holds no run of three English words outside code,
formulas, a full-width gloss and what is marked lang="en" or translate="no".

The same rule as tests/browser/test_zh_pages.py, read from the server's HTML: every lesson
page shares one template, which the browser test reads in Chromium on one lesson; the prose of
all of them is read here, without a browser per lesson."""

from __future__ import annotations

import pytest

from app.course import LESSONS_DIR
from tests.browser.test_zh_pages import english_left
from tests.lessons.htmltools import Element, parse

SLUGS = sorted(p.stem for p in LESSONS_DIR.glob("*.md"))
SKIP_TAGS = {"script", "style", "template", "noscript", "code", "pre", "kbd", "samp", "var", "math"}


def reader_text(element: Element) -> list[str]:
    """The text nodes a reader of `element` gets, less what is English on purpose."""
    if element.tag in SKIP_TAGS or "hidden" in element.attrs:
        return []
    if element.attrs.get("lang", "").startswith("en") or element.attrs.get("translate") == "no":
        return []
    out = []
    for name in ("aria-label", "title", "placeholder", "alt"):
        if element.attrs.get(name):
            out.append(element.attrs[name])
    for child in element.children:
        out += [child.strip()] if isinstance(child, str) else reader_text(child)
    return [t for t in out if t]


@pytest.fixture(scope="module")
def zh_client():
    from app.web.factory import create_app

    return create_app({"TESTING": True}).test_client()


@pytest.mark.parametrize("slug", SLUGS)
def test_a_chinese_lesson_page_has_no_english_sentence(zh_client, slug):
    page = zh_client.get(f"/lessons/{slug}?lang=zh")
    assert page.status_code == 200
    main = parse(page.get_data(as_text=True)).find("main")
    left = english_left(reader_text(main))
    assert not left, f"/lessons/{slug}?lang=zh: " + " | ".join(left[:12])
