"""Script injection through every query parameter and form field, tried in real Chromium.

Seven classic payloads go into every query parameter and path segment of every page (the lab,
the embeds, the calculators, the lessons, the quiz) and into every field a user can type in
(the lab's number inputs, the lesson search box, the quiz's answer boxes), and into the lab's
selects through a tampered page (so the server's ack error, which quotes the value, is shown).
For each page:

- `window.__pwned` stays undefined and no dialog opens;
- no element carries an event-handler attribute, a `javascript:` URL or inline script code;
- the page reports no Content-Security-Policy violation: the payloads must be escaped into
  text, so there is nothing for the CSP to block (a report would mean markup got in, or
  that the policy blocks something of the app's own);
- the only console errors allowed are Chromium's "Failed to load resource" for the page
  itself when the page is an error page (a 400 or a 404), nothing else;
- where the payload is shown, it is shown as text (and `{{7*7}}` stays `{{7*7}}`);
- every HTML response carries a CSP whose script-src is 'self' with no 'unsafe-inline'.

The same matrix is also checked on the server's HTML alone (the test client), quickly and for
every calculator input and every payload, without a browser.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from urllib.parse import quote, urlsplit

import pytest
from playwright.sync_api import expect

from app import create_app
from app.costs.calculators import CALCULATORS
from app.quiz.bank import load_bank
from tests.conftest import TEST_CONFIG, empty_page

PAYLOADS = {
    "script": '"><script>window.__pwned=1</script>',
    "img-onerror": '<img src=x onerror="window.__pwned=1">',
    "javascript-url": "javascript:window.__pwned=1",
    "quote-break": "'-alert(1)-'",
    "script-close": "</script><script>window.__pwned=1</script>",
    "ssti": "{{7*7}}",
    "svg-onload": "<svg onload=window.__pwned=1>",
}
ERROR_TEXT = '[data-role="error-message"]'  # the lab's and the embed's friendly error page
FORBIDDEN_SCRIPT_SOURCES = ("'unsafe-inline'", "'unsafe-eval'", "*", "data:", "http:", "https:")
LOAD_FAILED = re.compile(r"^Failed to load resource: the server responded with a status of 4\d\d")

CSP_WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(
  `${e.violatedDirective} blocked ${e.blockedURI || "inline"} in ${e.sourceFile}:${e.lineNumber}`));
"""

SCAN = """
() => {
  const bad = [];
  const urlAttrs = ["href", "src", "action", "formaction", "data", "xlink:href", "srcdoc"];
  for (const el of document.querySelectorAll("*")) {
    for (const a of el.attributes) {
      const name = a.name.toLowerCase();
      if (name.startsWith("on")) bad.push(`${el.tagName} ${a.name}="${a.value}"`);
      if (urlAttrs.includes(name) && /^\\s*javascript:/i.test(a.value)) {
        bad.push(`${el.tagName} ${a.name}="${a.value}"`);
      }
    }
    if (el.tagName === "SCRIPT" && !el.src && el.type !== "application/json") {
      bad.push(`inline <script>: ${el.textContent.slice(0, 80)}`);
    }
    if (el.tagName === "IFRAME" && /^\\s*javascript:/i.test(el.getAttribute("src") || "")) {
      bad.push(`iframe src=${el.getAttribute("src")}`);
    }
  }
  return bad;
}
"""


def script_src(policy: str) -> list[str]:
    """Return the sources of the policy's script-src (or default-src) directive."""
    directives = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            directives[words[0].lower()] = words[1:]
    return directives.get("script-src", directives.get("default-src", []))


def check_csp_header(url: str, policy: str | None) -> None:
    assert policy, f"{url} has no Content-Security-Policy"
    sources = script_src(policy)
    assert "'self'" in sources, f"{url}: script-src is {sources}"
    for bad in FORBIDDEN_SCRIPT_SOURCES:
        assert bad not in sources, f"{url}: script-src allows {bad}: {policy}"


@dataclass
class Watch:
    """What a page did that an injection would show: dialogs, console errors, documents."""

    dialogs: list[str] = field(default_factory=list)
    console: list[tuple[str, str]] = field(default_factory=list)  # (text, location url)
    documents: list[tuple[str, int, str | None]] = field(default_factory=list)

    def clear(self) -> None:
        self.dialogs.clear()
        self.console.clear()
        self.documents.clear()


@pytest.fixture(scope="module")
def watched_page(browser):
    """One page for the module's browser tests, watched for dialogs, console errors, CSP
    reports and documents. A new page per test started a renderer each time: a third of these
    tests' time, for a check that `watched` makes on an emptied page anyway."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    watch = Watch()

    def dialog(d) -> None:
        watch.dialogs.append(f"{d.type}: {d.message}")
        d.dismiss()

    def console(message) -> None:
        if message.type == "error":
            watch.console.append((message.text, (message.location or {}).get("url", "")))

    def response(r) -> None:
        if r.request.resource_type == "document" or "text/html" in r.headers.get(
            "content-type", ""
        ):
            watch.documents.append((r.url, r.status, r.headers.get("content-security-policy")))

    page.on("dialog", dialog)
    page.on("console", console)
    page.on("pageerror", lambda e: watch.console.append((f"uncaught: {e}", "")))
    page.on("response", response)
    page.add_init_script(CSP_WATCH)
    page.watch = watch
    yield page
    context.close()


@pytest.fixture
def watched(watched_page, live_server):
    """The module's watched page, emptied for this test: the last test's document gone, the
    site's storage and cookies cleared, nothing recorded."""
    empty_page(watched_page, live_server.url)
    watched_page.watch.clear()
    return watched_page


def assert_inert(page, what: str, payload: str, shown_in: str | None = None) -> None:
    """Assert everything the module docstring lists, for the page as it is now."""
    watch: Watch = page.watch
    assert page.evaluate("typeof window.__pwned") == "undefined", f"{what}: the payload ran"
    assert watch.dialogs == [], f"{what}: a dialog opened: {watch.dialogs}"
    assert page.evaluate(SCAN) == [], f"{what}: injected markup: {page.evaluate(SCAN)}"
    assert page.evaluate("window.__csp") == [], (
        f"{what}: CSP reports: {page.evaluate('window.__csp')}"
    )
    error_pages = {url for url, status, _ in watch.documents if 400 <= status < 500}
    for text, url in watch.console:
        # Chromium logs the error page itself, and its own request for /favicon.ico after a
        # page without an icon link (werkzeug's plain 404 for a path that matches no route).
        allowed = LOAD_FAILED.match(text) and (
            url in error_pages or (error_pages and urlsplit(url).path == "/favicon.ico")
        )
        assert allowed, f"{what}: console error {text!r} at {url}"
    for url, status, policy in watch.documents:
        assert status < 500, f"{what}: {url} answered {status}"
        check_csp_header(url, policy)
    if shown_in is not None:
        text = page.locator(shown_in).first.text_content() or ""
        assert payload in text, f"{what}: {shown_in} shows {text!r}, not the payload as text"


def visit(page, url: str) -> None:
    page.watch.clear()
    page.goto(url, wait_until="load")


def q(text: str) -> str:
    return quote(text, safe="")


# -- the pages and their parameters ---------------------------------------------------------------

LAB_QUERIES = {  # parameter -> a query that makes the lab read it
    "collective": "",
    "algorithm": "collective=allreduce",
    "ranks": "collective=allreduce&algorithm=ring",
    "elements": "collective=allreduce&algorithm=ring",
    "op": "collective=allreduce&algorithm=ring",
    "root": "collective=reduce&algorithm=binomial_tree",
    "ranks_per_node": "collective=allreduce&algorithm=hierarchical&ranks=8",
    "speed": "collective=allreduce&algorithm=ring",
}
EMBED_QUERIES = {  # parameter -> (collective/algorithm, other query)
    "theme": ("allreduce/ring", ""),
    "ranks": ("allreduce/ring", ""),
    "elements": ("allreduce/ring", ""),
    "op": ("allreduce/ring", ""),
    "root": ("reduce/binomial_tree", ""),
    "ranks_per_node": ("allreduce/hierarchical", "ranks=8"),
    "speed": ("allreduce/ring", ""),
    "autoplay": ("allreduce/ring", ""),
    "loop": ("allreduce/ring", ""),
}


RACE_QUERY = (  # a race the race pages accept: one bad field after it is the page's to refuse
    "collective=allreduce&algorithms=ring,direct&ranks=4&bytes=1024&topology=nvswitch"
)
RACE_PAGE_KEYS = ("collective", "algorithms", "ranks", "bytes", "topology", "preset", "mapping")
RACE_PAGE_KEYS += ("gpus", "speed", "autoplay")


def page_cases() -> list[tuple[str, str, str | None]]:
    """List (id, URL with {p} for the payload, the element that shows it back, if any)."""
    lab_error = ERROR_TEXT
    cases = []
    for name, base in LAB_QUERIES.items():
        cases.append((f"lab ?{name}", f"/lab?{base}&{name}={{p}}", lab_error))
    cases.append(("lab unknown key", "/lab?{p}=1&collective=allreduce", None))
    cases.append(("embed /<collective>", "/embed/{p}/ring", lab_error))
    cases.append(("embed /<algorithm>", "/embed/allreduce/{p}", lab_error))
    for name, (path, base) in EMBED_QUERIES.items():
        cases.append((f"embed ?{name}", f"/embed/{path}?{base}&{name}={{p}}", lab_error))
    cases.append(("embed root ?theme", "/embed/?theme={p}", None))
    cases.append(("lab ?mode", "/lab?mode={p}", lab_error))
    cases.append(("race unknown key", "/lab?mode=race&{p}=1", None))
    for name in RACE_PAGE_KEYS:  # the race's own messages may shorten what they show back
        cases.append((f"race ?{name}", f"/lab?mode=race&{RACE_QUERY}&{name}={{p}}", None))
    cases.append(("embed/race ?theme", f"/embed/race?{RACE_QUERY}&theme={{p}}", lab_error))
    cases.append(("embed/race ?algorithms", "/embed/race?algorithms={p}", None))
    cases.append(("calculators ?any", "/calculators?{p}={p}", None))
    cases.append(("embed/calc /<name>", "/embed/calc/{p}", ".error-box"))
    cases.append(("embed/calc ?theme", "/embed/calc/zero?theme={p}", ".error-box"))
    cases.append(("embed/calc unknown input", "/embed/calc/zero?{p}=1", ".error-box"))
    cases.append(("lessons /<slug>", "/lessons/{p}", ".lesson-missing"))
    cases.append(("lessons ?q", "/lessons/?q={p}", "#search-results"))
    cases.append(("lesson ?instructor", "/lessons/ring-allreduce?instructor={p}", None))
    quiz = "/quiz?tags={p}&topics={p}&difficulty={p}&count={p}"
    cases.append(("quiz ?tags&topics&difficulty&count", quiz, None))
    cases.append(("home ?any", "/?{p}={p}", None))
    cases.append(("class ?code", "/class?code={p}", "#join-problem"))
    cases.append(("class /<code>", "/class/{p}", '[data-role="error-message"]'))
    return cases


def calc_input_cases() -> list[tuple[str, str]]:
    """List (calculator, input) for every input of every calculator."""
    return [(name, f.name) for name, spec in CALCULATORS.items() for f in spec.fields]


# -- on the server's HTML alone -------------------------------------------------------------------


@pytest.fixture(scope="module")
def http():
    return create_app(TEST_CONFIG).test_client()


RAW_MARKUP = re.compile(r"<(script|img|svg)\b[^>]*(__pwned|onerror|onload)", re.IGNORECASE)


def served_html(http, url: str):
    response = http.get(url)
    assert response.status_code < 500, f"{url} -> {response.status_code}"
    return response, response.get_data(as_text=True)


@pytest.mark.parametrize("payload", list(PAYLOADS.values()), ids=list(PAYLOADS))
@pytest.mark.parametrize(
    ("case", "template", "where"), page_cases(), ids=[c[0] for c in page_cases()]
)
def test_the_server_escapes_every_parameter_of_every_page(http, case, template, where, payload):
    url = template.format(p=q(payload))
    response, html = served_html(http, url)
    check_csp_header(url, response.headers.get("Content-Security-Policy"))
    assert not RAW_MARKUP.search(html), f"{url} puts the payload in as markup"
    assert payload not in html or "<" not in payload, f"{url} echoes {payload!r} raw"
    if payload == PAYLOADS["ssti"]:
        plain = http.get(template.format(p=q("{{7+0}}"))).get_data(as_text=True)
        assert html.count("49") <= plain.count("49"), f"{url} evaluated {{{{7*7}}}}"


@pytest.mark.parametrize(
    ("calc", "name"), calc_input_cases(), ids=[f"{c}.{n}" for c, n in calc_input_cases()]
)
def test_the_server_escapes_every_calculator_input(http, calc, name):
    for payload in PAYLOADS.values():
        url = f"/embed/calc/{calc}?{name}={q(payload)}"
        response, html = served_html(http, url)
        check_csp_header(url, response.headers.get("Content-Security-Policy"))
        assert not RAW_MARKUP.search(html), f"{url} puts the payload in as markup"
        assert payload not in html or "<" not in payload, f"{url} echoes {payload!r} raw"


ERROR_URLS = [
    "/no-such-page",
    "/lab?ranks=999",
    "/embed/allreduce/nope",
    "/embed/calc/nope",
    "/lessons/nope",
    "/static/nope.js",
]


@pytest.mark.parametrize("url", ERROR_URLS)
def test_error_pages_have_the_script_policy_too(http, url):
    response = http.get(url)
    assert response.status_code in (400, 404)
    check_csp_header(url, response.headers.get("Content-Security-Policy"))


def test_every_html_page_of_the_app_has_the_script_policy(http):
    samples = {
        "collective": "allreduce",
        "algorithm": "ring",
        "name": "zero",
        "slug": "primitives",
        "code": "ACK3D7",
        "drill_id": "ring-allreduce",
        "prompt_id": "hang-triage",
        "lang": "zh",
    }
    app = http.application
    checked = 0
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods or rule.rule.startswith(("/api/", "/static/")):
            continue
        url = app.url_map.bind("localhost").build(
            rule.endpoint, {a: samples[a] for a in rule.arguments}
        )
        response = http.get(url)
        if response.mimetype == "text/html":
            check_csp_header(url, response.headers.get("Content-Security-Policy"))
            checked += 1
    assert checked >= 8


# -- in Chromium: every page and parameter --------------------------------------------------------


def browser_payloads(case: str) -> list[tuple[str, str]]:
    """One payload for one page parameter in Chromium, turning through the list case by case.

    The server-side test above sends every payload to every parameter; in the browser each
    kind comes to four or five parameters, so the page sinks meet markup, attribute breaks and
    script URLs without 224 page loads (a fifth of the browser suite's time)."""
    cases = [c[0] for c in page_cases()]
    items = list(PAYLOADS.items())
    return [items[cases.index(case) % len(items)]]


# What a user can type or choose in the lab: markup, an event handler, a script URL and a
# quote break (the others differ only in which tag carries the script).
TYPED = ("script", "img-onerror", "javascript-url", "quote-break")


@pytest.mark.browser
@pytest.mark.server
@pytest.mark.parametrize(
    ("case", "template", "where"), page_cases(), ids=[c[0] for c in page_cases()]
)
def test_no_payload_runs_through_a_page_parameter(watched, live_server, case, template, where):
    for name, payload in browser_payloads(case):
        path = template.format(p=q(payload))
        visit(watched, live_server.url + path)
        # A "/" in a path segment leaves the route: a plain 404 page that shows nothing back.
        leaves_route = "{p}" in urlsplit(template).path and "/" in payload
        shown = None if leaves_route else where
        assert_inert(watched, f"{case} with {name} ({path})", payload, shown)


@pytest.mark.browser
@pytest.mark.server
@pytest.mark.parametrize("calc", list(CALCULATORS))
def test_no_payload_runs_through_a_calculator_input(watched, live_server, calc):
    # Every input's error lands in the same error box, and the server-side test above sends every
    # payload to every input: here two inputs of each calculator, with two kinds of payload,
    # turning through the list calculator by calculator.
    names = [f.name for f in CALCULATORS[calc].fields]
    payloads = list(PAYLOADS.items())
    k = list(CALCULATORS).index(calc)
    for i, name in enumerate((names[0], names[-1])):
        label, payload = payloads[(2 * k + i) % len(payloads)]
        visit(watched, f"{live_server.url}/embed/calc/{calc}?{name}={q(payload)}")
        expect(watched.locator(".calc-widget .error-box")).to_be_visible()
        assert_inert(watched, f"{calc}.{name} with {label}", payload, ".calc-widget .error-box")


# -- in Chromium: what a user types ---------------------------------------------------------------

COUNTER = '.player [data-role="counter"]'
BADGE = '.player [data-role="badge"]'


def open_lab(page, live_server, query: str) -> None:
    visit(page, f"{live_server.url}/lab?{query}")
    page.wait_for_function("() => document.documentElement.dataset.socket === 'connected'")


@pytest.mark.browser
@pytest.mark.server
@pytest.mark.parametrize(
    ("field_id", "query"),
    [
        ("elements", "collective=allreduce&algorithm=ring&ranks=4&speed=8"),
        ("root", "collective=reduce&algorithm=binomial_tree&ranks=4&speed=8"),
    ],
)
def test_typing_payloads_into_the_lab_inputs_runs_nothing(watched, live_server, field_id, query):
    for label in TYPED:
        payload = PAYLOADS[label]
        open_lab(watched, live_server, query)
        box = watched.locator(f"#{field_id}")
        box.fill("")
        box.press_sequentially(payload)  # a number box keeps only what a number can hold
        watched.click("#run")
        # The run ends, or the server refuses it, or the browser refuses the form itself (a
        # number box holding "-" or "e" is invalid, and Run then only shows the browser's hint).
        watched.wait_for_function(  # a function: a string would be eval'd, which the CSP forbids
            f"() => document.querySelector('{BADGE}').dataset.state === 'ok' || "
            "!document.querySelector('.lab [data-role=error]').hidden || "
            "!document.getElementById('lab-form').checkValidity()",
            timeout=30_000,
        )
        assert_inert(watched, f"lab #{field_id} typed {label}", payload)


@pytest.mark.browser
@pytest.mark.server
@pytest.mark.parametrize("select_id", ["algorithm", "op"])
def test_a_tampered_select_value_comes_back_in_the_error_as_text(watched, live_server, select_id):
    for label in TYPED:
        payload = PAYLOADS[label]
        open_lab(watched, live_server, "collective=allreduce&algorithm=ring&ranks=4")
        watched.evaluate(
            "([id, value]) => { const s = document.getElementById(id);"
            " s.add(new Option(value, value)); s.value = value; }",
            [select_id, payload],
        )
        watched.click("#run")
        error = watched.locator(".lab [data-role=error]")
        expect(error).to_be_visible(timeout=10_000)
        # The server quotes the value as JSON, cut to 40 characters.
        quoted = json.dumps(payload)
        quoted = quoted if len(quoted) <= 40 else quoted[:37]
        expect(error).to_contain_text(f"{select_id} must be one of")
        assert quoted in (error.text_content() or ""), error.text_content()
        assert_inert(watched, f"lab #{select_id} set to {label}", payload)


@pytest.mark.browser
@pytest.mark.server
def test_the_lesson_search_box_shows_payloads_as_text(watched, live_server):
    for label, payload in PAYLOADS.items():
        visit(watched, f"{live_server.url}/lessons/")
        watched.fill("#lesson-search", payload)
        results = watched.locator("#search-results")
        expect(results).to_contain_text(payload)
        watched.press("#lesson-search", "Enter")
        expect(results).to_contain_text(payload)
        assert_inert(watched, f"lesson search typed {label}", payload, "#search-results")
        # Without JavaScript's help: the server's own results page for the same query.
        visit(watched, f"{live_server.url}/lessons/?q={q(payload)}")
        assert watched.input_value("#lesson-search") == payload
        assert_inert(watched, f"lesson search page for {label}", payload, "#search-results")


@pytest.mark.browser
@pytest.mark.server
def test_payloads_typed_as_quiz_answers_run_nothing(watched, live_server):
    # Named questions, not a random draw: three of each kind, so both inputs always meet them.
    questions = load_bank().questions
    ids = [q.id for q in questions if q.kind == "numeric"][:3]
    ids += [q.id for q in questions if q.kind == "explain"][:3]
    visit(watched, f"{live_server.url}/quiz")
    watched.evaluate(
        "ids => CollectiveLab.quizPage.begin(new URLSearchParams({ids: ids.join(',')}))", ids
    )
    payloads = list(PAYLOADS.items())
    seen = set()
    for n in range(6):
        card = watched.locator(".question-card")
        expect(card).to_be_visible()
        kind = card.get_attribute("data-kind")
        seen.add(kind)
        label, payload = payloads[n % len(payloads)]
        if kind == "numeric":
            watched.fill(".numeric-input", payload)
            watched.press(".numeric-input", "Enter")
            expect(watched.locator(".quiz-error")).to_contain_text("Enter a number")
            assert_inert(watched, f"numeric answer {label}", payload)
            watched.fill(".numeric-input", "1")
            watched.press(".numeric-input", "Enter")
        else:
            watched.fill(".explain textarea", payload)
            watched.press(".explain textarea", "Control+Enter")
        expect(watched.locator(".feedback .verdict")).to_be_visible()
        assert_inert(watched, f"{kind} answer {label}", payload)
        watched.keyboard.press("n")
    assert seen == {"numeric", "explain"}
