"""Property-based fuzzing of every HTTP endpoint: bad input never gets a 5xx or a traceback.

Every rule of `app.url_map` is fuzzed with the methods it accepts, so a new endpoint is
covered without touching this file. Hypothesis draws query strings and bodies of every shape:
wrong types, huge integers, NaN and Infinity literals, negatives, unicode with surrogates and
right-to-left marks, 5,000-level nesting, very long strings, bodies over MAX_CONTENT_LENGTH,
wrong content types, invalid UTF-8 and duplicate keys. For every answer:

- the status is below 500, and no body carries a traceback or a file path;
- an /api/ answer in 4xx is JSON `{"error": str}` whose message names the offending field
  (one of the endpoint's own field names, a key the request made up) or the body;
- a marker in the input never comes back as markup in an HTML page;
- afterwards the server answers its probes (the catalog, a normal simulation, a cost, a
  calculator, the quiz topics, a search) byte for byte as it did before the fuzzing.

The example counts are bounded and the runs derandomized, so the file takes well under a
minute and a failure reproduces in CI.
"""

from __future__ import annotations

import json
import logging
import math
import re
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest
from flask import got_request_exception
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app import create_app
from app.collectives import catalog, max_elements
from app.costs import HARDWARE
from app.costs.calculators import CALCULATORS
from app.costs.calculators.query import COMPARE_PARAMS, COST_PARAMS
from app.fabric import TOPOLOGIES
from app.quiz import grading, tokens
from app.toolkit import design, drills, layout
from app.web import params
from app.web.api import nccl_model as nccl_model_api
from app.web.api.nccl_tests import FIELDS as NCCL_TESTS_FIELDS
from app.web.api.race import RACE_FIELDS, SWEEP_FIELDS
from app.web.pages import calculators as calculator_pages
from tests.conftest import TEST_CONFIG

ROOT = Path(__file__).resolve().parents[2]
SECRET = "fuzz-secret"  # known here, so fuzzed quiz parameters can be signed and go deep
CONFIG = {
    **TEST_CONFIG,
    "PROPAGATE_EXCEPTIONS": False,  # a crash must show as the 500 a user would get
    "SECRET_KEY": SECRET,
}
MAX_BODY = create_app(CONFIG).config["MAX_CONTENT_LENGTH"]
MARKER = "<zq-fuzz>"  # never allowed back unescaped in an HTML page
JUNK = "zzjunk"  # prefix of made-up keys: an error that names one contains this
LEAKS = ("Traceback (most recent call last)", 'File "/', "site-packages", str(ROOT))
SETTINGS = settings(
    max_examples=40,  # per GET endpoint; POST bodies get three times as many (test-time budget)
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
        HealthCheck.large_base_example,
    ],
)

RING8 = {"collective": "allreduce", "algorithm": "ring", "ranks": 8, "elements": 64}
COST_BASE = {
    "collective": "allreduce",
    "algorithm": "ring",
    "ranks": "8",
    "bytes": "1048576",
    "hardware": "ib_ndr",
}
QUIZ_FIELDS = ("mode", "topics", "kinds", "difficulty", "ids", "count", "lesson")
LAB_FIELDS = ("collective", "algorithm", "ranks", "elements", "op", "root", "ranks_per_node")
LAB_FIELDS += ("speed", "predict", "mode")
EMBED_FIELDS = (*LAB_FIELDS[2:], "autoplay", "loop", "narrate", "theme")
TOPOLOGY_PARAMS = tuple(sorted({p.name for s in TOPOLOGIES.values() for p in s.params}))
RACE_BASE = {
    "collective": "allreduce",
    "algorithms": "ring,recursive_doubling",
    "ranks": "16",
    "bytes": "1048576",
    "topology": "fat_tree",
    "preset": "dgx_h100",
    "mapping": "fill",
    "nodes": "2",
    "gpus_per_node": "8",
    "oversubscription": "2",
}
SWEEP_BASE = {**{k: v for k, v in RACE_BASE.items() if k != "bytes"}, "high_bytes": "1048576"}
RACE_PAGE_FIELDS = (*RACE_FIELDS, *TOPOLOGY_PARAMS, "speed", "autoplay", "theme")


# -- what each endpoint takes ---------------------------------------------------------------------


def field_names(endpoint: str, path_args: dict) -> tuple[str, ...]:
    """Return the names an endpoint's errors may use for its inputs (its own field names)."""
    if endpoint == "api.simulate_run":
        return params.FIELDS
    if endpoint == "costs.cost_one":
        return COST_PARAMS
    if endpoint == "costs.cost_compare":
        return COMPARE_PARAMS
    if endpoint in ("costs.calc", "calculators.embed"):
        spec = CALCULATORS.get(path_args.get("name", ""))
        names = tuple(f.name for f in spec.fields) if spec else ()
        return (*names, "calculator", "theme")
    if endpoint == "quiz_api.questions":
        return QUIZ_FIELDS
    if endpoint == "quiz_api.answer":
        return (*sorted(grading.FIELDS), "body")
    if endpoint == "quiz_api.review":
        return ("ids",)
    if endpoint in ("lessons.search", "lessons.index"):
        return ("q",)
    if endpoint == "lessons.lesson":
        return ("instructor",)
    if endpoint == "lab.lab":
        return LAB_FIELDS
    if endpoint == "lab.embed":
        return EMBED_FIELDS
    if endpoint == "quiz.page":
        return ("topics", "tags", "difficulty", "count")
    if endpoint in ("toolkit.drill_check", "toolkit.drill_reveal"):
        return ("step", "answer", "drill", "body")
    if endpoint == "toolkit.layout_check":
        return (*layout.LIMITS, "body")
    if endpoint == "toolkit.triage_check":
        return ("rank", "cause", "body")
    if endpoint == "toolkit.design_answer":
        return ("prompt",)
    if endpoint in ("nccl_log_api.read", "nccl_log.page"):
        return ("log", "body", "file")
    if endpoint == "nccl_tests.read":
        return (*NCCL_TESTS_FIELDS, "body")
    if endpoint == "race.race_run":
        return (*RACE_FIELDS, *TOPOLOGY_PARAMS)
    if endpoint == "race.race_sweep":
        return (*SWEEP_FIELDS, *TOPOLOGY_PARAMS)
    if endpoint == "race_page.embed":
        return RACE_PAGE_FIELDS
    if endpoint == "nccl_model.choice":
        return nccl_model_api.CHOICE_FIELDS
    if endpoint == "nccl_model.table":
        return nccl_model_api.TABLE_FIELDS
    return ()  # an endpoint this file does not know yet: fuzzed with made-up keys only


NCCL_MODEL_BASE = {
    "collective": "allreduce",
    "ranks": "16",
    "bytes": "1048576",
    "system": "dgx_h100",
    "nodes": "2",
}


def base_query(endpoint: str, path_args: dict) -> dict[str, str]:
    """Return a valid query for the endpoint, so that one bad field gets past the others."""
    if endpoint == "costs.cost_one":
        return dict(COST_BASE)
    if endpoint == "costs.cost_compare":
        return {k: v for k, v in COST_BASE.items() if k != "algorithm"}
    if endpoint == "quiz_api.questions":
        return {"mode": "practice", "count": "3"}
    if endpoint == "quiz_api.review":
        return {"ids": "choice-ring-step-count,num-ring-allreduce-time"}
    if endpoint in ("lessons.search", "lessons.index"):
        return {"q": "ring"}
    if endpoint == "lab.lab":
        return {k: str(v) for k, v in RING8.items()}
    if endpoint == "lab.embed":
        return {"ranks": "4", "elements": "16", "theme": "dark"}
    if endpoint == "quiz.page":
        return {"tags": "ring-allreduce", "count": "5"}
    if endpoint == "race.race_run":
        return dict(RACE_BASE)
    if endpoint == "race.race_sweep":
        return dict(SWEEP_BASE)
    if endpoint == "race_page.embed":
        return {**RACE_BASE, "theme": "dark"}
    if endpoint in ("nccl_model.choice", "nccl_model.table"):
        return {k: v for k, v in NCCL_MODEL_BASE.items() if k in field_names(endpoint, {})}
    return {}


def path_values(arg: str) -> list[str]:
    """Return real values of a path argument; the fuzzing adds made-up ones."""
    entries = catalog()
    known = {
        "collective": sorted({e["collective"] for e in entries}),
        "algorithm": sorted({e["algorithm"] for e in entries}),
        "name": sorted(CALCULATORS),
        "slug": ["ring-allreduce", "primitives", "gpu-interconnects"],
        "filename": ["css/site.css", "js/lab-client.js", "vendor/socket.io-4.8.4.LICENSE"],
        "drill_id": list(drills.drills()),
        "prompt_id": list(design.prompts()),
    }
    return known.get(arg, [])


# Valid bodies of the toolkit's POST endpoints, so that one fuzzed field gets past the others.
TOOLKIT_BASES = {
    "toolkit.drill_check": [{"step": 0, "answer": "M/p"}, {"step": 5, "answer": "2(p-1)α"}],
    "toolkit.drill_reveal": [{"step": 1}],
    "toolkit.layout_check": [{"tp": 1, "pp": 1, "dp": 128, "zero": 1}],
    "toolkit.triage_check": [{"rank": 2, "cause": "mismatch"}],
}

# A valid body of POST /api/nccl-tests: a real nccl-tests table (tests/fixtures/nccl_tests).
NCCL_TESTS_BASE = {
    "output": (ROOT / "tests/fixtures/nccl_tests/gb10_2node_all_reduce.txt").read_text(),
    "preset": "dgx_a100",
    "collective": "allreduce",
    "ranks": 2,
}

TRAVERSALS = [
    "../pyproject.toml",
    "../../pyproject.toml",
    "..%2f..%2fpyproject.toml",
    "css/../../app/web/api/simulate.py",
    "/etc/passwd",
    "....//....//etc/passwd",
    "css/site.css\x00.png",
    "%00",
    ".",
    "..",
]

# -- strategies -----------------------------------------------------------------------------------

ALL_CHARS = st.characters(exclude_categories=())  # surrogates, controls, RTL marks included
HUGE_INTS = st.sampled_from([10**400, -(10**400), 2**63, 2**64, -(2**63) - 1, 10**4000])
NASTY_TEXT = st.sampled_from(
    [
        "",
        " ",
        "8",
        " 8 ",
        "8.0",
        "-1",
        "-0",
        "0x10",
        "1e400",
        "-1e400",
        "1e-400",
        "nan",
        "NaN",
        "inf",
        "-Infinity",
        "true",
        "null",
        "²",
        "١٢",
        "Ⅷ",
        "\u202eevil\u202c",
        "\u200f\u05e9\u05dc\u05d5\u05dd",
        "\x00",
        "\ud800",
        "\udfff\ud800",
        "😀" * 3,
        "a" * 5000,
        "9" * 400,
        "9" * 5000,
        MARKER,
        f'"><{MARKER[1:]}',
        "{{7*7}}",
        "%",
        "%ff",
        "../../etc/passwd",
    ]
)
TEXT = st.one_of(NASTY_TEXT, st.text(ALL_CHARS, max_size=30))
LANG = st.one_of(st.sampled_from(["en", "zh"]), TEXT)  # every URL takes ?lang= (app/web/i18n.py)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    HUGE_INTS,
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(TEXT, children, max_size=4)
    ),
    max_leaves=10,
)
CONTENT_TYPES = st.sampled_from(
    [
        "application/json",
        "application/json; charset=utf-8",
        "application/json; charset=latin-1",
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=zz",
        "application/xml",
        "",
    ]
)


def shown(value: object) -> str:
    """Return the repr of `value`, shortened for a failure message."""
    text = repr(value)
    return text if len(text) <= 160 else f"{text[:160]}... ({len(text)} chars)"


class Short(str):
    """A drawn query string that Hypothesis shows shortened when it reports a failing example."""

    def __repr__(self) -> str:
        text = str(self)
        return repr(text if len(text) <= 160 else f"{text[:160]}... ({len(text)} chars)")


class Body(bytes):
    """A drawn request body that Hypothesis shows shortened when it reports a failing example."""

    content_type: str = ""

    def __repr__(self) -> str:
        head = bytes(self[:160])
        more = f"... ({len(self)} bytes)" if len(self) > 160 else ""
        return f"Body({head!r}{more}, content_type={self.content_type!r})"


def body(raw: bytes, content_type: str) -> Body:
    out = Body(raw)
    out.content_type = content_type
    return out


def deep(levels: int, kind: str) -> str:
    """Return JSON text nested `levels` deep: arrays, or objects under a field name."""
    if kind == "array":
        return "[" * levels + "]" * levels
    return '{"a":' * levels + "1" + "}" * levels


RAW_BODIES = [
    b"",
    b"{",
    b"}",
    b"null",
    b"[]",
    b'"x"',
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"\xff\xfe\xfd",
    b'{"a": "\xc3\x28"}',
    b'{"collective": "\xed\xa0\x80"}',  # a UTF-8 encoded surrogate: invalid UTF-8
    b"\xef\xbb\xbf{}",  # a byte-order mark
    b"\x00" * 16,
    b'{"ranks": ' + b"9" * 5000 + b"}",  # past Python's int-from-text digit limit
    deep(5000, "array").encode(),
    deep(5000, "object").encode(),
    deep(20000, "array").encode(),
    b" " * (MAX_BODY + 1),
    b"[" + b"1," * (MAX_BODY // 2) + b"1]",
]


def keys(names: tuple[str, ...]):
    """Draw a key: one of the endpoint's field names, or a made-up one (marked with JUNK)."""
    made_up = st.text(ALL_CHARS, max_size=8).map(JUNK.__add__)
    return st.one_of(st.sampled_from(names), made_up) if names else made_up


@st.composite
def bodies(draw, names: tuple[str, ...], bases: list[dict]) -> Body:
    """Draw a request body and its content type."""
    content_type = draw(CONTENT_TYPES)
    kind = draw(st.sampled_from(["mutated", "object", "any", "raw", "duplicate"]))
    if kind == "raw":
        return body(draw(st.sampled_from(RAW_BODIES)), content_type)
    if kind == "duplicate":  # a key given twice: JSON allows it, the last one wins
        base = draw(st.sampled_from(bases)) if bases else {"a": 1}
        name = draw(st.sampled_from(sorted(base)))
        extra = f"{json.dumps(name)}: {json.dumps(draw(JSON_VALUES))}"
        text = json.dumps(base)[:-1] + ", " + extra + "}"
        return body(text.encode("utf-8", "surrogatepass"), content_type)
    if kind == "mutated" and bases:
        value = dict(draw(st.sampled_from(bases)))
        for key in draw(st.lists(keys(names), min_size=1, max_size=2)):
            if draw(st.booleans()) and key in value:
                del value[key]
            else:
                value[key] = draw(JSON_VALUES)
    elif kind in ("object", "mutated"):
        value = draw(st.dictionaries(keys(names), JSON_VALUES, max_size=6))
    else:
        value = draw(JSON_VALUES)
    text = json.dumps(value, ensure_ascii=draw(st.booleans()))
    return body(text.encode("utf-8", "surrogatepass"), content_type)


def encode(text: str) -> str:
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


@st.composite
def queries(draw, names: tuple[str, ...], base: dict[str, str]) -> Short:
    """Draw a raw query string (duplicates and malformed escapes included)."""
    pairs = dict(base) if draw(st.booleans()) else {}
    for key in draw(st.lists(keys((*names, "lang")), max_size=4)):
        pairs[key] = draw(LANG if key == "lang" else TEXT)
    parts = [f"{encode(k)}={encode(v)}" for k, v in pairs.items()]
    if draw(st.booleans()) and pairs:
        key = draw(st.sampled_from(sorted(pairs)))
        parts.append(f"{encode(key)}={encode(draw(TEXT))}")  # the same key twice
    if draw(st.integers(0, 4)) == 0:
        parts.append(draw(st.sampled_from(["%", "%zz", "%ff%fe=%c3%28", "=x", "&&", "a=%00"])))
    return Short("&".join(draw(st.permutations(parts))))


# -- the app and what must not change -------------------------------------------------------------

PROBES = [
    ("GET", "/api/collectives", None),
    ("POST", "/api/simulate", RING8),
    ("GET", "/api/cost?" + "&".join(f"{k}={v}" for k, v in COST_BASE.items()), None),
    ("GET", "/api/cost/compare?collective=allreduce&ranks=16&bytes=65536&hardware=ib_ndr", None),
    ("GET", "/api/calc/ddp_overlap?ranks=64", None),
    ("GET", "/api/hardware", None),
    ("GET", "/api/quiz/topics", None),
    ("GET", "/api/lessons/search?q=ring", None),
    ("GET", "/api/lessons/search?q=NCCL_ALGO", None),  # full text: sentences and marks
    ("GET", "/lab?collective=reduce&algorithm=binomial_tree&ranks=4&root=2", None),
]


class Fuzzer(logging.Handler):
    """The app under fuzzing, its client, and the exceptions its requests raised.

    An exception shows up either as Flask's got_request_exception (no handler took it) or as
    a logged record with a traceback (an app-level handler logged it and answered 500).
    """

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.app = create_app(CONFIG)
        # No cookie jar: a fuzzed ?lang=zh is remembered in a cookie, and the probes must read
        # what a new visitor reads.
        self.client = self.app.test_client(use_cookies=False)
        self.crashes: list[BaseException] = []
        got_request_exception.connect(self._record, self.app, weak=False)
        logging.getLogger().addHandler(self)
        self.baseline = self.probe()
        self.quiz_bases = self._quiz_bases()

    def _record(self, sender, exception: BaseException, **extra) -> None:
        self.crashes.append(exception)

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and record.exc_info[1] is not None:
            self.crashes.append(record.exc_info[1])

    def stop(self) -> None:
        logging.getLogger().removeHandler(self)
        got_request_exception.disconnect(self._record, self.app)

    def probe(self) -> list[tuple[int, bytes]]:
        out = []
        for method, url, body in PROBES:
            response = self.client.open(url, method=method, json=body)
            out.append((response.status_code, response.get_data()))
        return out

    def _quiz_bases(self) -> dict[str, dict]:
        """Return a valid answer body of every question kind (wrong answers are fine)."""
        return {kind: self.quiz_base(kind) for kind in sorted(grading.GRADERS)}

    def quiz_base(self, kind: str) -> dict:
        """Draw a fresh question of `kind` and return a valid answer body for it.

        A drawn question is graded once (a second answer is a 409), so a test that needs its
        valid answer accepted draws its own.
        """
        data = self.client.get(f"/api/quiz/questions?kinds={kind}&count=1").get_json()
        q = data["questions"][0]
        body = {"id": q["id"], "answer": self._some_answer(q)}
        if "token" in q:
            body.update(params=q["params"], token=q["token"])
        return body

    @staticmethod
    def _some_answer(q: dict) -> object:
        kind = q["kind"]
        if kind == "numeric":
            return 1.5
        if kind == "explain":
            return "reduce-scatter then allgather"
        if kind == "order":
            return [item["id"] for item in q["items"]]
        if kind == "match":
            return {left["id"]: q["right"][0]["id"] for left in q["left"]}
        ids = [o["id"] for o in q["options"]]
        return ids[0] if kind == "single" else ids[:1]

    def request(self, method: str, path: str, query: str = "", body=None, content_type=None):
        self.crashes.clear()
        return self.client.open(
            path,
            method=method,
            query_string=query,
            data=body,
            content_type=content_type,
            buffered=True,
        )


@pytest.fixture(scope="module")
def fuzzer():
    fuzz = Fuzzer()
    yield fuzz
    fuzz.stop()


# -- what every answer must satisfy ---------------------------------------------------------------


def names_the_field(message: str, names: tuple[str, ...], path_args: dict) -> bool:
    """Say whether `message` names one of the endpoint's fields, a made-up key or the body."""
    if JUNK in message:
        return True
    candidates = (*names, "body", *path_args)
    return any(
        re.search(rf"(?<![A-Za-z_]){re.escape(n)}(?![A-Za-z_])", message) for n in candidates
    )


def check(fuzz: Fuzzer, response, what: str, names: tuple[str, ...], path_args: dict) -> None:
    """Assert what every answer to bad input must satisfy (see the module docstring)."""
    status = response.status_code
    text = response.get_data().decode("utf-8", "replace")
    crash = f"; the server raised {fuzz.crashes[-1]!r}" if fuzz.crashes else ""
    assert status < 500, f"{what} -> {status}{crash}: {text[:300]}"
    for leak in LEAKS:
        assert leak not in text, f"{what} -> {status} leaks {leak!r}: {text[:300]}"
    if response.mimetype == "text/html":
        assert MARKER not in text, f"{what} -> {status} echoes {MARKER} unescaped"
    if not response.request.path.startswith("/api/") or not 400 <= status < 500:
        return
    assert response.mimetype == "application/json", f"{what} -> {status} {response.mimetype}"
    data = json.loads(text)
    assert isinstance(data, dict), f"{what} -> {status}: {text[:300]}"
    error = data.get("error")
    assert isinstance(error, str) and error.strip(), f"{what} -> {status}: {text[:300]}"
    assert names_the_field(error, names, path_args), (
        f"{what} -> {status}: the error does not name the field or the body: {error[:300]!r}"
    )


SSTI = "{{7*7}}"


def check_no_template_evaluation(fuzz: Fuzzer, response, method: str, path: str, query: str):
    """A `{{7*7}}` in the query must not add a 49 to an HTML page (Jinja evaluating input)."""
    if response.mimetype != "text/html" or method != "GET" or encode(SSTI) not in query:
        return
    plain = fuzz.request(method, path, query.replace(encode(SSTI), encode("{{7+0}}")))
    count = plain.get_data(as_text=True).count("49")
    assert response.get_data(as_text=True).count("49") <= count, f"{path}?{query} shows 7*7"


# -- the rules ------------------------------------------------------------------------------------


def rules() -> list[tuple[str, str, str, tuple[str, ...]]]:
    """List (rule, endpoint, method, path arguments) for every rule and method of the app."""
    app = create_app(CONFIG)
    out = []
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            out.append((rule.rule, rule.endpoint, method, tuple(sorted(rule.arguments))))
    return out


RULES = rules()


def test_the_fuzzing_covers_every_endpoint_of_the_app():
    endpoints = {endpoint for _, endpoint, _, _ in RULES}
    assert {"api.simulate_run", "costs.calc", "quiz_api.answer", "lab.embed", "static"} <= endpoints
    assert {"race.race_run", "race.race_sweep", "race_page.embed"} <= endpoints
    assert {"lessons.search", "lessons.index", "pages.favicon"} <= endpoints
    assert {"toolkit.drill_check", "toolkit.layout_check", "toolkit.triage_check"} <= endpoints
    assert ("/api/simulate", "POST") in {(r, m) for r, _, m, _ in RULES}
    assert ("/api/quiz/answer", "POST") in {(r, m) for r, _, m, _ in RULES}


def path_strategy(arg: str):
    known = path_values(arg)
    junk = st.one_of(TEXT, st.sampled_from(TRAVERSALS)).filter(bool)
    if arg != "filename":  # a "/" would leave the rule: tested on its own below
        junk = junk.filter(lambda value: "/" not in value)
    return st.one_of(st.sampled_from(known), junk) if known else junk


def build_path(rule: str, args: dict[str, str]) -> str:
    """Put the path arguments into the rule, URL-encoded (a path converter keeps its slashes)."""
    path = rule
    for name, value in args.items():
        raw = "/".join(encode(part) for part in value.split("/"))
        path = re.sub(rf"<(?:[a-z]+:)?{name}>", lambda _, raw=raw: raw, path)
    return path


@pytest.mark.parametrize(
    ("rule", "endpoint", "method", "arguments"),
    RULES,
    ids=[f"{m} {r}" for r, _, m, _ in RULES],
)
def test_random_input_never_breaks_an_endpoint(fuzzer, rule, endpoint, method, arguments):
    path_st = st.fixed_dictionaries({a: path_strategy(a) for a in arguments})
    sent_requests = []

    examples = SETTINGS.max_examples * (3 if method == "POST" else 1)  # bodies: more to try

    @settings(SETTINGS, max_examples=examples)
    @given(data=st.data())
    def fuzz(data):
        sent_requests.append(1)
        path_args = data.draw(path_st, label="path")
        names = field_names(endpoint, path_args)
        query = data.draw(queries(names, base_query(endpoint, path_args)), label="query")
        path = build_path(rule, path_args)
        sent = None
        if method in ("POST", "PUT", "PATCH"):
            bases = list(fuzzer.quiz_bases.values()) if endpoint == "quiz_api.answer" else []
            bases = [RING8] if endpoint == "api.simulate_run" else bases
            bases = TOOLKIT_BASES.get(endpoint, bases)
            bases = [NCCL_TESTS_BASE] if endpoint == "nccl_tests.read" else bases
            if endpoint == "quiz_api.answer" and data.draw(st.booleans(), label="re-sign"):
                bases = [resigned(b, data) for b in bases]
            sent = data.draw(bodies(names, bases), label="body")
        response = fuzzer.request(
            method, path, query, sent, sent.content_type if sent is not None else None
        )
        what = f"{method} {path}?{query!r} {sent!r}"
        check(fuzzer, response, what, (*names, "lang"), path_args)
        check_no_template_evaluation(fuzzer, response, method, path, query)

    fuzz()
    assert len(sent_requests) >= examples, "the fuzzing stopped early"
    assert fuzzer.probe() == fuzzer.baseline, "the server answers differently after the fuzzing"


def query_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return calculator_pages.number_text(value)


def mutation_cases() -> list[tuple[str, str, str, object]]:
    """List (id, method, path, valid input) for every API endpoint that takes input."""
    simulate_full = {**RING8, "op": "max", "root": 0, "seed": 3, "interval_ms": 0}
    hierarchical = {**RING8, "algorithm": "hierarchical", "ranks_per_node": 4}
    cases = [
        ("simulate", "POST", "/api/simulate", simulate_full),
        ("simulate hierarchical", "POST", "/api/simulate", hierarchical),
        ("cost", "GET", "/api/cost", dict(COST_BASE)),
        ("compare", "GET", "/api/cost/compare", base_query("costs.cost_compare", {})),
        ("questions", "GET", "/api/quiz/questions", {"topics": "ring-allreduce", "count": "3"}),
        ("review", "GET", "/api/quiz/review", {"ids": "choice-ring-step-count,no-such-question"}),
        ("search", "GET", "/api/lessons/search", {"q": "ring"}),
        ("nccl tests", "POST", "/api/nccl-tests", dict(NCCL_TESTS_BASE)),
        ("race", "GET", "/api/race", dict(RACE_BASE)),
        ("race sweep", "GET", "/api/race/sweep", dict(SWEEP_BASE)),
        ("nccl model", "GET", "/api/nccl-model", dict(NCCL_MODEL_BASE)),
        ("nccl model table", "GET", "/api/nccl-model/table", base_query("nccl_model.table", {})),
    ]
    for kind in sorted(grading.GRADERS):
        cases.append((f"answer {kind}", "POST", "/api/quiz/answer", kind))  # drawn per run
    for endpoint, bodies in TOOLKIT_BASES.items():
        path = {
            "toolkit.drill_check": "/api/toolkit/drills/ring-allreduce/check",
            "toolkit.drill_reveal": "/api/toolkit/drills/hierarchical-allreduce/reveal",
            "toolkit.layout_check": "/api/toolkit/layout/check",
            "toolkit.triage_check": "/api/toolkit/triage/check",
        }[endpoint]
        cases.append((endpoint.replace("_", " "), "POST", path, bodies[0]))
    for name, spec in CALCULATORS.items():
        defaults = {f.name: query_text(f.default) for f in spec.fields}
        cases.append((f"calc {name}", "GET", f"/api/calc/{name}", defaults))
    return cases


MUTATIONS = mutation_cases()


@pytest.mark.parametrize(
    ("method", "path", "valid"), [c[1:] for c in MUTATIONS], ids=[c[0] for c in MUTATIONS]
)
def test_one_bad_field_in_a_valid_request_gets_a_4xx_naming_that_field(fuzzer, method, path, valid):
    if isinstance(valid, str):  # a quiz answer: a real question of that kind
        valid = fuzzer.quiz_base(valid)
    endpoint = fuzzer.app.url_map.bind("localhost").match(path, method=method)[0]
    names = field_names(endpoint, {"name": path.rsplit("/", 1)[-1]})
    is_json = method == "POST"

    def send(fields: dict):
        if is_json:
            raw = json.dumps(fields).encode("utf-8", "surrogatepass")
            return fuzzer.request(method, path, body=raw, content_type="application/json")
        return fuzzer.request(
            method, path, "&".join(f"{encode(k)}={encode(str(v))}" for k, v in fields.items())
        )

    first = send(valid)
    assert first.status_code == 200, f"the valid request failed: {first.get_data(as_text=True)}"
    values = st.one_of(SCALARS, JSON_VALUES) if is_json else TEXT
    keys = sorted(valid)
    sent_requests = []

    @SETTINGS
    @given(field=st.sampled_from(keys), value=values)
    def fuzz(field, value):
        sent_requests.append(1)
        response = send({**valid, field: value})
        what = f"{method} {path} with {field}={shown(value)}"
        check(fuzzer, response, what, names, {})
        if 400 <= response.status_code < 500 and not plausible(value):
            error = response.get_json()["error"]
            assert names_the_field(error, (field,), {}), (
                f"{what} -> {response.status_code}: the error names another field: {error!r}"
            )

    fuzz()
    assert len(sent_requests) >= SETTINGS.max_examples
    assert send(valid).get_data() == first.get_data() or path.startswith("/api/quiz/")


def plausible(value: object) -> bool:
    """Say whether `value` could be valid for some field, so that an error may rightly name
    a field that depends on it (ranks=1 makes ranks_per_node=8 wrong); junk must be named."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    if not isinstance(value, str):
        return False
    try:
        float(value)
    except ValueError:
        return False
    return True


def resigned(body: dict, data) -> dict:
    """Give a quiz answer fuzzed parameters with a valid token, so grading goes past the token."""
    if "params" not in body:
        return body
    fuzzed = dict(body["params"])
    key = data.draw(st.sampled_from(sorted(fuzzed)), label="param")
    fuzzed[key] = data.draw(JSON_VALUES, label="param value")
    return {**body, "params": fuzzed, "token": tokens.sign(SECRET, body["id"], fuzzed)}


# -- the inputs fuzzing found, and the classics, pinned down one by one ---------------------------


def nasty_bodies() -> list[tuple[str, bytes]]:
    return [
        ("nested 5,000 deep (arrays)", deep(5000, "array").encode()),
        ("nested 5,000 deep (objects)", deep(5000, "object").encode()),
        ("a 5,000-digit integer", b'{"ranks": ' + b"9" * 5000 + b"}"),
        ("invalid UTF-8", b'{"collective": "\xc3\x28"}'),
        ("a NaN literal", b'{"ranks": NaN}'),
        ("duplicate keys", b'{"ranks": 8, "ranks": "8"}'),
        ("one byte over MAX_CONTENT_LENGTH", b" " * (MAX_BODY + 1)),
    ]


@pytest.mark.parametrize("path", ["/api/simulate", "/api/quiz/answer"])
@pytest.mark.parametrize(("label", "body"), nasty_bodies(), ids=[n for n, _ in nasty_bodies()])
def test_a_nasty_json_body_gets_a_4xx_naming_the_body_or_a_field(fuzzer, path, label, body):
    response = fuzzer.request("POST", path, body=body, content_type="application/json")
    names = field_names("api.simulate_run" if path == "/api/simulate" else "quiz_api.answer", {})
    check(fuzzer, response, f"POST {path} with {label}", names, {})
    assert 400 <= response.status_code < 500


def test_a_huge_integer_as_a_numeric_quiz_answer_is_a_400_naming_answer(fuzzer):
    body = fuzzer.quiz_base("numeric")
    for answer in (10**400, -(10**400), 2**1024):
        raw = json.dumps({**body, "answer": answer}).encode()
        response = fuzzer.request(
            "POST", "/api/quiz/answer", body=raw, content_type="application/json"
        )
        check(
            fuzzer, response, f"POST /api/quiz/answer answer={str(answer)[:12]}...", ("answer",), {}
        )
        assert response.status_code == 400
        assert response.get_json()["error"].startswith("answer:")


COUNTS = {
    "superscript two": "²",
    "superscript ten": "¹⁰",
    "circled one": "①",
    "arabic-indic twelve": "١٢",
    "math bold five": "𝟓",
    "5,000 nines": "9" * 5000,
}


@pytest.mark.parametrize("count", list(COUNTS.values()), ids=list(COUNTS))
def test_a_unicode_digit_count_is_a_400_naming_count_or_is_read_as_a_number(fuzzer, count):
    response = fuzzer.request("GET", "/api/quiz/questions", f"count={encode(count)}")
    check(fuzzer, response, f"GET /api/quiz/questions?count={shown(count)}", QUIZ_FIELDS, {})
    if response.status_code == 400:
        assert response.get_json()["error"].startswith("count:")


@pytest.mark.parametrize("filename", TRAVERSALS)
def test_static_files_do_not_escape_the_static_folder(fuzzer, filename):
    path = "/static/" + "/".join(encode(part) for part in filename.split("/"))
    response = fuzzer.request("GET", path)
    check(fuzzer, response, f"GET {path}", (), {})
    if response.status_code == 308:  # werkzeug merges the slashes of /static//etc/passwd
        assert urlsplit(response.headers["Location"]).path.startswith("/static/")
    else:
        assert response.status_code in (400, 404), f"{path} -> {response.status_code}"
    assert b"[project]" not in response.get_data() and b"root:" not in response.get_data()


API_MISSES = [
    ("GET", "/api/simulate"),  # a POST endpoint
    ("POST", "/api/cost"),  # a GET endpoint
    ("GET", "/api/calc/" + encode("a/b")),  # a name with a slash leaves the rule
    ("GET", "/api/no-such-endpoint"),
]


@pytest.mark.parametrize(("method", "path"), API_MISSES, ids=[f"{m} {p}" for m, p in API_MISSES])
def test_a_wrong_method_or_path_under_api_is_answered_in_json(fuzzer, method, path):
    response = fuzzer.request(method, path)
    assert 400 <= response.status_code < 500
    assert response.mimetype == "application/json", (
        f"{method} {path} -> {response.status_code} {response.mimetype}: an API client gets "
        f"{response.get_data(as_text=True)[:80]!r}"
    )
    assert isinstance(response.get_json().get("error"), str)


def edge_queries(name: str) -> list[dict[str, str]]:
    """Every numeric input of a calculator at its low and its high, each alone, then all at once.

    All at their lows is where degenerate shapes live (one GPU on one node); all at their highs
    is the most work a request may ask for.
    """
    spec = CALCULATORS[name]
    lows, highs = {}, {}
    for f in spec.fields:
        if f.kind not in ("int", "float"):
            continue
        low = f.low if f.low_inclusive else math.nextafter(f.low, math.inf)
        lows[f.name], highs[f.name] = query_text(low), query_text(f.high)
    single = [{k: v} for edge in (lows, highs) for k, v in edge.items()]
    return [*single, lows, highs]


@pytest.mark.parametrize("name", list(CALCULATORS))
def test_every_calculator_input_at_its_edges_gets_an_answer_or_a_400(fuzzer, name):
    names = field_names("costs.calc", {"name": name})
    for query in edge_queries(name):
        text = "&".join(f"{k}={v}" for k, v in query.items())
        for path in (f"/api/calc/{name}", f"/embed/calc/{name}"):
            response = fuzzer.request("GET", path, text)
            check(fuzzer, response, f"{path}?{text}", names, {"name": name})
            if path.startswith("/api/") and response.status_code == 200:
                json.loads(response.get_data(), parse_constant=not_json)


def not_json(token: str):
    raise AssertionError(f"{token} is not JSON")  # the answer held a NaN or an infinity


def test_every_calculator_and_hardware_preset_still_answer_after_the_fuzzing(fuzzer):
    for name in CALCULATORS:
        assert fuzzer.client.get(f"/api/calc/{name}").status_code == 200, name
    for key in HARDWARE:
        query = f"collective=allreduce&algorithm=ring&ranks=8&bytes=1024&hardware={key}"
        assert fuzzer.client.get(f"/api/cost?{query}").status_code == 200, key
    assert fuzzer.probe() == fuzzer.baseline


# -- POST /api/simulate under admission (issue 12) -------------------------------------------------

ADMISSION_LIMITS = ("memory budget", "your address", "simulations are running")


@st.composite
def valid_simulations(draw) -> dict:
    """Draw a valid simulate body of any size the lab allows (app.collectives.check's rules)."""
    entry = draw(st.sampled_from(catalog()))
    collective = entry["collective"]
    allowed = [r for r in (1, 2, 5, 8, 16, 17, 33, 64) if r <= entry["max_ranks"]]
    ranks = draw(st.sampled_from(allowed))  # within the catalog's own limit (NVLS: one domain)
    multiple = ranks if entry["divisible"] else 1
    high = max_elements(collective, ranks, 1 << 18) // multiple  # the gate's own bound
    body = {
        "collective": collective,
        "algorithm": entry["algorithm"],
        "ranks": ranks,
        "elements": multiple * draw(st.integers(1, max(1, high))),
        "interval_ms": draw(st.sampled_from([0, 5000])),  # HTTP ignores the pace
    }
    if entry["needs_ranks_per_node"]:
        body["ranks_per_node"] = 1
    return body


def test_simulations_past_the_memory_budget_get_a_503_naming_the_budget():
    # A 2 MB budget fits the lab's default run, not a 64-rank one; each refusal must say so.
    app = create_app({**CONFIG, "LAB_MEMORY_BUDGET_MB": 2})
    client = app.test_client()
    seen = []

    @settings(SETTINGS, max_examples=40)
    @given(body=valid_simulations())
    def fuzz(body):
        response = client.post("/api/simulate", json=body, buffered=True)
        text = response.get_data(as_text=True)
        for leak in LEAKS:
            assert leak not in text, f"{body} leaks {leak!r}"
        seen.append(response.status_code)
        if response.status_code == 200:
            return
        assert response.status_code in (429, 503), f"{body} -> {response.status_code}: {text}"
        error = response.get_json()["error"]
        assert any(limit in error for limit in ADMISSION_LIMITS), error
        retryable = "retry in" in error
        assert ("Retry-After" in response.headers) == retryable, (error, response.headers)

    fuzz()
    assert 200 in seen and 503 in seen
    assert app.extensions["lab_admission"].usage()["runs"] == 0
