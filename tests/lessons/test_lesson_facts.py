"""Facts the lessons state, recomputed from the engine, the cost model and REFERENCE (issue 11).

test_accuracy.py rejects wrong statements; these tests require the corrected ones and check
their numbers against an independent computation: the engine's bytes for the binary-tree lab,
app.costs for M* on NVLink, NCCL's ring and tree latency model (src/graph/tuning.cc, the
version REFERENCE § 5 names) for the 128-node example, and Megatron's rank-order string for the
outermost dimension.
"""

from __future__ import annotations

import math
import re
import shlex
from functools import cache

import pytest

from app.collectives import catalog, simulate
from app.collectives.trees import heap_parents
from app.costs.hardware import LINKS
from app.costs.model import cost, cost_line

from .test_accuracy import LESSONS, lesson_passages

NUMBER = r"(\d+(?:\.\d+)?)"


@cache
def sentences(slug: str) -> tuple[str, ...]:
    """Every plain-text sentence of a lesson: prose, tables, captions; no code or directives."""
    return tuple(s for p in lesson_passages(slug) if not p.code for s, _ in p.sentences())


def text(slug: str) -> str:
    return " ".join(sentences(slug))


def sentence_with(slug: str, *patterns: str) -> str:
    """The first sentence of `slug` that matches every pattern; fail if there is none."""
    for sentence in sentences(slug):
        if all(re.search(p, sentence, re.I) for p in patterns):
            return sentence
    pytest.fail(f"{slug}: no sentence matches all of {patterns}")


def labs(slug: str) -> list[tuple[str, str, dict[str, str]]]:
    """(collective, algorithm, parameters) of each @lab directive in a lesson."""
    out = []
    for line in (LESSONS / f"{slug}.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("@lab "):
            words = shlex.split(line[len("@lab ") :])
            collective, algorithm = words[0].split("/")
            out.append((collective, algorithm, dict(w.split("=", 1) for w in words[1:])))
    return out


def multiple(coefficient: str) -> int:
    """'3' in '3M' -> 3; an empty coefficient ('M') -> 1."""
    return int(coefficient) if coefficient else 1


# -- binary tree: bytes per role, from the engine ------------------------------------------------


def test_binary_tree_lesson_states_each_roles_bytes_as_the_engine_sends_them():
    slug = "double-binary-tree"
    (params,) = [p for c, a, p in labs(slug) if (c, a) == ("allreduce", "binary_tree")]
    trace = simulate(
        "allreduce", "binary_tree", ranks=int(params["ranks"]), elements=int(params["elements"])
    )
    m = trace.elements * trace.itemsize
    parents = heap_parents(trace.ranks)
    children = [parents.count(r) for r in range(trace.ranks)]
    by_role: dict[str, set[float]] = {"root": set(), "interior": set(), "leaf": set()}
    for rank, sent in enumerate(trace.bytes_sent):
        role = "root" if rank == 0 else ("interior" if children[rank] else "leaf")
        by_role[role].add(float(sent) / m)
    assert all(len(v) == 1 for v in by_role.values()), by_role  # one figure per role

    said = sentence_with(slug, r"non-root interior node sends")
    interior = re.search(r"non-root interior node sends (\d*)\s*M\b", said).group(1)
    root = re.search(r"\broot (?:sends )?(\d*)\s*M\b", text(slug)).group(1)
    leaf = re.search(r"\ba leaf (?:sends )?(\d*)\s*M\b", text(slug)).group(1)
    assert {multiple(interior)} == by_role["interior"]
    assert {multiple(root)} == by_role["root"]
    assert {multiple(leaf)} == by_role["leaf"]

    # The lesson quotes the lab's own byte counts; they must be the engine's.
    quoted = sentence_with(slug, r"\d+(?:,\s*\d+){3,}\s*(?:bytes|B)\b")
    numbers = re.search(r"(\d+(?:,\s*\d+){3,})\s*(?:bytes|B)\b", quoted).group(1)
    assert [int(n) for n in re.split(r",\s*", numbers)] == [int(b) for b in trace.bytes_sent]
    assert f"{trace.ranks} ranks" in quoted and f"{m} B" in quoted


# -- the single-port model and the labs that are not single-port ---------------------------------


@cache
def ports() -> dict[tuple[str, str], bool]:
    return {(e["collective"], e["algorithm"]): e["single_port"] for e in catalog()}


@pytest.mark.parametrize(
    "slug", [s.stem for s in sorted(LESSONS.glob("*.md")) if "single-port" in s.read_text()]
)
def test_lessons_with_the_single_port_model_name_their_all_port_labs(slug):
    """A lesson that teaches the single-port model says which of its labs break it, and how."""
    for collective, algorithm, _ in labs(slug):
        if ports()[(collective, algorithm)]:
            continue
        name = rf"(?<![\w/]){re.escape(algorithm)}\b"
        sentence_with(slug, name, r"all-port|dual-port|two ports|both children")


# -- nccl-tests defaults -------------------------------------------------------------------------

# REFERENCE § 3 from nccl-tests src/common.cu: -w 1 since 2025-08 (it was 5), -n 20.
NCCL_TESTS_DEFAULTS = {"w": 1, "n": 20}


def test_nccl_tests_iteration_defaults():
    said = sentence_with("benchmarking-and-profiling", r"-w\b", r"warm-up")
    for flag, default in NCCL_TESTS_DEFAULTS.items():
        m = re.search(rf"-{flag}\s*\(\s*default\s+(\d+)", said)
        assert m and int(m.group(1)) == default, f"-{flag}: {said}"
    assert re.search(r"2025-08|August 2025", said) and re.search(r"\bwas 5\b", said)


# -- M* on NVLink, from the cost model -----------------------------------------------------------


def test_alpha_beta_lesson_computes_mstar_for_nvlink_with_the_cost_model():
    slug = "alpha-beta-model"
    said = sentence_with(slug, r"NVLink", r"M\^?\s*=\s*\d+\s*[·×]")
    p, alpha_us, b_gbs, stated_mb = re.search(
        rf"M\^?\s*=\s*(\d+)\s*[·×]\s*{NUMBER}\s*µs\s*[·×]\s*{NUMBER}\s*GB/s\s*=\s*{NUMBER}\s*MB",
        said,
    ).groups()
    nvlink4 = next(link for link in LINKS if link.key == "nvlink4")
    assert float(b_gbs) == nvlink4.bandwidth_gbs  # H100 NVLink, per direction (REFERENCE § 4)
    intercept, slope = cost_line(
        "allreduce", "ring", ranks=int(p), latency_us=float(alpha_us), bandwidth_gbs=float(b_gbs)
    )
    assert float(stated_mb) == pytest.approx(intercept / slope / 1e6, rel=0.01)

    # The worked TP AllReduce: its size, both terms, and the share the lesson names.
    example = sentence_with(slug, r"µs of latency", r"µs of bandwidth")
    dims = re.search(r"(\d+) × (\d+) BF16 values", text(slug))
    m_bytes = int(dims.group(1)) * int(dims.group(2)) * 2
    m_mb = float(re.search(rf"M = {NUMBER} MB", text(slug)).group(1))
    assert m_mb == pytest.approx(m_bytes / 1e6, abs=0.05)
    predicted = cost(
        "allreduce",
        "ring",
        ranks=int(p),
        message_bytes=m_bytes,
        latency_us=float(alpha_us),
        bandwidth_gbs=float(b_gbs),
    )
    latency_us = float(re.search(rf"{NUMBER}\s*µs of latency", example).group(1))
    bandwidth_us = float(re.search(rf"{NUMBER}\s*µs of bandwidth", example).group(1))
    assert latency_us == pytest.approx(predicted.latency_s * 1e6, abs=0.5)
    assert bandwidth_us == pytest.approx(predicted.bandwidth_s * 1e6, abs=0.5)
    share = predicted.latency_s / predicted.time_s
    fractions = {"a third": 1 / 3, "a quarter": 1 / 4, "half": 1 / 2, "two thirds": 2 / 3}
    named = [f for word, f in fractions.items() if re.search(rf"\babout {word}\b", example)]
    named += [float(pct) / 100 for pct in re.findall(rf"{NUMBER}\s*%", example)]
    assert named and abs(share - named[0]) < 0.03, (share, example)


# -- Megatron's rank order -----------------------------------------------------------------------


def test_gpu_interconnects_names_the_outermost_dimension_of_megatrons_order():
    slug = "gpu-interconnects"
    said = sentence_with(slug, r"\btp(?:-[a-z]{2}){2,}\b", r"outermost")
    order = re.search(r"\btp(?:-[a-z]{2}){2,}\b", said).group(0).split("-")
    outer = re.search(r"\b([A-Z]{2}) is (?:the )?outermost", said).group(1)
    assert outer.lower() == order[-1], said  # the last name in the order varies slowest
    sentence_with(slug, r"--use-tp-pp-dp-mapping", r"\bDP\b")


# -- NCCL's ring and tree latency at 128 nodes ---------------------------------------------------

# Constants of nccl src/graph/tuning.cc at the commit REFERENCE § 5 names (LL protocol).
BASE_LL = {"ring": 6.6, "tree": 6.8}
NVLINK_LL = {"ring": 0.6, "tree": 0.6}
NET_LL = {"ring": 2.7, "tree": 5.0}
NET_OVERHEAD = {"Intel": 1.0, "AMD": 2.0}  # getNetOverhead: floor on a multi-node ring's steps


def nccl_ring_allreduce_latency(nodes: int, gpus: int, overhead: float) -> float:
    ranks, inter = nodes * gpus, 2 * (nodes - 1)
    intra = max(NVLINK_LL["ring"], overhead if nodes > 1 else 0.0)
    return BASE_LL["ring"] + (2 * (ranks - 1) - inter) * intra + inter * NET_LL["ring"]


def nccl_tree_allreduce_latency(nodes: int, gpus: int) -> float:
    hops = (gpus - 1) * NVLINK_LL["tree"] + math.log2(nodes) * NET_LL["tree"]
    return BASE_LL["tree"] + 2 * hops


def test_how_nccl_chooses_ring_latency_includes_the_intra_step_floor():
    slug = "how-nccl-chooses"
    nodes, gpus = (int(x) for x in re.search(r"(\d+) nodes × (\d+) GPUs", text(slug)).groups())
    ring = sentence_with(slug, r"^Ring: ")
    base, intra_steps, intra, inter_steps, net, total = (
        float(x)
        for x in re.search(
            rf"Ring: {NUMBER} \+ (\d+) × {NUMBER} \+ (\d+) × {NUMBER} ≈ {NUMBER} µs", ring
        ).groups()
    )
    assert (base, net) == (BASE_LL["ring"], NET_LL["ring"])
    assert inter_steps == 2 * (nodes - 1)
    assert intra_steps == 2 * (nodes * gpus - 1) - inter_steps
    assert intra == max(NVLINK_LL["ring"], NET_OVERHEAD["Intel"])
    assert total == pytest.approx(nccl_ring_allreduce_latency(nodes, gpus, 1.0), abs=5)
    amd_total = float(re.search(rf"\bAMD\b[^;]*≈\s*{NUMBER}\s*µs", ring).group(1))
    assert amd_total == pytest.approx(nccl_ring_allreduce_latency(nodes, gpus, 2.0), abs=5)
    tree = sentence_with(slug, r"^Tree: ")
    tree_total = float(re.search(rf"≈ {NUMBER} µs", tree).group(1))
    assert tree_total == pytest.approx(nccl_tree_allreduce_latency(nodes, gpus), abs=1)


# -- statements the review asked the lessons to add ----------------------------------------------


@pytest.mark.parametrize("slug", ["latency-optimal-algorithms", "how-nccl-chooses"])
def test_pat_is_default_only_with_one_gpu_per_node(slug):
    sentence_with(slug, r"\bPAT\b", r"\bdefault\b", r"\bone (?:GPU|rank) per node\b")


@pytest.mark.parametrize("slug", ["allreduce-vs-reduce-broadcast"])  # the bound is lesson 5's
def test_allreduce_bound_is_for_point_to_point_algorithms(slug):
    sentence_with(slug, r"point-to-point", r"\bbound\b|\bbeaten\b")
    sentence_with(slug, r"\bNVLS\b", r"\bSHARP\b", r"\bbeat|\bbelow\b|\bexceed")


TP_COUNT = re.compile(
    r"\b(?:2|two)\s+(?:AllReduces\s+|all-reduces\s+)?(?:in\s+)?forward\s+(?:and|\+)\s+"
    r"(?:2|two)\s+(?:in\s+)?backward",
    re.I,
)


@pytest.mark.parametrize(
    "slug", [s for s in sorted(p.stem for p in LESSONS.glob("*.md")) if TP_COUNT.search(text(s))]
)
def test_lessons_counting_tp_allreduces_add_the_recomputed_forward(slug):
    """With full activation recomputation the re-run forward repeats the 2 forward AllReduces."""
    said = sentence_with(slug, r"recomput", r"forward")
    assert re.search(r"\b(?:six|6)\b|\btwo more\b|\+\s*2\b", said), said


def test_tp_count_pattern_finds_the_lessons_that_list_tp_traffic():
    found = [s.stem for s in LESSONS.glob("*.md") if TP_COUNT.search(text(s.stem))]
    assert "3d-parallelism" in found  # why-collectives leaves the per-layer count to it


def test_nccl_environment_lists_every_configuration_file():
    slug = "nccl-environment"
    said = sentence_with(slug, r"~/\.nccl\.conf", r"NCCL_CONF_FILE")
    assert "/etc/nccl.conf" in text(slug), said
    sentence_with(slug, r"already set|environment", r"\bwins\b|precedence|not overrid|overrides")


@pytest.mark.parametrize("slug", ["why-collectives", "primitives"])
def test_zero1_shards_only_the_optimizer_state(slug):
    sentence_with(slug, r"\bZeRO-1\b", r"optimizer state", r"\bonly\b")


def test_moe_two_hop_message_count_holds_for_any_node_count():
    sentence_with("moe-all-to-all", r"\(g\s*-\s*1\)\s*\+\s*\(N\s*-\s*1\)")


def test_nvlink_rate_is_shared_among_peers():
    sentence_with("communication-scheduling", r"NVLink", r"\bshared\b", r"\bpeers?\b")


def test_mpi_can_hand_gpu_collectives_to_nccl_through_ucc():
    sentence_with("benchmarking-and-profiling", r"\bUCC\b", r"\bNCCL\b", r"Open MPI")
