"""The lab and embed pages: status codes, controls prefilled from the query, friendly errors."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest

from app.collectives import catalog


class Page(HTMLParser):
    """Parse a page into its elements (tag, attributes, text) for structural assertions."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.elements: list[dict] = []
        self._open: list[dict] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        element = {"tag": tag, "attrs": dict(attrs), "text": ""}
        self.elements.append(element)
        if tag not in ("input", "link", "meta", "br", "img"):
            self._open.append(element)

    def handle_endtag(self, tag):
        for i in range(len(self._open) - 1, -1, -1):
            if self._open[i]["tag"] == tag:
                del self._open[i:]
                break

    def handle_data(self, data):
        for element in self._open:
            element["text"] += data

    def find_all(self, tag: str, **attrs) -> list[dict]:
        return [
            e
            for e in self.elements
            if e["tag"] == tag and all(e["attrs"].get(k) == v for k, v in attrs.items())
        ]

    def one(self, tag: str, **attrs) -> dict:
        found = self.find_all(tag, **attrs)
        assert len(found) == 1, f"expected one <{tag} {attrs}>, found {len(found)}"
        return found[0]

    def options(self, select_id: str) -> list[dict]:
        """List the <option>s of the select with `select_id`, in order."""
        out, inside = [], False
        for e in self.elements:
            if e["tag"] == "select":
                inside = e["attrs"].get("id") == select_id
            elif inside and e["tag"] == "option":
                out.append(e)
        return out

    def selected(self, select_id: str) -> str:
        chosen = [o for o in self.options(select_id) if "selected" in o["attrs"]]
        assert len(chosen) == 1, f"one option of #{select_id} should be selected"
        return chosen[0]["attrs"]["value"]

    def field(self, name: str) -> dict:
        """Return the wrapper div of a form field (class "field field-<name>")."""
        return self.one("div", **{"class": f"field field-{name}"})

    def config(self) -> dict:
        return json.loads(self.one("script", id="lab-config")["text"])


def get(client, url: str, status: int = 200) -> Page:
    response = client.get(url)
    assert response.status_code == status, response.get_data(as_text=True)[:400]
    return Page(response.get_data(as_text=True))


def algorithms_of(collective: str) -> list[str]:
    return [e["algorithm"] for e in catalog() if e["collective"] == collective]


# ---- /lab ------------------------------------------------------------------------------------


def test_lab_renders_with_defaults(client):
    page = get(client, "/lab")
    assert page.selected("collective") == "allreduce"
    assert page.selected("algorithm") == algorithms_of("allreduce")[0]
    assert page.one("input", id="ranks")["attrs"]["value"] == "8"
    assert page.one("button", id="run")["text"].strip() == "Run"
    assert page.one("button", id="share")["text"].strip() == "Share / embed"


def test_lab_prefills_every_control_from_the_query(client):
    page = get(client, "/lab?collective=allgather&algorithm=bruck&ranks=12&elements=24")
    assert page.selected("collective") == "allgather"
    assert [o["attrs"]["value"] for o in page.options("algorithm")] == algorithms_of("allgather")
    assert page.selected("algorithm") == "bruck"
    ranks = page.one("input", id="ranks")["attrs"]
    assert (ranks["type"], ranks["min"], ranks["max"], ranks["value"]) == ("range", "2", "64", "12")
    assert page.one("input", id="elements")["attrs"]["value"] == "24"
    bruck = next(
        e for e in catalog() if (e["collective"], e["algorithm"]) == ("allgather", "bruck")
    )
    assert page.one("p", id="algorithm-description")["text"].strip() == bruck["description"]
    # allgather neither reduces nor has a root: those controls are hidden and not submitted
    assert "hidden" in page.field("op")["attrs"]
    assert "disabled" in page.one("select", id="op")["attrs"]
    assert "hidden" in page.field("root")["attrs"]


def test_lab_shows_op_and_root_where_they_apply(client):
    page = get(client, "/lab?collective=reduce&algorithm=binomial_tree&ranks=6&op=max&root=3")
    assert "hidden" not in page.field("op")["attrs"]
    assert page.selected("op") == "max"
    assert "hidden" not in page.field("root")["attrs"]
    root = page.one("input", id="root")["attrs"]
    assert (root["value"], root["max"]) == ("3", "5")
    assert "hidden" in page.field("rpn")["attrs"]


def test_lab_offers_node_sizes_that_divide_the_ranks(client):
    page = get(client, "/lab?collective=allreduce&algorithm=hierarchical&ranks=12&ranks_per_node=3")
    assert "hidden" not in page.field("rpn")["attrs"]
    assert [o["attrs"]["value"] for o in page.options("ranks_per_node")] == [
        "1",
        "2",
        "3",
        "4",
        "6",
        "12",
    ]
    assert page.selected("ranks_per_node") == "3"


def test_lab_hands_its_scripts_the_state_the_catalog_and_the_limits(client, app):
    page = get(client, "/lab?collective=allreduce&algorithm=ring&ranks=4&speed=2")
    config = page.config()
    assert config["state"]["ranks"] == 4
    assert config["state"]["speed"] == 2.0
    assert {(e["collective"], e["algorithm"]) for e in config["catalog"]} == {
        (e["collective"], e["algorithm"]) for e in catalog()
    }
    assert config["limits"]["max_cells"] == app.config["LAB_MAX_CELLS"]
    assert config["limits"]["max_ranks"] == app.config["LAB_MAX_RANKS"]


def test_lab_hands_its_scripts_the_rules_as_data_not_to_copy(client, app):
    config = get(client, "/lab").config()
    # Catalog order, and each entry's facts: the scripts keep no list of their own.
    assert [(e["collective"], e["algorithm"]) for e in config["catalog"]] == [
        (e["collective"], e["algorithm"]) for e in catalog()
    ]
    facts = {e["collective"]: e for e in config["catalog"]}
    assert {c for c, e in facts.items() if e["reduces"]} == {
        "allreduce",
        "reduce",
        "reduce_scatter",
    }
    assert {c for c, e in facts.items() if e["root_only_output"]} == {"reduce", "gather"}
    assert facts["allreduce"]["min_ranks"] == 2
    assert facts["allreduce"]["max_ranks"] == app.config["LAB_MAX_RANKS"]
    # What the controls allow at each rank count, from the server's own rules.
    by_ranks = config["by_ranks"]
    assert sorted(map(int, by_ranks)) == list(range(2, app.config["LAB_MAX_RANKS"] + 1))
    cells = app.config["LAB_MAX_CELLS"]
    assert by_ranks["64"]["max_elements"]["allreduce"] == cells // 64
    assert by_ranks["64"]["max_elements"]["allgather"] == cells // (64 * 64)
    assert by_ranks["12"]["node_sizes"] == [1, 2, 3, 4, 6, 12]
    assert (by_ranks["12"]["node_size"], by_ranks["7"]["node_size"]) == (4, 1)


# Only the lab's link-traffic charts draw with Plotly; an embed has none, so no plotly.js.
@pytest.mark.parametrize(("url", "plotly"), [("/lab", True), ("/embed/allreduce/ring", False)])
def test_pages_load_only_local_scripts_and_no_inline_code(client, url, plotly):
    page = get(client, url)
    scripts = page.find_all("script")
    sources = [s["attrs"]["src"] for s in scripts if "src" in s["attrs"]]
    for s in scripts:  # the embed's, loaded after its first paint (static/js/after-paint.js)
        sources += json.loads(s["attrs"].get("data-scripts", "[]"))
    assert ("/static/vendor/plotly-cartesian-4.1.1.min.js" in sources) is plotly
    assert "/static/vendor/socket.io-4.8.4.min.js" in sources
    assert all(src.startswith("/static/") for src in sources)
    for s in scripts:  # code lives in files; data travels as JSON
        assert "src" in s["attrs"] or s["attrs"].get("type") == "application/json"


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("/lab?collective=allreduce&algorithm=ring&ranks=abc", ["ranks", "2..64", "abc"]),
        ("/lab?ranks=1", ["ranks", "2..64"]),
        ("/lab?ranks=65", ["ranks", "2..64"]),
        ("/lab?elements=0", ["elements"]),
        ("/lab?op=mean", ["op", "sum"]),
        ("/lab?collective=reduce&algorithm=binomial_tree&ranks=4&root=4", ["root", "0..3"]),
        (
            "/lab?collective=allreduce&algorithm=hierarchical&ranks=8&ranks_per_node=3",
            ["ranks_per_node", "divide"],
        ),
        ("/lab?collective=all_to_all&algorithm=pairwise&ranks=8&elements=12", ["multiple"]),
        ("/lab?speed=3", ["speed", "0.25"]),
        ("/lab?predict=7", ["predict must be 1 or 0", "'7'"]),
    ],
)
def test_lab_explains_a_bad_parameter_with_a_400_page(client, url, words):
    page = get(client, url, 400)
    message = page.one("p", **{"data-role": "error-message"})["text"]
    for word in words:
        assert word in message
    assert page.find_all("a", href="/lab")  # a way back
    assert not page.find_all("form", id="lab-form")


def test_lab_bounds_elements_by_the_servers_cell_limit(client, app):
    cells = app.config["LAB_MAX_CELLS"]
    vector, blocks = cells // 64, cells // (64 * 64)  # allreduce: elements; allgather: 64 blocks
    assert get(client, f"/lab?ranks=64&elements={vector}")
    page = get(client, f"/lab?ranks=64&elements={vector + 1}", 400)
    assert f"1..{vector}" in page.one("p", **{"data-role": "error-message"})["text"]
    assert get(client, f"/lab?collective=allgather&algorithm=ring&ranks=64&elements={blocks}")
    page = get(
        client, f"/lab?collective=allgather&algorithm=ring&ranks=64&elements={blocks + 1}", 400
    )
    assert f"1..{blocks}" in page.one("p", **{"data-role": "error-message"})["text"]
    page = get(client, "/lab?collective=allgather&algorithm=ring&ranks=64")
    assert page.one("input", id="elements")["attrs"]["max"] == str(blocks)


@pytest.mark.parametrize(
    ("url", "word"),
    [
        ("/lab?collective=allshuffle", "allshuffle"),
        ("/lab?collective=allreduce&algorithm=telepathy", "telepathy"),
    ],
)
def test_lab_says_an_unknown_name_is_not_found(client, url, word):
    page = get(client, url, 404)
    assert word in page.one("p", **{"data-role": "error-message"})["text"]
    assert "Nothing here by that name" in page.one("h1")["text"]


# ---- /embed ----------------------------------------------------------------------------------


def test_embed_has_minimal_chrome_and_a_way_to_the_full_lab(client):
    page = get(client, "/embed/allreduce/ring?ranks=8&elements=32&op=max&autoplay=1&loop=1")
    assert not page.find_all("header", **{"class": "site-header"})
    assert not page.find_all("footer", **{"class": "site-footer"})
    assert "AllReduce" in page.one("h1")["text"]
    for role in ("play", "back", "forward", "restart", "scrubber", "counter"):
        assert (
            len(page.find_all("button", **{"data-role": role}))
            + len(page.find_all("input", **{"data-role": role}))
            + len(page.find_all("span", **{"data-role": role}))
            == 1
        ), role
    link = page.one("a", **{"class": "embed-open"})["attrs"]
    assert link["href"].startswith("/lab?")
    for part in ("collective=allreduce", "algorithm=ring", "ranks=8", "elements=32", "op=max"):
        assert part in link["href"]
    assert link["target"] == "_blank"
    config = page.config()
    assert config["embed"] == {"autoplay": True, "loop": True, "narrate": True, "theme": "light"}
    assert config["state"]["op"] == "max"
    assert not page.find_all("form", id="lab-form")


def test_embed_shows_the_narration_unless_narrate_is_0(client):
    def box(url):
        page = get(client, url)
        return page.config()["embed"]["narrate"], page.one("div", **{"data-role": "narration-box"})

    for url in ("/embed/allreduce/ring", "/embed/allreduce/ring?narrate=1"):
        narrate, shown = box(url)
        assert narrate is True and "hidden" not in shown["attrs"], url
    narrate, shown = box("/embed/allreduce/ring?narrate=0")
    assert narrate is False and "hidden" in shown["attrs"]
    # the screen reader's live region stays whatever the host page shows
    page = get(client, "/embed/allreduce/ring?narrate=0")
    assert page.one("div", **{"data-role": "announce"})["attrs"]["aria-live"] == "polite"


def test_embed_narrate_must_be_0_or_1(client):
    page = get(client, "/embed/allreduce/ring?narrate=maybe", 400)
    message = page.one("p", **{"data-role": "error-message"})["text"]
    assert message == "narrate must be 1 or 0; got 'maybe'"


def test_embed_follows_the_theme(client):
    page = get(client, "/embed/allgather/ring?ranks=4&theme=dark")
    assert page.one("html")["attrs"]["data-theme"] == "dark"
    assert get(client, "/embed/allgather/ring").one("html")["attrs"]["data-theme"] == "light"


@pytest.mark.parametrize(
    ("url", "status", "word"),
    [
        ("/embed/allreduce/telepathy", 404, "telepathy"),
        ("/embed/allshuffle/ring", 404, "allshuffle"),
        ("/embed/", 404, "/embed/allreduce/ring"),
        ("/embed/allreduce/ring?ranks=100", 400, "ranks"),
        ("/embed/allreduce/ring?theme=blue", 400, "theme"),
        ("/embed/allreduce/ring?autoplay=maybe", 400, "autoplay"),
        ("/embed/allreduce/ring?narrate=2", 400, "narrate"),
        ("/embed/allreduce/ring?speed=fast", 400, "speed"),
        ("/embed/allreduce/ring?predict=7", 400, "predict must be 1 or 0; got '7'"),
    ],
)
def test_embed_errors_are_friendly_pages_without_site_chrome(client, url, status, word):
    page = get(client, url, status)
    assert word in page.one("p", **{"data-role": "error-message"})["text"]
    assert not page.find_all("header", **{"class": "site-header"})
    assert page.find_all("a", href="/lab")


@pytest.mark.parametrize(
    ("url", "on"),
    [
        ("/lab?predict=1", True),
        ("/lab?collective=allgather&algorithm=ring&ranks=4&predict=0", False),
        ("/lab", False),
        ("/embed/allgather/ring?ranks=4&predict=1", True),
        ("/embed/allgather/ring?ranks=4", False),
    ],
)
def test_predict_mode_is_passed_to_the_page_and_the_toggle_is_there(client, url, on):
    """`predict=1` starts the lab or the embed in predict mode (issue 15)."""
    page = get(client, url)
    assert page.config()["predict"] is on
    assert page.find_all("input", **{"data-role": "predict-toggle"})
    assert page.find_all("div", **{"data-role": "predict"})
    if url.startswith("/embed/"):  # "Open in the full lab" opens it predicting too
        href = page.one("a", **{"class": "embed-open"})["attrs"]["href"]
        assert ("predict=1" in href) is on
