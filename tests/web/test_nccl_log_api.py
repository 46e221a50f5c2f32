"""POST /api/nccl-log and the page /nccl-log: what a user posting a log gets back."""

from __future__ import annotations

import re
from pathlib import Path

from app.reading.nccl_log import MAX_CHARS

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "nccl_logs"
SINGLE = (LOGS / "single_node_pcie.log").read_text()


def test_text_body_gives_the_reading(client):
    r = client.post("/api/nccl-log", data=SINGLE, content_type="text/plain; charset=utf-8")
    assert r.status_code == 200
    ring0 = next(c for c in r.json["channels"] if c["channel"] == 0)
    assert ring0["ring"] == [0, 1, 2, 3, 4, 5, 6, 7]
    assert r.json["summary"].startswith("At least 8 ranks on 1 host named in the log")


def test_json_body_gives_the_same_reading(client):
    as_text = client.post("/api/nccl-log", data=SINGLE, content_type="text/plain").json
    assert client.post("/api/nccl-log", json={"log": SINGLE}).json == as_text


def errors(client, **kwargs) -> str:
    r = client.post("/api/nccl-log", **kwargs)
    assert r.status_code == 400 and r.is_json
    return r.json["error"]


def test_refusals_are_400_and_name_the_field(client):
    assert errors(client, data="", content_type="text/plain").startswith("log: is empty")
    assert errors(client, data="loss 0.3\n", content_type="text/plain").startswith(
        "log: no NCCL line found"
    )
    big = "NCCL INFO x\n" * (MAX_CHARS // 12 + 1)
    assert errors(client, json={"log": big}).startswith(f"log: at most {MAX_CHARS} characters")
    assert "Content-Type" in errors(client, data=SINGLE, content_type="text/html")
    assert errors(client, json={"log": 3}).startswith("log: must be a string")
    assert errors(client, json=["log"]).startswith("body: must be a JSON object")
    assert errors(client, data=b"\xff\xfe", content_type="text/plain") == "body: must be UTF-8 text"


def test_page_draws_the_ring_and_says_it(client):
    r = client.post("/nccl-log", data={"log": SINGLE})
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert "Channel 0&#39;s ring: 0 → 1 → 2 → 3 → 4 → 5 → 6 → 7 → 0." in html
    # The SHM hop 3 -> 4 is drawn as an SHM arrow
    assert re.search(r'class="nl-edge nl-shm"[^>]*data-src="3" data-dst="4"', html)


def test_page_takes_an_uploaded_file(client):
    upload = (LOGS / "multi_node_ib_gdr.log").open("rb")
    r = client.post("/nccl-log", data={"log": "", "file": (upload, "run.log")})
    assert r.status_code == 200
    assert "cosmos-hpc-100a45" in r.get_data(as_text=True)


def test_page_refuses_a_bad_paste_with_the_reason(client):
    r = client.post("/nccl-log", data={"log": "<b>not a log</b>"})
    assert r.status_code == 400
    html = r.get_data(as_text=True)
    assert "log: no NCCL line found" in html
    assert "<b>not a log</b>" not in html  # the paste comes back escaped in the textarea


def test_a_host_name_with_markup_comes_back_as_text(client):
    log = "<img/src=x>:1:2 [0] NCCL INFO Channel 00/01 :    0   1\n"
    html = client.post("/nccl-log", data={"log": log}).get_data(as_text=True)
    assert "<img/src=x>" not in html
    assert "&lt;img/src=x&gt; (1 rank)" in html  # the host's box label, escaped


def test_a_body_past_the_limit_gets_the_one_answer_every_endpoint_gives(app, client):
    """413 naming the body and the limit (app/web/errors.py): no 400 of the log's own."""
    limit = app.config["MAX_CONTENT_LENGTH"]
    r = client.post("/api/nccl-log", data="x" * (limit + 1), content_type="text/plain")
    assert r.status_code == 413 and r.json == {"error": f"body: at most {limit} bytes"}
    page = client.post("/nccl-log", data={"log": "x" * (limit + 1)})
    assert page.status_code == 413
    assert f"body: at most {limit} bytes" in page.get_data(as_text=True)


def test_the_layout_is_drawn_once_however_many_channel_pictures_use_it(client):
    """Boxes and discs once (3 hosts' boxes and 16 ranks, as the browser test reads them off
    multi_node_ring_210.log); each channel's ring or tree picture only <use>s them."""
    log = (LOGS / "multi_node_ring_210.log").read_text()
    html = client.post("/nccl-log", data={"log": log}).get_data(as_text=True)
    pictures = re.findall(r'<svg class="nl-svg".*?</svg>', html, flags=re.S)
    assert len(pictures) >= 2  # channel 0's ring and channel 1's tree at least
    for svg in pictures:
        assert re.findall(r'<use href="(#[\w-]+)"/>', svg) == ["#nl-hosts", "#nl-ranks"]
        assert "<rect" not in svg and "<circle" not in svg
    assert html.count('<rect class="nl-box') == 3 and html.count('class="nl-rank"') == 16
    assert html.count('id="nl-hosts"') == 1 and html.count('id="nl-ranks"') == 1
