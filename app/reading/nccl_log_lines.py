"""What one line of an NCCL_DEBUG=INFO log says: the patterns, checked against NCCL's source.

The format strings come from NVIDIA/nccl: `comm %p rank %d nRanks %d nNodes %d localRanks %d
localRank %d MNNVL %d` (src/init.cc), `Channel %02d/%02d :` + ranks (src/graph/rings.cc),
`Ring %02d : %d -> %d -> %d` and `Trees [%d] %d/%d/%d->%d->%d` (src/init.cc), `Tree %d : %d ->
%d -> %d/%d/%d` and `NVLS Head %2d:` (src/graph/connect.cc), `Channel %02d/%d : %d[%d] ->
%d[%d] [send] via NET/%s/%d...` (src/transport/net.cc, p2p.cc, shm.cc), `CollNet %02d/%1d : %d
[send] via COLLNET/...` (src/transport/coll_net.cc), `Connected all rings` (transport/generic.cc),
the TUNING table (src/graph/tuning.cc) and `%s: %ld Bytes -> Algo %s proto %s` (src/enqueue.cc).
Versions 2.4 to 2.7 wrote `Ring 00 : 3[3] -> 0[0] via P2P/IPC` for connections (2.4: `via direct
shared memory` for SHM), 2.4 wrote a tree as `[0] -1->0->1/-1/-1` (up first) and 2.5 two trees
per channel as `[0] 1/-1/-1->0->-1|-1->0->1/-1/-1`; older per-call tuning lines give the
algorithm and protocol as numbers.
"""

from __future__ import annotations

import re

# A logger's prefix `host:pid:tid [dev] NCCL INFO `; launchers may add more before it
# (Open MPI's `[1,0]<stdout>:`, mpirun's `[155] `, torchrun's `[rank3]:`, timestamps). Found
# from each `NCCL INFO ` backwards within a bounded window: a regex searched from every position
# of a line would take quadratic time on a long run of prefix-like characters.
MARK = "NCCL INFO "
MAX_PREFIX = 300
DEV_TAIL = re.compile(r" \[\d{1,6}\] $")
HOST_TOKEN = re.compile(r"([^\s:\[\]]+):\d{1,10}:\d{1,10}$")
VERSION = re.compile(r"NCCL version (\d+\.\d+\.\d+)")
# A line cut off inside its prefix (a truncated paste): `host:pid` or `host:pid:tid`.
CUT_PREFIX = re.compile(r"^\S+:\d+(?::\d*)?(?: \[\d*\]?)?$")

INIT = re.compile(
    r"^comm 0x[0-9a-f]+ rank (\d+) nRanks (\d+) nNodes (\d+) localRanks (\d+) localRank (\d+)"
)
INIT_OLD = re.compile(r"comm 0x[0-9a-f]+ rank (\d+) nranks (\d+)")
RING_ORDER = re.compile(r"^(?:Channel|Ring) (\d+)(?:/(\d+))? :((?: +\d+)+) *$")
RING_LINK = re.compile(r"^Ring (\d+) : (-?\d+) -> (\d+) -> (-?\d+)$")
EDGE = re.compile(
    r"^(?:Channel|Ring) (\d+)(?:/\d+)? : (\d+)(?:\[[0-9a-fA-Fx]+\])? -> (\d+)(?:\[[0-9a-fA-Fx]+\])?"
    r"(?: \[(send|receive)\])? via (\S.*?)\s*$"
)
TREES = re.compile(r"^Trees(?: \[\d+\] \S+)+")
TREE_ITEM = re.compile(r"\[(\d+)\] (-?\d+)/(-?\d+)/(-?\d+)->(\d+)->(-?\d+)")
# 2.4 wrote each channel's tree the other way round: ` [%d] %d->%d->%d/%d/%d` (up, me, down).
TREE_ITEM_24 = re.compile(r"\[(\d+)\] (-?\d+)->(\d+)->(-?\d+)/(-?\d+)/(-?\d+)")
TREE_LINE = re.compile(r"^Tree (\d+) : (-?\d+) -> (\d+) -> (-?\d+)/(-?\d+)/(-?\d+)$")
NVLS_HEAD = re.compile(r"^NVLS Head +(\d+):((?: +\d+)+) *$")
CHANNEL_COUNTS = re.compile(
    r"^(\d+) coll channels, (?:(\d+) collnet channels, )?(?:(\d+) nvls channels, )?\d+ p2p channels"
)
COLLNET_EDGE = re.compile(r"^CollNet (\d+)/\d+ : (\d+) \[(send|receive)\] via (\S+)")
CONNECTED = re.compile(r"^Connected (?:all )?(rings|trees|NVLS|CollNet|nvls|collnet)", re.I)
CHOICE = re.compile(r"^(\w+): (\d+) Bytes -> Algo (\w+) proto (\w+)")
CHOICE_NUMERIC = re.compile(
    r"^(?:(\w+): )?(\d+) Bytes -> Algo (\d+) proto (\d+)(?: time ([\d.]+))?"
)
TABLE_ALGOS = re.compile(r"^Algorithm +\|(.*)$")
TABLE_PROTOS = re.compile(r"^Protocol +\|(.*)$")
TABLE_ROW = re.compile(r"^(\w+) +\|((?: *-?[\d.]+/ *-?[\d.]+ \|)+) *$")
TABLE_THREADS = re.compile(r"^Max NThreads +\|")

# NCCL's algorithm and protocol numbers in the per-call lines that printed numbers
# (src/include/devcomm.h since 2.13; 0 Tree and 1 Ring since 2.4; LL128 since 2.5).
ALGORITHMS = ("Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT")
PROTOCOLS = ("LL", "LL128", "Simple")

# Lines that are NCCL's but not about what it built: read as understood, not reported.
BACKGROUND = re.compile(
    r"^(?:Bootstrap|NET/|Using |Setting affinity|cudaDriverVersion|P2P Chunksize|P2P plugin|"
    r"threadThresholds|Threads per block|NCCL_\w+|MNNVL busId|NVLS multicast|NVLS comm|"
    r"NVLS Trees|Plugin|PROFILER|RAS |DMA-BUF|Comm config|Enabled NCCL|Pattern \d|Search \d|"
    r"Could not|Communicator has|Rank \d+|Local CollNet|CC Off|TUNER|Init timings|"
    r"Launch mode|Allocated|ncclComm|\[Rank \d+\]|comm 0x|rank \d+ nranks|init\.cc|GPU Direct|"
    r"Trees$|Channel \d+/\d+ : \d+$|\d+ coll channels|CollNet|NVLS|nvls|Symmetric|User asked|"
    r"Unknown CTA|minCTAs|maxCTAs|collnetEnable|nvlsCTAs|Check P2P|Assigned NET|Tuner|cudaMalloc|"
    r"Loaded|Failed to|Ignoring|Graph|CPU/|\+ |=== System|GPU/|NIC/|NET |PCI|Topology|Collective)"
)
# A message that starts like a line about the structure: reported when no pattern reads it.
STRUCTURAL = re.compile(
    r"^(?:Channel|Ring|Trees?|NVLS Head|CollNet \d|Algorithm|Protocol)\b|Bytes ->"
)


def transport_kind(label: str) -> str:
    """Return the legend's group for a `via ...` label: P2P/IPC, P2P/direct, SHM, NET/IB, ..."""
    head = label.split()[0] if label else ""
    parts = head.split("/")
    if parts[0] == "P2P":
        if label.startswith(("P2P/direct pointer", "P2P/common device")):
            return "P2P/direct"
        return "P2P/IPC"  # IPC handles, cuMem handles (P2P/CUMEM) and reads through them
    if parts[0] == "SHM" or label.startswith("direct shared memory"):  # the latter: 2.4
        return "SHM"
    if parts[0] == "NET":
        return (
            "NET/IB"
            if len(parts) > 1 and parts[1].startswith("IB")
            else "NET/" + (parts[1] if len(parts) > 1 else "?")
        )
    if parts[0] == "COLLNET":
        return "COLLNET"
    return "other"


def _prefix(window: str) -> tuple[str | None, int]:
    """Return the host of the `host:pid:tid [dev] ` ending `window`, and that prefix's length."""
    tail = DEV_TAIL.search(window)
    if not tail or not window[: tail.start()].strip():
        return None, 0
    token = window[: tail.start()].rsplit(None, 1)[-1]
    host = HOST_TOKEN.search(token)
    if not host:
        return None, 0
    return host.group(1), len(window) - (tail.start() - len(token) + host.start())


def messages(line: str) -> list[tuple[str | None, str]]:
    """Return the (host, message) pairs of a line: a pasted line may hold several NCCL lines."""
    marks, at = [], line.find(MARK)
    while at >= 0:
        marks.append(at)
        at = line.find(MARK, at + len(MARK))
    prefixes = []
    for k, pos in enumerate(marks):
        low = max(marks[k - 1] + len(MARK) if k else 0, pos - MAX_PREFIX)
        prefixes.append(_prefix(line[low:pos]))
    out = []
    for k, pos in enumerate(marks):
        end = marks[k + 1] - prefixes[k + 1][1] if k + 1 < len(marks) else len(line)
        out.append((prefixes[k][0], line[pos + len(MARK) : end].strip()))
    return out
