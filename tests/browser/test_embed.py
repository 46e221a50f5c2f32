"""The embed in real headless Chromium, in an iframe on a page of its own, as a wiki shows it."""

from __future__ import annotations

import functools
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from app import create_app
from tests.browser.test_lessons import FIXTURES
from tests.conftest import TEST_CONFIG, LiveServer

pytestmark = pytest.mark.browser

COUNTER = '[data-role="counter"]'
BADGE = '[data-role="badge"]'


@pytest.fixture
def wiki(tmp_path):
    """Serve `tmp_path` over http on 127.0.0.1 (another port, so another origin than the app)."""
    handler = functools.partial(QuietHandler, directory=str(tmp_path))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield tmp_path, f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def host_page(page, wiki, src: str, width: int = 760, height: int = 520):
    """Paste the embed snippet into a local HTML file, open it as a wiki page would be, and
    return the embed's frame.

    The file is served over http (CSP's frame-ancestors sources match network schemes, not
    about:blank or data:) from loopback (Chromium keeps other address spaces from framing
    local ones).
    """
    folder, url = wiki
    (folder / "wiki.html").write_text(
        '<!doctype html><title>wiki</title><link rel="icon" href="data:,"><h1>Our wiki</h1>'
        f'<iframe src="{src}" width="{width}" height="{height}" style="border:0"'
        ' title="Collective Lab"></iframe>'
    )
    page.goto(f"{url}/wiki.html")
    frame = page.wait_for_selector("iframe").content_frame()
    frame.wait_for_selector("body[class]")
    return frame


def watch_counter(frame, until: str, timeout_s: float = 60) -> list[str]:
    """Poll the step counter until it reads `until`; return every distinct value seen."""
    seen: list[str] = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = frame.locator(COUNTER).inner_text()
        if not seen or seen[-1] != text:
            seen.append(text)
        if text == until:
            return seen
        time.sleep(0.05)
    raise AssertionError(f"counter never read {until!r}; saw {seen}")


def test_embed_autoplays_to_the_end_inside_an_iframe(live_server, page, wiki):
    frame = host_page(
        page, wiki, f"{live_server.url}/embed/allreduce/ring?ranks=8&autoplay=1&speed=1"
    )
    seen = watch_counter(frame, "step 14 of 14")
    assert len(seen) >= 5, f"the animation should pass through the steps, saw {seen}"
    frame.wait_for_function(f"() => document.querySelector('{BADGE}').dataset.state === 'ok'")
    assert frame.locator(BADGE).inner_text() == "✓ result verified against numpy"
    assert frame.locator("h1").inner_text().startswith("AllReduce")
    link = frame.locator("a.embed-open")
    assert link.get_attribute("target") == "_blank"
    assert "/lab?collective=allreduce&algorithm=ring&ranks=8" in link.get_attribute("href")
    # sized to its iframe: nothing scrolls inside the frame
    assert frame.evaluate("document.documentElement.scrollHeight") <= 520
    assert frame.evaluate("document.documentElement.scrollWidth") <= 760
    shot = wiki[0] / "embed-in-iframe.png"
    page.screenshot(path=str(shot))
    print(f"\nscreenshot: {shot}")
    assert page.console_errors == []


def test_embed_waits_for_play_without_autoplay_and_steps_by_keyboard(live_server, page, wiki):
    frame = host_page(page, wiki, f"{live_server.url}/embed/allgather/ring?ranks=4")
    frame.wait_for_function(
        f"() => document.querySelector('{COUNTER}').textContent === 'step 0 of 3'"
        " && !document.querySelector('[data-role=play]').disabled"
    )
    time.sleep(0.5)
    assert frame.locator(COUNTER).inner_text() == "step 0 of 3"  # no autoplay: it waits
    frame.locator('[data-role="forward"]').click()
    assert frame.locator(COUNTER).inner_text() == "step 1 of 3"
    frame.locator("body").press("ArrowRight")
    assert frame.locator(COUNTER).inner_text() == "step 2 of 3"
    frame.locator("body").press("ArrowLeft")
    assert frame.locator(COUNTER).inner_text() == "step 1 of 3"
    frame.locator('[data-role="play"]').click()
    watch_counter(frame, "step 3 of 3", timeout_s=20)
    assert page.console_errors == []


def test_embed_loops_on_the_steps_it_has(live_server, page, wiki):
    frame = host_page(
        page, wiki, f"{live_server.url}/embed/allgather/ring?ranks=4&autoplay=1&loop=1&speed=8"
    )
    watch_counter(frame, "step 3 of 3")
    watch_counter(frame, "step 0 of 3", timeout_s=10)  # back to the start…
    watch_counter(frame, "step 3 of 3", timeout_s=10)  # …and through again
    assert frame.evaluate("window.labMetrics.simulateEmits") == 1
    assert page.console_errors == []


def test_embed_dark_theme(live_server, page, wiki):
    frame = host_page(
        page,
        wiki,
        f"{live_server.url}/embed/allreduce/double_binary_tree?ranks=8&autoplay=1&speed=8&theme=dark",
    )
    watch_counter(frame, "step 6 of 6")
    assert frame.evaluate("document.documentElement.dataset.theme") == "dark"
    background = frame.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(21, 23, 27)"
    shot = wiki[0] / "embed-dark.png"
    page.screenshot(path=str(shot))
    print(f"\nscreenshot: {shot}")
    assert page.console_errors == []


def test_embed_error_page_inside_an_iframe(live_server, page, wiki):
    frame = host_page(page, wiki, f"{live_server.url}/embed/allreduce/telepathy?ranks=8")
    assert "telepathy" in frame.locator('[data-role="error-message"]').inner_text()
    assert frame.locator("a", has_text="Open the lab").get_attribute("href") == "/lab"


def test_the_snippet_pasted_into_a_local_html_file_plays(live_server, page, tmp_path):
    # A learner saves the share dialog's snippet in a file and opens it: a file:// parent.
    snippet = (
        f'<iframe src="{live_server.url}/embed/allreduce/ring?ranks=4&autoplay=1&speed=4" '
        'width="640" height="480" title="Collective Lab"></iframe>'
    )
    local = tmp_path / "snippet.html"
    local.write_text(f"<!doctype html><title>notes</title>{snippet}")
    page.goto(local.as_uri())
    frame = page.wait_for_selector("iframe").content_frame()
    frame.wait_for_selector(COUNTER)
    watch_counter(frame, "step 6 of 6")
    frame.wait_for_function(f"() => document.querySelector('{BADGE}').dataset.state === 'ok'")
    assert page.console_errors == []


# -- sizing: the calculator embed at the snippet's size, and frames sized to their content ------

CALCULATORS = (
    "compare",
    "compression",
    "crossover",
    "ddp_overlap",
    "hierarchical",
    "moe",
    "parallelism_3d",
    "zero",
)
SNIPPET_FRAME = 'width="760" height="520" style="border:0;max-width:100%"'  # the share dialog's
OUT_OF_VIEW = """() => {
  const shown = (el) => {
    const r = el && el.getBoundingClientRect();
    return r && r.height > 0 && r.top >= 0 && r.left >= 0
      && r.bottom <= innerHeight && r.right <= innerWidth;
  };
  const parts = {
    "the answer": document.querySelector(".calc-outputs"),
    "the chart's plot area": document.querySelector(".calc-chart .nsewdrag"),
  };
  return Object.keys(parts).filter((name) => !shown(parts[name]));
}"""


def wiki_page(page, wiki, body: str):
    """Open a page of the other-origin wiki holding `body`."""
    folder, url = wiki
    (folder / "wiki.html").write_text(
        f'<!doctype html><title>wiki</title><link rel="icon" href="data:,">{body}'
    )
    page.goto(f"{url}/wiki.html")


@pytest.mark.parametrize("viewport", [(1280, 900), (390, 844)], ids=["desktop", "phone"])
def test_a_calculator_shows_its_answer_and_chart_inside_the_snippets_frame(
    browser, live_server, wiki, viewport
):
    width, height = viewport
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        for name in CALCULATORS:
            wiki_page(
                page,
                wiki,
                f'<iframe src="{live_server.url}/embed/calc/{name}" {SNIPPET_FRAME}'
                ' title="calculator"></iframe>',
            )
            frame = page.wait_for_selector("iframe").content_frame()
            frame.wait_for_selector(".calc-chart .main-svg")
            missing = frame.evaluate(OUT_OF_VIEW)
            assert missing == [], f"{name}: {missing} outside the {width}-wide page's frame"
            assert frame.evaluate("scrollY") == 0
    finally:
        context.close()


FRAME_FITS = """(selector) => {
  const f = document.querySelector(selector);
  const doc = f.contentDocument;
  return Boolean(doc && doc.querySelector(".calc-chart .main-svg")
    && f.clientHeight >= doc.documentElement.scrollHeight);
}"""


def test_the_resize_script_fits_a_marked_frame_to_its_calculator(page, live_server, wiki):
    src = f"{live_server.url}/embed/calc/ddp_overlap"
    wiki_page(
        page,
        wiki,
        f'<iframe id="sized" src="{src}" {SNIPPET_FRAME} title="sized" data-collective-lab>'
        f'</iframe><iframe id="plain" src="{src}" {SNIPPET_FRAME} title="plain"></iframe>'
        f'<script src="{live_server.url}/static/js/embed-resize.js" async></script>',
    )
    sized, plain = page.locator("#sized"), page.locator("#plain")
    frame = sized.element_handle().content_frame()
    frame.wait_for_selector(".calc-chart .main-svg")
    # Cross-origin: the page cannot read the frame, so compare the frame's own view of itself.
    frame.wait_for_function("() => innerHeight >= document.documentElement.scrollHeight")
    assert sized.bounding_box()["height"] > 520
    grown = sized.bounding_box()["height"]
    assert plain.bounding_box()["height"] == 520, "a frame without the attribute is left alone"
    # Only a marked frame's own window may size it; the page posting to itself changes nothing.
    page.evaluate("postMessage({type: 'collective-lab:height', height: 5000}, '*')")
    page.wait_for_timeout(300)
    assert sized.bounding_box()["height"] == grown
    assert page.console_errors == []


def test_the_share_dialog_offers_the_frame_and_its_resize_script(page, live_server, wiki):
    page.goto(f"{live_server.url}/lab?collective=allgather&algorithm=ring&ranks=4")
    page.click("#share")
    snippet = page.locator('[data-role="share-snippet"]').input_value()
    iframe, _, script = snippet.partition("</iframe>")
    assert " data-collective-lab" in iframe and 'width="760" height="520"' in iframe
    assert script.strip() == (
        f'<script src="{live_server.url}/static/js/embed-resize.js" async></script>'
    )
    page.console_errors.clear()  # the lab's own page is another test's business

    wiki_page(page, wiki, snippet)
    frame = page.wait_for_selector("iframe").content_frame()
    frame.wait_for_selector(COUNTER)
    assert page.evaluate("window.CollectiveLabResize === true"), "the script ran on the wiki"
    assert page.console_errors == []


def test_the_share_dialog_says_how_the_embed_will_behave(page, live_server):
    page.goto(f"{live_server.url}/lab?collective=allgather&algorithm=ring&ranks=4")
    page.click("#share")
    note = page.locator('[data-role="share-note"]')
    assert note.text_content() == "The embed autoplays and loops"
    page.keyboard.press("Escape")
    page.goto(f"{live_server.url}/lab?collective=allgather&algorithm=ring&ranks=4&predict=1")
    page.click("#share")
    assert "predict=1" in page.locator('[data-role="share-snippet"]').input_value()
    assert (
        note.text_content() == "The embed asks for a prediction before each step, then reveals it"
    )
    assert page.console_errors == []


@pytest.fixture(scope="module")
def fixture_lessons():
    """The fixture lessons: tree-basics holds a @calc compare."""
    with LiveServer(create_app({**TEST_CONFIG, "LESSONS_DIR": str(FIXTURES)})) as server:
        yield server


def test_a_lessons_calculator_frame_grows_to_fit_its_content(page, fixture_lessons):
    page.goto(f"{fixture_lessons.url}/lessons/tree-basics")
    selector = "figure.live-calc iframe"
    page.locator(selector).scroll_into_view_if_needed()
    page.wait_for_function(FRAME_FITS, arg=selector)
    frame = page.locator(selector).element_handle().content_frame()
    assert frame.evaluate("scrollY") == 0
    assert page.console_errors == []
