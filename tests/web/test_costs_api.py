"""The cost API and calculator pages: numbers, 400s that name the field, and the widgets' HTML."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

from app import create_app
from app.costs import algorithms
from app.costs.calculators import CALCULATORS

RING = (
    "/api/cost?collective=allreduce&algorithm=ring&ranks=8&bytes=1e9&latency_us=5&bandwidth_gbs=25"
)


def strict_json(response) -> object:
    """Parse a body as standard JSON: NaN and Infinity are refused."""

    def refuse(token: str):
        raise ValueError(f"not JSON: {token}")

    return json.loads(response.get_data(as_text=True), parse_constant=refuse)


def test_cost_returns_the_terms_and_the_formula(client):
    body = strict_json(client.get(RING))
    assert body["time_s"] == pytest.approx(2 * 7 * 5e-6 + 2 * (7 / 8) * 0.04)
    assert body["latency_s"] == pytest.approx(70e-6)
    assert body["bandwidth_s"] == pytest.approx(0.07)
    assert body["busbw_gbs"] == pytest.approx(1e9 / body["time_s"] / 1e9 * 1.75)
    assert body["steps"] == 14 and body["bytes_per_rank"] == [1.75e9] * 8
    assert body["formula"].startswith("2(p−1)·α")
    assert "70.07 ms" in body["formula_substituted"]


def test_cost_takes_a_hardware_preset_and_two_links(client):
    body = strict_json(
        client.get(
            "/api/cost?collective=allreduce&algorithm=hierarchical&ranks=16&bytes=1e6"
            "&hardware=ib_ndr&ranks_per_node=8&intra_hardware=nvlink4"
        )
    )
    assert body["inputs"]["bandwidth_gbs"] == 50 and body["inputs"]["intra_bandwidth_gbs"] == 450
    assert body["steps"] == 2 * 7 + 2 * 1


def test_one_rank_has_no_bandwidth_figures(client):
    body = strict_json(
        client.get("/api/cost?collective=allgather&algorithm=ring&ranks=1&bytes=8&hardware=ib_hdr")
    )
    assert body["time_s"] == 0 and body["algbw_gbs"] is None and body["busbw_gbs"] is None


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("algorithm=ring&ranks=8&bytes=1&hardware=ib_ndr", "collective is required"),
        ("collective=allreduce&ranks=8&bytes=1&hardware=ib_ndr", "algorithm is required"),
        ("collective=allreduce&algorithm=ring&bytes=1&hardware=ib_ndr", "ranks is required"),
        ("collective=allreduce&algorithm=ring&ranks=8&hardware=ib_ndr", "bytes is required"),
        ("collective=allreduce&algorithm=ring&ranks=8&bytes=1", "latency_us is required"),
        (
            "collective=allreduce&algorithm=ring&ranks=abc&bytes=1&hardware=ib_ndr",
            "ranks must be an integer in 1..65536, got 'abc'",
        ),
        (
            "collective=allreduce&algorithm=ring&ranks=8&bytes=nan&hardware=ib_ndr",
            "bytes must be a number in [0, 1.09951e+12], got nan",
        ),
        (
            "collective=allreduce&algorithm=ring&ranks=8&bytes=-5&hardware=ib_ndr",
            "bytes must be a number in [0, 1.09951e+12], got -5",
        ),
        (
            "collective=allreduce&algorithm=ring&ranks=8&bytes=1&latency_us=5&bandwidth_gbs=0",
            "bandwidth_gbs must be a number in [1e-06, 100000], got 0",
        ),
        (
            "collective=allreduce&algorithm=ring&ranks=8&bytes=1&hardware=warp",
            "hardware must be one of nvlink3",
        ),
        (
            "collective=allreduce&algorithm=ring&ranks=8&bytes=1&hardware=ib_ndr&size=3",
            "unknown parameter 'size'",
        ),
        (  # the model's name for bytes is no parameter of the URL, and the error says so
            "collective=allreduce&algorithm=ring&ranks=8&message_bytes=1&hardware=ib_ndr",
            "unknown parameter 'message_bytes'",
        ),
        (
            "collective=allreduce&algorithm=hierarchical&ranks=8&bytes=1&hardware=ib_ndr",
            "ranks_per_node is required",
        ),
    ],
)
def test_bad_cost_input_is_a_400_naming_the_field(client, query, message):
    response = client.get(f"/api/cost?{query}")
    assert response.status_code == 400
    assert message in strict_json(response)["error"]


def test_compare_lists_every_algorithm_fastest_first(client):
    body = strict_json(
        client.get("/api/cost/compare?collective=allreduce&ranks=64&bytes=1e9&hardware=ib_ndr")
    )
    times = [r["time_s"] for r in body["results"]]
    assert times == sorted(times)
    assert body["results"][0]["algorithm"] == "rabenseifner"  # same bandwidth as ring, fewer steps
    unavailable = {u["algorithm"]: u["reason"] for u in body["unavailable"]}
    assert unavailable["hierarchical"] == "needs ranks_per_node (GPUs per node)"
    assert unavailable["collnet"] == "needs ranks_per_node (GPUs per node)"
    # NVLS needs every rank on one NVSwitch: over an InfiniBand link it is not offered.
    assert "one NVSwitch node" in unavailable["nvls"]
    assert len(body["results"]) + len(body["unavailable"]) == len(algorithms("allreduce"))


def test_hardware_lists_presets_with_sources(client):
    body = strict_json(client.get("/api/hardware"))
    links = {link["key"]: link for link in body["links"]}
    assert (
        links["nvlink3"]["bandwidth_gbs"] == 300
        and "per direction" in links["nvlink3"]["bandwidth_source"]
    )
    assert {s["key"] for s in body["systems"]} >= {"dgx_a100", "dgx_h100"}


def test_calc_index_lists_every_calculator_with_its_inputs(client):
    body = strict_json(client.get("/api/calc"))
    assert [c["name"] for c in body] == list(CALCULATORS)
    ranks = next(f for f in body[0]["fields"] if f["name"] == "ranks")
    assert ranks["slider"] == {"min": 0, "max": 16, "step": 1, "log2": True}


@pytest.mark.parametrize("name", list(CALCULATORS))
def test_every_calculator_answers_over_http(client, name):
    body = strict_json(client.get(f"/api/calc/{name}"))
    assert body["calculator"] == name
    assert body["outputs"] and body["interpretation"] and body["substituted"]


def test_calculator_inputs_come_from_the_query(client):
    body = strict_json(client.get("/api/calc/zero?stage=3&qwz=true&hpz=1&qgz=on&ranks=16"))
    outputs = {o["key"]: o["value"] for o in body["outputs"]}
    assert outputs["paper_volume_m"] == pytest.approx(0.75)
    assert body["inputs"]["ranks"] == 16


@pytest.mark.parametrize(
    ("url", "status", "message"),
    [
        ("/api/calc/nope", 404, "no calculator 'nope'"),
        ("/api/calc/ddp_overlap?ranks=0", 400, "ranks must be an integer in 1..65536, got 0"),
        ("/api/calc/ddp_overlap?bucket_mib=-1", 400, "bucket_mib must be a number in (0,"),
        ("/api/calc/zero?qwz=maybe", 400, "qwz must be true or false, got 'maybe'"),
        ("/api/calc/moe?preset=ib_ndr", 400, "unknown input 'preset' for moe"),
        ("/api/calc/compare?collective=allsum", 400, "collective must be one of allreduce"),
        ("/api/calc/compare?hardware=nvlink9", 400, "hardware must be one of nvlink3"),
    ],
)
def test_bad_calculator_input(client, url, status, message):
    response = client.get(url)
    assert response.status_code == status
    assert message in strict_json(response)["error"]


WEIRD = ["", "abc", "nan", "inf", "-inf", "-1", "0", "1e309", "1e300", "2.5", "1e-300", "true"]


@pytest.mark.parametrize("name", list(CALCULATORS))
def test_no_input_makes_a_server_error(client, name):
    for field in CALCULATORS[name].fields:
        for value in WEIRD:
            response = client.get(f"/api/calc/{name}", query_string={field.name: value})
            assert response.status_code in (200, 400), (name, field.name, value)
            body = strict_json(response)
            if response.status_code == 400:
                assert field.name in body["error"] or "must divide" in body["error"]


class _Page(HTMLParser):
    """Collect inputs, labels and scripts of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.controls: list[dict] = []
        self.label_for: set[str] = set()
        self.scripts: list[dict] = []
        self._in_label = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "label":
            self._in_label += 1
            if "for" in a:
                self.label_for.add(a["for"])
        if tag in ("input", "select"):
            self.controls.append({**a, "wrapped": self._in_label > 0})
        if tag == "script":
            self.scripts.append(a)

    def handle_endtag(self, tag):
        if tag == "label":
            self._in_label -= 1


def test_calculators_page_has_every_widget_with_labelled_controls_and_no_inline_code(client):
    response = client.get("/calculators")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    page = _Page()
    page.feed(html)
    assert html.count('class="calc-widget"') == len(CALCULATORS)
    for control in page.controls:
        labelled = (
            control.get("id") in page.label_for or control["wrapped"] or "aria-label" in control
        )
        assert labelled, control
    for script in page.scripts:
        assert "src" in script or script.get("type") == "application/json", script
    # The assets once, however many widgets: each of the calculators' scripts, the widget last.
    scripts = [tag["src"] for tag in page.scripts if "/js/calc" in tag.get("src", "")]
    assert len(scripts) > 1 and len(scripts) == len(set(scripts))
    assert scripts[-1].endswith("/js/calculators.js")


def test_embed_presets_inputs_from_the_query_and_may_be_framed(client):
    response = client.get(
        "/embed/calc/compare?ranks=8&hardware=nvlink4&message_bytes=4096&theme=dark"
    )
    assert response.status_code == 200
    # Any parent may frame it: no frame-ancestors directive, no X-Frame-Options.
    assert "frame-ancestors" not in response.headers["Content-Security-Policy"]
    assert "X-Frame-Options" not in response.headers
    html = response.get_data(as_text=True)
    assert 'data-theme="dark"' in html
    assert re.search(r'name="ranks" value="8"', html)
    assert re.search(r'name="bandwidth_gbs" value="450"', html)  # filled from the preset
    assert 'class="site-header"' not in html  # minimal chrome


def test_embed_with_a_bad_input_shows_the_error_and_the_defaults(client):
    html = client.get("/embed/calc/moe?top_k=0").get_data(as_text=True)
    assert "top_k must be an integer in 1..64, got 0" in html
    assert re.search(r'name="top_k" value="2"', html)


def test_embed_of_an_unknown_calculator_is_a_404_that_lists_them(client):
    response = client.get("/embed/calc/warp_drive")
    assert response.status_code == 404
    assert "There are: compare" in response.get_data(as_text=True)


@pytest.mark.parametrize("endpoint", ["/api/cost", "/api/cost/compare"])
def test_no_cost_input_makes_a_server_error(client, endpoint):
    good = {
        "collective": "allreduce",
        "algorithm": "hierarchical",
        "ranks": "16",
        "bytes": "1e6",
        "hardware": "ib_ndr",
        "ranks_per_node": "4",
        "intra_hardware": "nvlink4",
    }
    if endpoint.endswith("compare"):
        good.pop("algorithm")
    names = [
        *good,
        "latency_us",
        "bandwidth_gbs",
        "gamma_s_per_byte",
        "intra_latency_us",
        "intra_bandwidth_gbs",
        "segments",
    ]
    for name in names:
        for value in WEIRD:
            response = client.get(endpoint, query_string={**good, name: value})
            assert response.status_code in (200, 400), (name, value, response.data[:200])
            strict_json(response)


def test_embed_ignores_an_unknown_input_but_says_so(client):
    html = client.get("/embed/calc/compare?ranks=8&preset=nvlink4").get_data(as_text=True)
    assert "unknown input &#39;preset&#39; for compare" in html
    assert re.search(r'name="ranks" value="8"', html)


# -- degenerate and largest inputs (issue 12) ------------------------------------------------


def test_hierarchical_on_one_gpu_answers_zero_instead_of_a_server_error(client):
    body = strict_json(client.get("/api/calc/hierarchical?gpus_per_node=1&nodes=1"))
    outputs = {o["key"]: o["value"] for o in body["outputs"]}
    assert outputs["flat_s"] == outputs["leader_s"] == outputs["hierarchical_s"] == 0
    assert "nothing to communicate" in body["interpretation"]
    page = client.get("/embed/calc/hierarchical?gpus_per_node=1&nodes=1")
    assert page.status_code == 200
    assert "nothing to communicate" in page.get_data(as_text=True)


def test_hierarchical_past_the_rank_limit_is_a_400_naming_its_inputs(client):
    response = client.get("/api/calc/hierarchical?gpus_per_node=1024&nodes=16384")
    assert response.status_code == 400
    error = strict_json(response)["error"]
    assert "gpus_per_node × nodes = 1024 × 16384 = 16,777,216 GPUs" in error
    assert "at most 65536" in error


def test_a_hundred_thousand_ddp_buckets_make_a_small_page(client):
    # One bucket per tensor: 100,000 of them. The answer lists 100 and counts them all.
    query = "layers=1000&tensors_per_layer=100&bucket_mib=1e-9&first_bucket_mib=1e-9&ranks=64"
    response = client.get(f"/api/calc/ddp_overlap?{query}")
    assert response.status_code == 200
    assert len(response.data) < 100_000  # it was 20 MB, and 191.6 MB for a million buckets
    body = strict_json(response)
    assert {o["key"]: o["value"] for o in body["outputs"]}["buckets"] == 100_000
    assert len(body["table"]["rows"]) == 100


def test_a_calculator_embed_spends_the_same_per_address_budget_as_the_api():
    # An embed runs its calculator on the server, so it is charged like an answer (or more).
    app = create_app({"TESTING": True, "API_RATE_PER_S": 0.001, "API_BURST": 4})
    client = app.test_client()
    codes = [client.get("/embed/calc/ddp_overlap").status_code for _ in range(5)]
    assert codes[0] == 200 and codes[-1] == 429
    assert client.get("/api/calc/ddp_overlap").status_code == 429  # one budget for both
