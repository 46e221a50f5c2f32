"""Every page in Chinese shows no English a reader must read.

Each page is opened with ?lang=zh in Chromium and its visible text read: every text node a
reader sees, and the labels a screen reader speaks (aria-label, title, placeholder, alt). A
run of three or more English words there is an untranslated UI string or sentence. What is
English on purpose is marked so in the page and left out: code (code, pre, kbd, samp, var),
formulas (math), and anything in an element with lang="en" (a paper's title in Further
reading) or translate="no" (a command, an identifier). Single English words and pairs are
fine: product names, NCCL's own names and the English term beside its Chinese one.
Embedded frames are pages of their own here (the /embed/ paths), not read from inside the
lesson that frames them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.costs.calculators import CALCULATORS
from app.i18n.phases import phase_name
from app.toolkit.drills import drills

pytestmark = [pytest.mark.browser, pytest.mark.server]

ROOT = Path(__file__).resolve().parents[2]
RACE_EMBED = (
    "/embed/race?collective=allreduce&algorithms=ring,direct&ranks=4&bytes=1024&topology=nvswitch"
)
PAGES = [
    "/",
    "/lab",
    "/lab?mode=race",
    "/lessons/",
    "/lessons/glossary",
    "/lessons/?q=全规约",
    "/lessons/ring-allreduce",  # the lesson template; every lesson's text: tests/lessons/
    "/quiz",
    "/calculators",
    *[f"/embed/calc/{name}" for name in sorted(CALCULATORS)],
    "/embed/allreduce/ring?ranks=4",
    "/embed/reduce/binomial_tree?ranks=8&root=2",
    RACE_EMBED,
    "/toolkit",
    "/toolkit/cheatsheet",
    "/class",
    "/class/ACDEFG",
    "/nccl-tests",
    "/nccl-log",
    "/measure",
    "/no-such-page",
]
READY = {
    "/lab": '[data-role="counter"]',
    "/lab?mode=race": '[data-role="clock-crossovers"]',
    RACE_EMBED: ".lane",
    "/embed/allreduce/ring?ranks=4": '[data-role="counter"]',
    "/embed/reduce/binomial_tree?ranks=8&root=2": '[data-role="counter"]',
    "/class/ACDEFG": '[data-role="join-card"]',
}
# Three English words in a row (a hyphenated compound is one word), outside a full-width
# parenthesis: 可扩展可靠数据报（Scalable Reliable Datagram）is the English term beside its Chinese.
ENGLISH_RUN = re.compile(r"\b[A-Za-z][A-Za-z'’-]*[a-z](?: [A-Za-z][A-Za-z'’-]*[a-z]){2,}\b")
GLOSS = re.compile(r"（[^）]*）")

READ_PAGE = """() => {
  const skip = 'script, style, template, noscript, code, pre, kbd, samp, var, math, '
    + '[lang^="en"], [translate="no"], [hidden], [aria-hidden="true"]';
  const seen = (el) => el.getClientRects().length > 0
    && getComputedStyle(el).visibility !== 'hidden';
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const text = node.textContent.trim();
    if (text && el && !el.closest(skip) && seen(el)) out.push(text);
  }
  for (const el of document.body.querySelectorAll('[aria-label], [title], [placeholder], [alt]')) {
    if (el.closest(skip)) continue;
    for (const name of ['aria-label', 'title', 'placeholder', 'alt']) {
      const value = el.getAttribute(name);
      if (value) out.push(value.trim());
    }
  }
  return out;
}"""


def english_left(texts: list[str]) -> list[str]:
    """The texts holding a run of three or more English words that is not a proper name (a
    name has every word capitalised: Elastic Fabric Adapter, Nsight Systems)."""
    return sorted(
        {t[:120] for t in texts if any(map(_sentence, ENGLISH_RUN.finditer(GLOSS.sub("", t))))}
    )


def _sentence(run: re.Match) -> bool:
    return not all(word[0].isupper() for word in run.group().split())


@pytest.fixture(scope="module")
def zh_page(browser, live_server):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")

    # A lesson's iframes get an empty page: each embed is checked on its own, as a page.
    def frames_empty(route):
        if route.request.frame.parent_frame is not None:
            route.fulfill(body="", content_type="text/html")
        else:
            route.continue_()

    context.route("**/embed/**", frames_empty)
    page = context.new_page()
    yield page
    context.close()


def open_zh(page, base: str, path: str) -> None:
    joiner = "&" if "?" in path else "?"
    page.goto(f"{base}{path}{joiner}lang=zh")
    if path in READY:
        page.wait_for_selector(READY[path])
    assert page.evaluate("document.documentElement.lang") == "zh-Hans", path


@pytest.mark.parametrize("path", PAGES)
def test_a_chinese_page_shows_no_english_sentence(zh_page, live_server, path):
    open_zh(zh_page, live_server.url, path)
    left = english_left(zh_page.evaluate(READ_PAGE))
    assert not left, f"{path}?lang=zh shows English: " + " | ".join(left[:15])


def test_the_drills_read_in_chinese(zh_page, live_server):
    for drill in list(drills().values())[:3]:
        open_zh(zh_page, live_server.url, f"/toolkit/drills/{drill.id}")
        left = english_left(zh_page.evaluate(READ_PAGE))
        assert not left, f"drill {drill.id}: " + " | ".join(left[:10])


def test_the_check_finds_english_it_must_find():
    texts = [
        "每个 rank 发送 one chunk per step",
        "数据报（Scalable Reliable Datagram）",
        "peer-to-peer P2P",
    ]
    assert english_left(texts) == ["每个 rank 发送 one chunk per step"]


def test_the_labs_phase_badge_names_each_phase_in_chinese(zh_page, live_server):
    query = "collective=broadcast&algorithm=binomial_tree&ranks=8&speed=8"
    open_zh(zh_page, live_server.url, f"/lab?{query}")
    zh_page.wait_for_function("() => document.documentElement.dataset.socket === 'connected'")
    zh_page.click("#run")
    zh_page.wait_for_function(
        "() => document.querySelector('.player [data-role=\"badge\"]').dataset.state === 'ok'",
        timeout=60_000,
    )
    zh_page.keyboard.press("Home")
    zh_page.keyboard.press("ArrowRight")
    phase = zh_page.locator('.player [data-role="phase"]').inner_text()
    assert phase == phase_name("broadcast down the binomial tree", "zh") == "沿二项树向下广播"
