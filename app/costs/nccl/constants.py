"""NCCL's tuning constants, copied from NVIDIA/nccl at tag v2.30.7-1 (commit 5067397).

Every table here is a transcription, not a measurement; the comments name the file and lines.
Order of the inner tuples is always NCCL's: protocols (LL, LL128, Simple) and the compute
capability index (Volta, Ampere, Hopper, Blackwell) of `NCCL_*_COMPCAP_IDX`.
"""

from __future__ import annotations

NCCL_VERSION = "2.30.7"
NCCL_TAG = "v2.30.7-1"
NCCL_COMMIT = "5067397"
TUNING = f"NVIDIA/nccl {NCCL_TAG} src/graph/tuning.cc"
SEARCH = f"NVIDIA/nccl {NCCL_TAG} src/graph/search.cc"
TOPO_H = f"NVIDIA/nccl {NCCL_TAG} src/graph/topo.h"
ENQUEUE = f"NVIDIA/nccl {NCCL_TAG} src/enqueue.cc"

PROTOCOLS = ("LL", "LL128", "Simple")  # NCCL_PROTO_* order
LL, LL128, SIMPLE = PROTOCOLS
# NCCL_ALGO_* order (src/include/device.h); names as ncclAlgoStr writes them.
ALGORITHMS = ("Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT")
TREE, RING, COLLNET_DIRECT, COLLNET_CHAIN, NVLS, NVLS_TREE, PAT = ALGORITHMS
# NCCL's tuned functions (ncclFunc*): the app's collective names for them.
FUNCTIONS = ("broadcast", "reduce", "allgather", "reduce_scatter", "allreduce")
ARCHES = ("volta", "ampere", "hopper", "blackwell")  # NCCL_*_COMPCAP_IDX 0..3
NVLINK, PCI, NET = "nvlink", "pci", "net"  # NCCL_HW_*

# tuning.cc 139-144: nvlsEfficiency per compute capability index.
NVLS_EFFICIENCY = (0.0, 0.0, 0.85, 0.74)

# tuning.cc 148-155: baseLatencies[algorithm][protocol], µs.
BASE_LAT = {
    TREE: (6.8, 14.0, 8.4),
    RING: (6.6, 14.0, 8.4),
    COLLNET_DIRECT: (0.0, 0.0, 0.0),
    COLLNET_CHAIN: (0.0, 0.0, 0.0),
    NVLS: (0.0, 0.0, 0.0),
    NVLS_TREE: (0.0, 0.0, 0.0),
    PAT: (8.0, 8.0, 8.0),
}

# tuning.cc 156-176: hwLatencies[hw][algorithm][protocol], µs.
HW_LAT = {
    NVLINK: {
        TREE: (0.6, 1.25, 4.0),
        RING: (0.6, 1.9, 3.4),
        COLLNET_DIRECT: (0.0, 0.0, 3.7),
        COLLNET_CHAIN: (0.0, 0.0, 2.8),
        NVLS: (0.0, 0.0, 25.0),
        NVLS_TREE: (0.0, 0.0, 25.0),
        PAT: (0.0, 0.0, 4.0),
    },
    PCI: {
        TREE: (1.0, 1.9, 4.0),
        RING: (1.0, 2.5, 5.7),
        COLLNET_DIRECT: (0.0, 0.0, 3.7),
        COLLNET_CHAIN: (0.0, 0.0, 2.8),
        NVLS: (0.0, 0.0, 0.0),
        NVLS_TREE: (0.0, 0.0, 0.0),
        PAT: (0.0, 0.0, 4.0),
    },
    NET: {
        TREE: (5.0, 8.5, 14.0),
        RING: (2.7, 4.0, 14.0),
        COLLNET_DIRECT: (0.0, 0.0, 31.0),
        COLLNET_CHAIN: (0.0, 0.0, 30.0),
        NVLS: (0.0, 0.0, 18.0),
        NVLS_TREE: (0.0, 0.0, 20.9),
        PAT: (0.0, 0.0, 14.0),
    },
}

# tuning.cc 177-183: llMaxBws[index1][index2], GB/s. index1: the arch on one node; with more
# nodes 0 (Intel CPU) or 1 (AMD CPU). index2: nNodes 1, 2, more.
LL_MAX_BW = (
    (39.0, 39.0, 20.4),
    (87.7, 22.5, 19.0),
    (141.0, 45.0, 35.0),
    (2 * 141.0, 2 * 45.0, 2 * 35.0),
)
# tuning.cc 184-211: per-channel caps [arch][index2], GB/s.
PER_CH_MAX_RING_LL128_BW = (
    (20.0, 20.0, 20.0),
    (20.0, 20.0, 20.0),
    (36.7, 36.7, 36.7),
    (40.0, 40.0, 40.0),
)
PER_CH_MAX_TREE_LL128_BW = (
    (20.0, 20.0, 20.0),
    (20.0, 20.0, 20.0),
    (36.7, 36.7, 29.0),
    (55.6, 31.67, 20.0),
)
PER_CH_MAX_TREE_BW = (
    (26.5, 18.5, 10.0),
    (24.0, 23.6, 17.8),
    (38.7, 41.4, 36.0),
    (70.0, 42.8, 24.0),
)
PER_CH_MAX_NVLS_TREE_BW = (
    (26.5, 18.5, 10.0),
    (24.0, 23.6, 17.8),
    (0.0, 57.7, 45.5),
    (0.0, 96.0, 80.0),
)

# tuning.cc 228-233 getNetOverhead: µs a ring step pays on a multi-node comm (×3 for Simple).
NET_OVERHEAD_US = {"intel": 1.0, "amd": 2.0, "other": 1.0}

# tuning.cc 620-627: treeCorrectionFactor[protocol][log2(nBytes/64)], applied below index 23.
TREE_CORRECTION = (
    (1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0,
     1.0, 1.0, 1.0),
    (1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9,
     1.0, 1.0, 1.0),
    (.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9,
     .9),
)  # fmt: skip

# topo.h 17-35: the bandwidth NCCL assigns one NVLink (per direction, GB/s) by compute
# capability, and PCIe. search.cc 1051-1067: the per-channel speeds the graph search tries.
NVLINK_BW = {"volta": 20.0, "ampere": 20.0, "hopper": 20.6, "blackwell": 40.1}
SPEEDS_INTRA = {
    "volta": (40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0),
    "ampere": (40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0),
    "hopper": (60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0),
    "blackwell": (90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0),
}
_INTER_PRE_HOPPER = (48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0,
                     4.0, 3.0, 2.4, 1.2, 0.24, 0.12)  # fmt: skip
SPEEDS_INTER = {
    "volta": _INTER_PRE_HOPPER,
    "ampere": _INTER_PRE_HOPPER,
    "hopper": (48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4,
               1.2, 0.24, 0.12),
    "blackwell": (96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0,
                  12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12),
}  # fmt: skip
MAX_GRAPH_CHANNELS = 32  # MAXCHANNELS (device.h: 64) / 2, init.cc's ring/tree maxChannels
MAX_COMM_CHANNELS = 64  # MAXCHANNELS
MAX_NVLS_ARITY = 32  # device.h NCCL_MAX_NVLS_ARITY
