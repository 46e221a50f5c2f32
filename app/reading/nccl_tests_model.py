"""The cost model beside an nccl-tests sweep: predicted busbw per size and where they differ.

The model prices NCCL's own algorithm for each collective (ring for allreduce, allgather and
reduce-scatter; a pipelined chain for broadcast and reduce; all peers at once for all-to-all,
gather and scatter; one hop for sendrecv) with `app.costs.cost` on a preset. A node type
(`SYSTEMS`) runs on its intra-node link on one node; across nodes every ring step waits for a
network hop (alpha of the NIC), and the bandwidth is min(NVLink, g × NIC): NCCL runs one ring
channel per NIC, so a node's g NICs carry g channels at once (the ~190 GB/s busbw DGX A100
pairs reach is 8 × 25 GB/s HDR). A link preset (`HARDWARE`) is taken as the one link.
"""

from __future__ import annotations

import math

from app.costs import HARDWARE, SYSTEMS, busbw_gbs, cost_line, units
from app.costs.model import MAX_SEGMENTS
from app.i18n import N_
from app.i18n.catalog import translate

from .nccl_tests import NcclTestsError, Reading

PRESETS = tuple(SYSTEMS) + tuple(HARDWARE)
# NCCL's algorithm for each collective, as this cost model names it.
ALGORITHM = {
    "allreduce": "ring",
    "allgather": "ring",
    "reduce_scatter": "ring",
    "broadcast": "pipelined_ring",
    "reduce": "ring",
    "all_to_all": "pairwise",
    "gather": "direct",
    "scatter": "direct",
    "sendrecv": "pipeline",
}
CHAINS = ("broadcast", "reduce")
BEYOND = 1.05  # measured busbw above the model's by more than 5%: not a point-to-point result
LATENCY_BOUND = 0.5
MIN_RATED = 0.1  # GB/s  # the model's time is mostly latency below this bandwidth share


def link_for(preset: str, ranks: int, nodes: int | None) -> dict:
    """Return the latency, bandwidth and a description of the link the model runs on."""
    if preset in HARDWARE:
        link = HARDWARE[preset]
        return {
            "latency_us": link.latency_us,
            "bandwidth_gbs": link.bandwidth_gbs,
            "label": link.label,
        }
    if preset not in SYSTEMS:
        raise NcclTestsError(f"preset must be one of {', '.join(PRESETS)}; got {preset!r}")
    system = SYSTEMS[preset]
    intra, inter = HARDWARE[system.intra], HARDWARE[system.inter]
    nodes = nodes or math.ceil(ranks / system.gpus_per_node)
    if nodes <= 1:
        return {
            "latency_us": intra.latency_us,
            "bandwidth_gbs": intra.bandwidth_gbs,
            "label": f"{system.label}: one node, {intra.label}",
        }
    per_node = system.gpus_per_node * inter.bandwidth_gbs
    nvlink = units.bandwidth(intra.bandwidth_gbs)
    return {
        "latency_us": inter.latency_us,
        "bandwidth_gbs": min(intra.bandwidth_gbs, per_node),
        "label": f"{system.label}: {nodes} nodes, min({intra.label} {nvlink}, "
        f"{system.gpus_per_node} × {inter.label} = {units.bandwidth(per_node)})",
    }


def _segments(ranks: int, size: float, link: dict) -> int:
    """The chain's best segment count, k = √((p−2)·Mβ/α), where (p−2+k)(α + Mβ/k) is least;
    rounded to a power of two so that a sweep prices a few shapes, not one per size."""
    m_beta = size / (link["bandwidth_gbs"] * 1e9)
    alpha = link["latency_us"] * 1e-6
    if ranks <= 2:
        return 1
    best = math.sqrt((ranks - 2) * m_beta / alpha) if alpha > 0 else MAX_SEGMENTS
    return min(MAX_SEGMENTS, 1 << max(0, round(math.log2(max(best, 1.0)))))


def predict(collective: str, ranks: int, size: float, link: dict) -> tuple[float, float, float]:
    """Price one size of `collective` on `link` with NCCL's algorithm: (time s, busbw GB/s,
    the share of the time that is latency)."""
    shape: dict = {"ranks": ranks}
    if collective == "sendrecv":
        shape = {"ranks": 2, "segments": 1}  # each rank sends M to one peer: one hop
    elif collective in CHAINS:
        shape["segments"] = _segments(ranks, size, link)
    intercept, slope = cost_line(
        collective,
        ALGORITHM[collective],
        latency_us=link["latency_us"],
        bandwidth_gbs=link["bandwidth_gbs"],
        **shape,
    )
    time_s = intercept + slope * size
    busbw = busbw_gbs(collective, ranks, size, time_s)
    return time_s, busbw, intercept / time_s if time_s else 0.0


def model_beside(reading: Reading, preset: str, lang: str = "en") -> dict:
    """Return the model's curve for `reading` on `preset` and the sentence comparing them (in
    `lang`)."""
    if reading.collective is None or reading.ranks is None:
        missing = N_("No model: the collective is unknown.")
        if reading.collective is not None:
            missing = N_("No model: the ranks is unknown.")
        return {"preset": preset, "points": [], "sentence": translate(lang, missing)}
    link = link_for(preset, reading.ranks, reading.nodes)
    if reading.collective not in ALGORITHM or reading.ranks < 2:
        if reading.ranks < 2:
            sentence = translate(lang, "No model: one rank moves nothing.")
        else:
            sentence = translate(
                lang, "No model: no model of %(collective)s.", collective=reading.collective
            )
        return {"preset": preset, "link": link, "points": [], "sentence": sentence}
    points = []
    for row in reading.rows:
        time_s, busbw, latency_share = predict(
            reading.collective, reading.ranks, float(row.size_bytes), link
        )
        measured = [
            p.busbw_gbs for p in (row.out_of_place, row.in_place) if p and p.busbw_gbs is not None
        ]
        points.append(
            {
                "size_bytes": row.size_bytes,
                "time_us": time_s * 1e6,
                "busbw_gbs": busbw,
                "latency_share": latency_share,
                "measured_busbw_gbs": max(measured) if measured else None,
            }
        )
    verdict, sentence = compare(reading.collective, points, link, lang)
    return {
        "preset": preset,
        "algorithm": ALGORITHM[reading.collective],
        "link": link,
        "points": points,
        "verdict": verdict,
        "sentence": sentence,
    }


BEYOND_REASONS = {
    "allreduce": N_(
        "in-network reduction (NVLS on NVSwitch, or SHARP/CollNet on the switches): the switch "
        "adds, so a GPU sends each byte once and busbw passes the point-to-point bound"
    ),
    None: N_("the preset's links are slower than this system's"),
}
SHORT_REASONS = {
    "latency": N_(
        "latency: the model's time there is mostly α·steps, and NCCL also pays a base "
        "latency of 6.6–14 µs per call and a kernel launch that the α-β model leaves out"
    ),
    "protocol": N_(
        "protocol overhead: NCCL's LL and LL128 protocols spend 50% and 6% of each line on "
        "flags, and Simple's bulk copies wait on fences, below the wire's rate"
    ),
}


def compare(collective: str, points: list[dict], link: dict, lang: str = "en") -> tuple[str, str]:
    """Say (in `lang`) where the measurement falls short of the model, or beats it, and the
    likely reason: ("unknown" | "beyond" | "matches" | "short", the sentence)."""
    # Below 0.1 GB/s nccl-tests prints one significant digit (0.01): too coarse for a ratio.
    rated = [p for p in points if (p["measured_busbw_gbs"] or 0) >= MIN_RATED and p["busbw_gbs"]]
    if not rated:
        return "unknown", translate(
            lang, "No size has a busbw of 0.1 GB/s or more to compare with the model."
        )
    for p in rated:
        p["ratio"] = p["measured_busbw_gbs"] / p["busbw_gbs"]
    beyond = _beyond(collective, rated, link, lang)
    if beyond:
        return "beyond", beyond
    worst = min(rated, key=lambda p: p["ratio"])
    if worst["ratio"] * BEYOND >= 1:
        return "matches", translate(
            lang,
            "From %(low)s to %(high)s the measurement is within 5%% of the model on %(link)s, "
            "or above it.",
            low=units.size(rated[0]["size_bytes"]),
            high=units.size(max(p["size_bytes"] for p in rated)),
            link=link["label"],
        )
    return "short", _short(rated, worst, link, lang)


def _beyond(collective: str, rated: list[dict], link: dict, lang: str) -> str:
    """Say where the measurement beats the link's bound, and why it can; "" where it does not.

    Only a bandwidth-bound size with a busbw printed to 3+ digits can beat it."""
    bandwidth_bound = [
        p for p in rated if p["latency_share"] < LATENCY_BOUND and p["measured_busbw_gbs"] >= 1
    ]
    best = max(bandwidth_bound, key=lambda p: p["ratio"], default=None)
    if not best or best["ratio"] <= BEYOND:
        return ""
    why = BEYOND_REASONS.get(collective, BEYOND_REASONS[None])
    return translate(
        lang,
        "At %(size)s the measured busbw (%(measured)s) is %(ratio)s× the model's %(model)s "
        "on %(link)s: likely %(why)s.",
        size=units.size(best["size_bytes"]),
        measured=units.bandwidth(best["measured_busbw_gbs"]),
        ratio=f"{best['ratio']:.2f}",
        model=units.bandwidth(best["busbw_gbs"]),
        link=link["label"],
        why=translate(lang, why),
    )


def _short(rated: list[dict], worst: dict, link: dict, lang: str) -> str:
    """Say where the measurement falls furthest short, the likely reason, and how close the
    largest size comes."""
    largest = max(rated, key=lambda p: p["size_bytes"])
    bound = "latency" if worst["latency_share"] >= LATENCY_BOUND else "protocol"
    at_largest = (
        ""
        if worst is largest
        else translate(
            lang,
            "; at %(size)s it reaches %(percent)s of the model's %(model)s",
            size=units.size(largest["size_bytes"]),
            percent=f"{largest['ratio']:.0%}",
            model=units.bandwidth(largest["busbw_gbs"]),
        )
    )
    return translate(
        lang,
        "The measurement falls furthest short of the model at %(size)s (%(percent)s of the "
        "model's %(model)s busbw on %(link)s), likely %(reason)s%(more)s.",
        size=units.size(worst["size_bytes"]),
        percent=f"{worst['ratio']:.0%}",
        model=units.bandwidth(worst["busbw_gbs"]),
        link=link["label"],
        reason=translate(lang, SHORT_REASONS[bound]),
        more=at_largest,
    )
