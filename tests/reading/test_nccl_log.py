"""app/reading/nccl_log.py against real logs from public issues (tests/fixtures/nccl_logs/).

Every expected value below was read off the fixture by hand, not copied from the parser's
output: the line that says it is quoted beside each assertion.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.reading.nccl_log import MAX_CHARS, NcclLogError, parse
from app.reading.nccl_log_lines import transport_kind

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "nccl_logs"


def read(name: str) -> dict:
    return parse((LOGS / name).read_text())


def channel(reading: dict, c: int) -> dict:
    return next(ch for ch in reading["channels"] if ch["channel"] == c)


def edge(reading: dict, c: int, src: int, dst: int) -> dict:
    return next(e for e in channel(reading, c)["edges"] if (e["src"], e["dst"]) == (src, dst))


def tree_edges(reading: dict, c: int) -> set[tuple[int, int]]:
    tree = next(t for t in reading["trees"] if t["channel"] == c)
    return {(e["parent"], e["child"]) for e in tree["edges"]}


def hosts(reading: dict) -> dict[str, list[int]]:
    return {n["host"]: n["ranks"] for n in reading["nodes"]}


def test_single_node_rings_trees_and_transports():
    r = read("single_node_pcie.log")
    # "Channel 00/02 :    0   1   2   3   4   5   6   7", twice
    assert channel(r, 0)["ring"] == [0, 1, 2, 3, 4, 5, 6, 7]
    assert channel(r, 1)["ring"] == [0, 1, 2, 3, 4, 5, 6, 7]
    assert r["channel_count"] == 2
    # "[3] ... Channel 00 : 3[3] -> 4[4] via SHM/direct/direct"
    assert edge(r, 0, 3, 4)["transport"] == "SHM/direct/direct"
    assert edge(r, 0, 3, 4)["kind"] == "SHM"
    assert edge(r, 0, 0, 1)["kind"] == "P2P/direct"  # "via P2P/direct pointer/read"
    # "[4] Trees [0] 5/-1/-1->4->3": 3 is 4's parent, 5 its child; "[0] ... 1/-1/-1->0->-1"
    assert {(3, 4), (4, 5), (0, 1)} <= tree_edges(r, 0)
    assert next(t for t in r["trees"] if t["channel"] == 0)["roots"] == [0]
    assert hosts(r) == {"UIBE-DC-GPUSVR-01": [0, 1, 2, 3, 4, 5, 6]}  # rank 7 logs no rank line
    # The paste's last line stops before "via": line 17 (line 1 is the fixture's source)
    assert [u["line"] for u in r["not_understood"]] == [17]


def test_multi_node_ring_crosses_between_hosts():
    r = read("multi_node_ring_210.log")
    assert r["version"] == "2.10.3"  # "NCCL version 2.10.3+cuda11.0"
    ring = channel(r, 0)["ring"]
    assert ring == [0, 7, 6, 5, 12, 11, 10, 9, 8, 15, 14, 13, 4, 3, 2, 1]
    assert r["channel_count"] == 2  # "Channel 00/02"
    # "[4] Trees [0] 13/-1/-1->12->4 [1] 13/4/-1->12->-1"
    assert (4, 12) in tree_edges(r, 0)
    assert {(12, 13), (12, 4)} <= tree_edges(r, 1)
    assert hosts(r) == {"nodea": [0], "nodeb": [11, 12, 13, 14]}
    assert r["node_count"] is None  # no init line: only the hosts the prefixes name
    assert "2 hosts named" in r["summary"]


def test_multi_node_net_ib_gdr_and_p2p_ipc():
    r = read("multi_node_ib_gdr.log")
    # "Channel 00 : 3[4a000] -> 6[44000] [send] via NET/IB/0/GDRDMA"
    assert edge(r, 0, 3, 6)["transport"] == "NET/IB/0/GDRDMA"
    assert edge(r, 0, 3, 6)["kind"] == "NET/IB"
    assert edge(r, 1, 7, 2)["kind"] == "NET/IB"
    assert edge(r, 0, 1, 0)["kind"] == "P2P/IPC"  # "via P2P/IPC/read"
    assert hosts(r) == {"cosmos-hpc-100a45": [0, 1, 3], "cosmos-hpc-100a55": [4, 5, 7]}
    assert "rings" in r["connected"]  # "Connected all rings"


def test_recent_init_line_trees_and_truncation():
    r = read("recent_two_nodes_trees.log")
    # "comm 0x5b0bc60 rank 3 nRanks 4 nNodes 2 localRanks 2 localRank 1 MNNVL 0"
    assert (r["ranks"], r["node_count"], r["ranks_from_init"]) == (4, 2, True)
    assert {"rank": 3, "local_rank": 1, "local_ranks": 2} in r["local_ranks"]
    # "Tree 5 : -1 -> 3 -> 2/1/-1", "[1] ... [5] 0/-1/-1->1->3", "[0] ... [5] -1/-1/-1->0->1"
    assert tree_edges(r, 5) == {(3, 2), (3, 1), (1, 0)}
    assert next(t for t in r["trees"] if t["channel"] == 5)["depth"] == 2
    # "Ring 06 : 2 -> 0 -> 1" and "Ring 06 : 0 -> 1 -> 3": three hops known, not the ring
    assert channel(r, 6)["ring"] is None
    assert channel(r, 6)["ring_links"] == [[0, 1], [1, 3], [2, 0]]
    assert hosts(r)["H20-GPU-05"] == [0, 1]
    assert r["not_understood"] == [{"line": 18, "text": "H20-GPU-06:40155"}]


def test_old_ring_lines_with_numbered_paste():
    r = read("old_24_ring_mpi.log")
    # "7  [1] NCCL INFO Ring 00 : 1[23000] -> 8[1e000] [send] via NET/IB/1/GDRDMA"
    assert edge(r, 0, 1, 8)["transport"] == "NET/IB/1/GDRDMA"
    assert edge(r, 0, 12, 11)["kind"] == "P2P/IPC"
    assert r["ranks"] == 16 and not r["ranks_from_init"]  # 15 is the highest rank seen
    assert r["nodes"] == [] and r["not_understood"] == []


def test_old_two_way_trees_and_mpirun_prefix():
    r = read("old_25_openmpi_trees.log")
    # "[3] 153/146/162->155->154|154->155->153/146/162"
    assert tree_edges(r, 3) == {(155, 153), (155, 146), (155, 162), (154, 155)}
    assert edge(r, 0, 155, 157)["kind"] == "P2P/IPC"
    assert hosts(r) == {"crow-ib-new-nccl-256-info-19": [155]}


def test_old_socket_send_and_receive_lines_name_their_rank():
    r = read("old_socket_many_nodes.log")
    h = hosts(r)
    assert h["ip-172-31-5-50"] == [45]  # "Ring 00 : 45 -> 46 [send]": the sender logs it
    assert h["ip-172-31-12-210"] == [44]  # "Ring 00 : 43 -> 44 [receive]": the receiver
    assert len(h) == 7
    assert edge(r, 0, 45, 46)["kind"] == "NET/Socket"


def test_torchrun_prefix_and_nvls():
    r = read("torchrun_nvls_recent.log")
    assert hosts(r) == {"costa-671b-5-worker-1": [0]}  # "[rank0]:costa-671b-5-worker-1:382:675 [0]"
    assert (r["ranks"], r["node_count"], r["channel_count"]) == (4, 1, 24)  # "Channel 00/24"
    assert channel(r, 2)["ring"] == [0, 1, 2, 3]
    assert r["nvls"]["present"]  # "NVLS multicast support is available on dev 0"


def test_nvls_heads_and_a_wrapped_paste():
    r = read("nvls_heads_two_nodes.log")
    # "NVLS Head  0:  0  8", "NVLS Head  1:  1  9", "NVLS Head  2:  2 10"
    assert r["nvls"]["heads"] == [
        {"head": 0, "ranks": [0, 8]},
        {"head": 1, "ranks": [1, 9]},
        {"head": 2, "ranks": [2, 10]},
    ]
    assert r["not_understood"] == []  # two NCCL lines on one pasted line are both read


def test_numeric_tuning_choices():
    r = read("tuning_old_numeric.log")
    # "805306368 Bytes -> Algo 1 proto 2 time 3970.683594", three times
    assert r["tuning"]["choices"] == [
        {
            "collective": None,
            "bytes": 805306368,
            "algorithm": "Ring (1)",
            "protocol": "Simple (2)",
            "calls": 3,
        }
    ]


def test_tuning_table_and_named_choices_from_nccl_format_strings():
    # Built from src/graph/tuning.cc's and src/enqueue.cc's INFO format strings.
    log = "\n".join(
        [
            "h:1:2 [0] NCCL INFO   Algorithm   |            Tree |            Ring |",
            "h:1:2 [0] NCCL INFO   Protocol    |  LL | LL128 | Simple |  LL | LL128 | Simple |",
            "h:1:2 [0] NCCL INFO  Max NThreads |  512 |  640 |  512 |  512 |  640 |  512 |",
            "h:1:2 [0] NCCL INFO     AllReduce |    10.4/   4.0 |    20.9/  70.0 |",
            "h:1:2 [0] NCCL INFO AllReduce: 65536 Bytes -> Algo RING proto SIMPLE "
            "channel{Lo..Hi}={0..3}",
        ]
    )
    r = parse(log)
    assert r["tuning"]["table"]["algorithms"] == ["Tree", "Ring"]
    assert r["tuning"]["table"]["rows"][0]["cells"][1] == [20.9, 70.0]
    assert r["tuning"]["choices"][0]["algorithm"] == "Ring"
    assert r["tuning"]["choices"][0]["collective"] == "AllReduce"
    assert r["not_understood"] == []


def test_summary_counts_network_crossings_per_channel():
    # Init lines as before 2.20 (no MNNVL). Two hosts: 0 and 1 on a, 2 and 3 on b; the ring
    # 0 1 2 3 leaves a node at 1 -> 2 and at 3 -> 0.
    log = "\n".join(
        [
            "a:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 4 nNodes 2 localRanks 2 localRank 0",
            "a:1:2 [1] NCCL INFO comm 0x2 rank 1 nRanks 4 nNodes 2 localRanks 2 localRank 1",
            "b:1:1 [0] NCCL INFO comm 0x3 rank 2 nRanks 4 nNodes 2 localRanks 2 localRank 0",
            "b:1:2 [1] NCCL INFO comm 0x4 rank 3 nRanks 4 nNodes 2 localRanks 2 localRank 1",
            "a:1:1 [0] NCCL INFO Channel 00/02 :    0   1   2   3",
            "a:1:1 [0] NCCL INFO Channel 01/02 :    0   1   2   3",
            "a:1:1 [0] NCCL INFO Trees [0] 1/2/-1->0->-1 [1] 1/-1/-1->0->2",
        ]
    )
    r = parse(log)
    assert r["crossings"]["per_channel"] == [{"channel": 0, "count": 2}, {"channel": 1, "count": 2}]
    assert r["summary"].startswith("4 ranks on 2 nodes, 2 channels, rings cross the network twice")
    # Channel 1's tree: 2 above 0 above 1 ("[1] 1/-1/-1->0->2"): three levels
    assert "trees up to 3 levels" in r["summary"]


@pytest.mark.parametrize(
    ("label", "kind"),
    [
        ("P2P/CUMEM/read", "P2P/IPC"),
        ("P2P/IPC", "P2P/IPC"),
        ("P2P/direct pointer", "P2P/direct"),
        ("SHM/direct/direct", "SHM"),
        ("NET/IB/0/GDRDMA", "NET/IB"),
        ("NET/Socket/0", "NET/Socket"),
        ("COLLNET/SHARP/0", "COLLNET"),
    ],
)
def test_transport_groups(label, kind):
    assert transport_kind(label) == kind


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "log: is empty"),
        ("   \n\n", "log: is empty"),
        ("Epoch 1 loss 0.25\nEpoch 2 loss 0.20", "log: no NCCL line found"),
        ("x" * (MAX_CHARS + 1), f"log: at most {MAX_CHARS} characters"),
        (None, "log: must be the text"),
    ],
)
def test_refusals_name_the_field(text, message):
    with pytest.raises(NcclLogError, match="^" + message.replace("(", r"\(")):
        parse(text)


def test_nccl_24_formats_from_its_source():
    # v2.4.8-1's format strings: "Channel %02d : " + ranks (init.cc), " [%d] %d->%d->%d/%d/%d"
    # (up, me, down) after "Trees", "Ring %02d : %d[%d] -> %d[%d] via direct shared memory"
    # (shm.cc) and "Ring %02d : %d -> %d [send] via NET/%s/%d" (net.cc).
    log = "\n".join(
        [
            "NCCL version 2.4.8+cuda10.1",
            "h:1:1 [0] NCCL INFO Channel 00 :    0   1   2   3",
            "h:1:1 [0] NCCL INFO Trees [0] -1->0->1/-1/-1 [1] -1->0->1/-1/-1",
            "h:1:2 [1] NCCL INFO Trees [0] 0->1->2/-1/-1 [1] 0->1->2/-1/-1",
            "h:1:2 [1] NCCL INFO Ring 00 : 1[1] -> 2[2] via direct shared memory",
            "h:1:4 [3] NCCL INFO Ring 00 : 3 -> 0 [send] via NET/IB/0",
        ]
    )
    r = parse(log)
    assert r["version"] == "2.4.8"
    assert channel(r, 0)["ring"] == [0, 1, 2, 3]
    assert tree_edges(r, 0) == {(0, 1), (1, 2)}
    assert next(t for t in r["trees"] if t["channel"] == 0)["roots"] == [0]
    assert edge(r, 0, 1, 2)["kind"] == "SHM"
    assert edge(r, 0, 3, 0)["kind"] == "NET/IB"
    assert r["not_understood"] == []


def test_launcher_prefixes_timestamps_and_collnet():
    # coll_net.cc: "CollNet %02d/%1d : %d [send] via COLLNET/%s/%d"; init.cc: "%d coll channels,
    # %d collnet channels, %d nvls channels, %d p2p channels, %d p2p channels per peer"
    log = "\n".join(
        [
            "[1,0]<stdout>:NCCL version 2.18.5+cuda12.0",
            "[1,0]<stdout>:n1:10:11 [0] NCCL INFO Channel 00/01 :    0   1",
            "2024-05-01 10:00:00,123 - n2:20:21 [0] NCCL INFO CollNet 00/0 : 1 [send] "
            "via COLLNET/SHARP/0",
            "[rank0]:n1:10:11 [0] NCCL INFO 2 coll channels, 2 collnet channels, 0 nvls channels, "
            "2 p2p channels, 2 p2p channels per peer",
        ]
    )
    r = parse(log)
    assert r["version"] == "2.18.5"
    assert hosts(r) == {"n1": [0], "n2": [1]}
    assert r["collnet"] == {"present": True, "channels": 2}
    assert r["nvls"]["present"] is False and r["nvls"]["channels"] == 0
    assert r["not_understood"] == []


def test_a_long_line_of_prefix_like_characters_is_read_in_one_pass():
    # Searching the prefix from every position of such a line took quadratic time (minutes).
    r = parse("h:1:2 [0] NCCL INFO " + "1" * 150_000 + " Bytes -> Algo")
    assert r["not_understood_count"] == 1
    assert parse("a" * 150_000 + " NCCL INFO Ring 00 : 1 -> 2 -> 3")["nodes"] == []


def test_one_node_in_the_init_line_says_rings_stay_inside_it():
    """torchrun_nvls_recent.log names only rank 0's host, but its init line says
    "nRanks 4 nNodes 1"; its paste keeps three of the 24 rings ("Channel 00/24 : 0 1 2 3" to
    "Channel 02/24 : 0 1 2 3"), and no hop of them can cross the network."""
    r = read("torchrun_nvls_recent.log")
    assert r["crossings"]["per_channel"] == [{"channel": c, "count": 0} for c in (0, 1, 2)]
    assert r["summary"].startswith("4 ranks on 1 node, 24 channels, rings stay inside a node")
