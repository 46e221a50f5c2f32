"""app.reading.nccl_tests: real nccl-tests outputs (tests/fixtures/nccl_tests, each with its
source) read into rows, checked against the values read off the text by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.reading.nccl_tests import MAX_TEXT_CHARS, NcclTestsError, parse
from app.reading.nccl_tests_json import read_output
from app.reading.nccl_tests_model import link_for, model_beside

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "nccl_tests"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_every_fixture_names_its_public_source():
    for path in sorted(FIXTURES.glob("*.txt")):
        assert path.read_text().startswith("# Source: https://github.com/"), path.name


def test_a_two_node_all_reduce_with_the_newest_header():
    r = parse(fixture("gb10_2node_all_reduce.txt"))
    assert (r.collective, r.collective_from) == ("allreduce", "header")
    assert (r.ranks, r.ranks_from, r.nodes) == (2, "rank lines", 2)
    assert r.version == "2.20.0"
    assert [row.size_bytes for row in r.rows] == [8192, 16384, 32768, 65536]
    first = r.rows[0]
    assert (first.count, first.type, first.redop, first.root) == (2048, "float", "sum", -1)
    assert (first.out_of_place.time_us, first.out_of_place.algbw_gbs) == (35.15, 0.23)
    assert (first.in_place.time_us, first.in_place.busbw_gbs, first.in_place.wrong) == (
        30.33,
        0.27,
        0,
    )
    assert r.peak() == {"busbw_gbs": 1.01, "size_bytes": 65536, "placement": "in_place"}
    assert r.inconsistent() == [] and not r.truncated


def test_all_gather_infers_its_ranks_from_busbw_over_algbw():
    r = parse(fixture("all_gather_2gpu_bf16.txt"))
    assert r.collective == "allgather"
    assert (r.ranks, r.ranks_from, r.nodes) == (2, "busbw/algbw", None)
    assert len(r.rows) == 7 and r.rows[-1].size_bytes == 117440512
    row = r.rows[2]  # 50331648  12582912  bfloat16  none  -1  237.9  211.57  105.78  0 ...
    assert (row.type, row.redop, row.out_of_place.busbw_gbs, row.in_place.algbw_gbs) == (
        "bfloat16",
        "none",
        105.78,
        251.62,
    )
    assert r.peak() == {"busbw_gbs": 144.59, "size_bytes": 100663296, "placement": "in_place"}
    assert all(p.consistent for row in r.rows for p in (row.out_of_place, row.in_place))


def test_the_old_layout_with_an_error_column_and_a_cut_last_row():
    r = parse(fixture("h20_2node_old_layout_truncated.txt"), collective="allreduce", ranks=16)
    assert r.wrong_column == "error" and r.truncated
    assert len(r.rows) == 8 and r.rows[-1].size_bytes == 512  # "1024  256" was cut off
    row = r.rows[0]
    assert (row.redop, row.root, row.out_of_place.time_us, row.in_place.wrong) == (
        "sum",
        None,
        47.54,
        4e-07,
    )
    assert (r.collective_from, r.ranks_from) == ("caller", "caller")


def test_the_old_layout_alone_names_neither_collective_nor_ranks():
    r = parse(fixture("h20_2node_old_layout_truncated.txt"))
    assert r.collective is None and r.ranks is None
    assert any("collective unknown" in n for n in r.notes)
    assert model_beside(r, "dgx_h100")["points"] == []


def test_launcher_prefixes_even_mid_row_are_dropped():
    r = parse(fixture("launcher_prefix_truncated.txt"), collective="allreduce")
    assert len(r.rows) == 10 and r.truncated
    row = r.rows[6]  # [0] 67108864 16777216 float sum -1[0] 24410 2.75 5.27 0[0] 24425 ...
    assert (row.size_bytes, row.root, row.out_of_place.time_us, row.in_place.time_us) == (
        67108864,
        -1,
        24410,
        24425,
    )
    assert r.ranks == 24  # 29.50 / 15.39 = 2·23/24 to the printed digits
    assert r.peak()["busbw_gbs"] == 29.50


def test_srun_and_open_mpi_line_prefixes_are_read_through():
    lines = fixture("gb10_2node_all_reduce.txt").splitlines()
    for prefix in ("0: ", "[1,0]<stdout>:", "spark-d708: "):
        r = parse("\n".join(prefix + line for line in lines))
        assert (r.collective, r.ranks, len(r.rows)) == ("allreduce", 2, 4), prefix
        assert r.rows[3].in_place.busbw_gbs == 1.01 and r.inconsistent() == []


def test_rows_without_any_header_and_noise_lines_between():
    r = parse(fixture("headerless_8gpu_all_reduce.txt"), collective="allreduce")
    assert (r.ranks, len(r.rows), r.truncated) == (8, 11, True)
    assert r.peak() == {"busbw_gbs": 300.52, "size_bytes": 33554432, "placement": "in_place"}
    r = parse(fixture("h100pcie_2gpu_all_reduce.txt"))
    assert (r.collective, r.ranks, len(r.rows)) == ("allreduce", 2, 3)  # NCCL INFO lines skipped
    assert r.rows[1].out_of_place.time_us == 18535
    last = r.rows[2]  # "... 36943 116.26 116.26 0 36917 116.34 116." : the in-place is cut
    assert (last.out_of_place.busbw_gbs, last.in_place, r.truncated) == (116.26, None, True)


def test_a_corrupted_busbw_is_flagged_and_the_rest_pass():
    text = fixture("all_gather_2gpu_bf16.txt").replace("91.66", "97.66")
    r = parse(text)
    assert r.inconsistent() == [
        {
            "size_bytes": 33554432,
            "placement": "out_of_place",
            "problem": r.inconsistent()[0]["problem"],
        }
    ]
    assert "busbw 97.66" in r.inconsistent()[0]["problem"]
    text = fixture("gb10_2node_all_reduce.txt").replace("39.56", "49.56")  # a wrong time
    assert [(i["size_bytes"], i["placement"]) for i in parse(text).inconsistent()] == [
        (32768, "out_of_place")
    ]


def test_per_iteration_columns_and_a_timestamp():
    # The layout of util.cu's writeResultHeader with per_iter_timing and report_timestamps.
    text = (
        "# Collective test starting: reduce_scatter_perf\n"
        "#  size count type redop root time algbw busbw #wrong i_min i_max i_p99 i_cv% "
        "time algbw busbw #wrong i_min i_max i_p99 i_cv%\n"
        "  1048576  32768  float  sum  -1  20.00  52.43  45.88  0  19.1  22.0  21.9  3.10"
        "  21.00  49.93  43.69  0  20.2  23.1  23.0  2.90  2026-01-02 03:04:05\n"
    )
    r = parse(text, ranks=8)
    row = r.rows[0]
    assert (row.out_of_place.busbw_gbs, row.in_place.time_us, row.in_place.wrong) == (
        45.88,
        21.0,
        0,
    )
    assert r.inconsistent() == []


def _measured(time_us: float, size: int, factor: float, nwrong) -> dict:
    """A placement as util.cu's writeBenchmarkLineBody writes it (%lf: six decimals)."""
    alg = size / (time_us * 1e-6) / 1e9
    return {
        "time": time_us,
        "alg_bw": round(alg, 6),
        "bus_bw": round(alg * factor, 6),
        "nwrong": nwrong,
    }


def test_the_json_report_reads_like_the_table():
    report = {
        "version": 3,
        "args": ["./build/all_reduce_perf", "-b", "8"],
        "config": {"devices": [{"rank": i, "hostname": f"n{i // 4}"} for i in range(8)]},
        "results": [
            {
                "size": 1048576,
                "count": 262144,
                "type": "float",
                "redop": "sum",
                "root": "    -1",
                "out_of_place": _measured(27.76, 1048576, 1.75, 0),
                "in_place": _measured(27.49, 1048576, 1.75, None),
            }
        ],
        "average_bus_bandwidth": {"bandwidth": 66.4, "okay": "unchecked"},
    }
    r = read_output(json.dumps(report))
    assert (r.collective, r.ranks, r.nodes, r.avg_busbw_gbs) == ("allreduce", 8, 2, 66.4)
    assert r.rows[0].in_place.wrong is None and r.rows[0].root == -1
    assert r.inconsistent() == []
    with pytest.raises(NcclTestsError, match="unclosed"):
        read_output(json.dumps(report)[:-30])


@pytest.mark.parametrize("text", ["", "hello world", "#\n# Avg bus bandwidth : 0\n", "1 2 3 4 5"])
def test_garbage_is_a_clear_error(text):
    with pytest.raises(NcclTestsError, match="no nccl-tests rows found"):
        parse(text)


def test_the_input_is_bounded():
    with pytest.raises(NcclTestsError, match="at most"):
        parse("x" * (MAX_TEXT_CHARS + 1))


def test_the_model_says_short_on_one_node_of_a100_and_why():
    r = parse(fixture("all_gather_2gpu_bf16.txt"))
    model = model_beside(r, "dgx_a100")
    assert model["verdict"] == "short" and model["algorithm"] == "ring"
    assert model["link"]["bandwidth_gbs"] == 300.0  # one node: NVLink 3, per direction
    # Ring allgather, p = 2: (p-1)α + (p-1)/p·M/B; busbw = M/t · (p-1)/p.
    m = 16777216
    t = 0.6e-6 + 0.5 * m / 300e9
    assert model["points"][0]["busbw_gbs"] == pytest.approx(m / t / 1e9 * 0.5)
    assert "falls furthest short" in model["sentence"] and "protocol overhead" in model["sentence"]


def test_the_model_says_beyond_when_busbw_beats_the_point_to_point_bound():
    r = parse(fixture("headerless_8gpu_all_reduce.txt"), collective="allreduce")
    model = model_beside(r, "pcie4")  # 31.5 GB/s per direction: 300 GB/s busbw is not a ring's
    assert model["verdict"] == "beyond"
    assert "in-network reduction" in model["sentence"] and "NVLS" in model["sentence"]


def test_across_nodes_the_model_takes_the_nics_of_a_node():
    link = link_for("dgx_a100", ranks=16, nodes=2)
    assert link["bandwidth_gbs"] == 200.0  # min(300 NVLink, 8 × 25 HDR)
    assert link["latency_us"] == 2.7
    assert link_for("dgx_a100", ranks=8, nodes=None)["bandwidth_gbs"] == 300.0


def test_an_h100_alltoall_cut_inside_its_last_column_keeps_the_whole_placement():
    r = parse(fixture("h100_4gpu_alltoall_truncated.txt"))
    assert (r.collective, r.ranks, r.nodes, r.version) == ("all_to_all", 4, 1, "2.17.8")
    assert r.truncated and len(r.rows) == 1
    row = r.rows[0]  # 524288000 32768000 float none -1 1174.14 446.53 334.90 0 1163.40 ... N
    assert row.in_place is None
    assert (row.out_of_place.time_us, row.out_of_place.busbw_gbs) == (1174.14, 334.90)
    assert row.out_of_place.consistent  # 524288000 B / 1174.14 µs = 446.53; × 3/4 = 334.90
    model = model_beside(r, "dgx_h100")
    assert model["algorithm"] == "pairwise" and model["verdict"] == "short"
