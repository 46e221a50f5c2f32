"""The cheat sheet's numbers are the code's: busbw factors from app.costs, links from presets."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from app.costs import COLLECTIVES, HARDWARE, bus_factor
from app.toolkit import cheatsheet, expressions


class Cells(HTMLParser):
    """Collect the text of each <tr> of the tables marked data-role=busbw / hardware."""

    def __init__(self) -> None:
        super().__init__()
        self.table: str | None = None
        self.rows: dict[str, list[list[str]]] = {}
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and attrs.get("data-role") in ("busbw", "hardware"):
            self.table = attrs["data-role"]
            self.rows[self.table] = []
        elif tag == "tr" and self.table:
            self.rows[self.table].append([])
        elif tag in ("td", "th") and self.table:
            self.cell = []

    def handle_endtag(self, tag):
        if tag == "table":
            self.table = None
        elif tag in ("td", "th") and self.table and self.cell is not None:
            self.rows[self.table][-1].append(" ".join("".join(self.cell).split()))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


@pytest.fixture(scope="module")
def tables():
    from app import create_app
    from tests.conftest import TEST_CONFIG

    html = create_app(TEST_CONFIG).test_client().get("/toolkit/cheatsheet").get_data(as_text=True)
    parser = Cells()
    parser.feed(html)
    return parser.rows


@pytest.mark.parametrize("row", cheatsheet.busbw_rows(), ids=lambda r: r["label"])
def test_each_written_busbw_factor_is_the_one_the_code_computes(row):
    tree = expressions.parse(row["factor"], ("n",), "factor")
    for collective in row["collectives"]:
        for n in (1, 2, 3, 8, 100, 128, 4096):
            assert expressions.evaluate(tree, {"n": n}) == pytest.approx(bus_factor(collective, n))


def test_the_busbw_rows_cover_every_collective_of_the_cost_model_once():
    listed = [c for row in cheatsheet.busbw_rows() for c in row["collectives"]]
    assert sorted(listed) == sorted(COLLECTIVES)


def test_the_printed_busbw_values_are_bus_factor_at_8_and_128_ranks(tables):
    body = tables["busbw"][1:]
    assert len(body) == len(cheatsheet.busbw_rows())
    for cells, row in zip(body, cheatsheet.busbw_rows(), strict=True):
        first = row["collectives"][0]
        assert float(cells[2]) == pytest.approx(bus_factor(first, 8), rel=1e-3)
        assert float(cells[3]) == pytest.approx(bus_factor(first, 128), rel=1e-3)
    assert body[0][2:] == ["1.75", "1.984"]  # AllReduce: 2·7/8 and 2·127/128


def test_the_printed_links_are_the_presets_per_direction_and_doubled(tables):
    body = tables["hardware"][1:]
    keys = ["nvlink3", "nvlink4", "nvlink5", "pcie4", "pcie5", "ib_hdr", "ib_ndr", "ib_xdr"]
    assert [cells[0] for cells in body] == [HARDWARE[k].label for k in keys]
    for cells, key in zip(body, keys, strict=True):
        assert float(cells[1]) == HARDWARE[key].bandwidth_gbs
        assert float(cells[2]) == 2 * HARDWARE[key].bandwidth_gbs
    # REFERENCE § 4, per direction: NVLink 4 is 450 GB/s, NDR 50 GB/s.
    assert dict((c[0], c[1]) for c in body)[HARDWARE["nvlink4"].label] == "450"


def test_the_nvlink_to_nic_ratio_is_computed_from_the_presets(client):
    html = client.get("/toolkit/cheatsheet").get_data(as_text=True)
    ratio = HARDWARE["nvlink4"].bandwidth_gbs / HARDWARE["ib_ndr"].bandwidth_gbs
    assert ratio == 9  # REFERENCE § 4: NVLink 4 / NDR = 450/50 ≈ 9×
    assert f"= 450/50 = {ratio:g}×" in html


def test_the_sheet_says_the_facts_interviews_get_wrong():
    text = repr(cheatsheet.sheet())
    for fact in ("NCCL_COMM_TIMEOUT", "NCCL_PROFILE", "256 KB", "10 min", "NCCL_IB_TIMEOUT"):
        assert fact in text
    names = [a["name"] for a in cheatsheet.sheet()["algorithms"]]
    assert names == ["Ring", "Tree", "CollNet (Direct, Chain)", "NVLS", "NVLSTree", "PAT"]
    assert [p["name"] for p in cheatsheet.sheet()["protocols"]] == ["LL", "LL128", "Simple"]
    assert re.search(r"2\(p−1\)α \+ 2\(\(p−1\)/p\)Mβ \+ \(\(p−1\)/p\)Mγ", text)
