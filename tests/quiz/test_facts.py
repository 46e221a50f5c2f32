"""The bank's facts agree with ../shared/REFERENCE.md where issue 11's review found them wrong or
misleading: Megatron's rank order, the allreduce bound, NVLink shared per GPU, MPI and NCCL,
Ring's collectives, the algorithm behind "3 steps of M", pipeline traffic, the NVLink/NIC gap.

A "statement" is what the bank says in its own voice: correct option texts, every option's
`why` (the corrections too), explanations, model answers, checklists, ordered items and matching
pairs. Wrong option texts and distractors are wrong on purpose and are not checked.
"""

from __future__ import annotations

import math
import re

import pytest

from app.collectives import simulate
from app.quiz.questions import Question

# -- helpers -------------------------------------------------------------------------------------


def question(bank, qid: str) -> Question:
    (q,) = [q for q in bank.questions if q.id == qid]
    return q


def statements(q: Question) -> list[str]:
    """Everything the question asserts as true, one string per field."""
    out = [o.text for o in q.options if o.correct] + [o.why for o in q.options]
    out += [q.explanation, q.model_answer, *q.checklist, *q.items]
    out += [f"{p.left}: {p.right}" for p in q.pairs] + [p.why for p in q.pairs]
    return [normal(s) for s in out if s]


def normal(text: str) -> str:
    """Lower case, ASCII minus signs and single spaces, so patterns stay readable."""
    return " ".join(text.replace("−", "-").replace("\u2011", "-").lower().split())


def sentences(q: Question) -> list[str]:
    return [part for s in statements(q) for part in re.split(r"(?<=\.)\s+", s)]


def offending(bank, claim: str, unless: str) -> list[tuple[str, str]]:
    """List (id, sentence) for the bank's sentences that match `claim` and not `unless`."""
    return [
        (q.id, s)
        for q in bank.questions
        for s in sentences(q)
        if re.search(claim, s) and not re.search(unless, s)
    ]


# -- Megatron's rank order -----------------------------------------------------------------------


def test_no_statement_puts_data_parallelism_outermost_by_default(bank):
    # REFERENCE § 3: the default order is tp-cp-ep-dp-pp, so PP is outermost; DP is outermost
    # only with --use-tp-pp-dp-mapping.
    dp_outer = r"(data parallel\w*|\bdp\b)( [\w-]+){0,3} (the )?(outermost|slowest-varying)\b"
    assert offending(bank, dp_outer, r"use-tp-pp-dp-mapping|\bnot\b") == []


@pytest.mark.parametrize("qid", ["gpu-interconnects-connectivity", "communicators-megatron-groups"])
def test_the_layout_questions_both_put_pipeline_parallelism_outermost(bank, qid):
    pp_outer = r"(pipeline parallel\w*|\bpp\b)[^.;]*\b(outermost|slowest-varying)\b"
    assert any(re.search(pp_outer, s) for s in statements(question(bank, qid))), qid


def test_megatron_groups_answer_follows_the_default_order(bank):
    # rank = t + TP·(d + DP·s) for tp-dp-pp: rank 5 with TP 4, DP 2, PP 2.
    tp, dp, pp, rank = 4, 2, 2, 5
    t, d, s = rank % tp, rank // tp % dp, rank // (tp * dp)
    groups = {
        "TP": sorted(i + tp * (d + dp * s) for i in range(tp)),
        "DP": sorted(t + tp * (j + dp * s) for j in range(dp)),
        "PP": sorted(t + tp * (d + dp * k) for k in range(pp)),
    }
    want = ", ".join(f"{n} {{{', '.join(map(str, g))}}}" for n, g in groups.items())
    (right,) = [
        o.text for o in question(bank, "communicators-megatron-groups").options if o.correct
    ]
    assert right.rstrip(".") == want


# -- statements the review found misleading ------------------------------------------------------


def test_the_three_step_option_names_an_algorithm_with_three_steps_of_the_whole_vector(bank):
    # 1 GB on 8 GPUs: "3 steps; 3 GB per GPU" is lg p steps of M, recursive doubling (REFERENCE
    # § 1); a binomial reduce + broadcast takes 2 lg p steps. The ring lesson comes before
    # recursive doubling is taught, so the option may describe it rather than name it.
    engine = {
        "recursive doubling": [("allreduce", "recursive_doubling")],
        "exchanging the whole 1 gb vector with a partner": [("allreduce", "recursive_doubling")],
        "butterfly": [("allreduce", "recursive_doubling")],
        "binomial": [("reduce", "binomial_tree"), ("broadcast", "binomial_tree")],
        "binary tree": [("allreduce", "binary_tree")],
    }
    q = question(bank, "ring-allreduce-steps-bytes")
    (option,) = [o for o in q.options if o.text.startswith("3 steps")]
    named = [name for name in engine if name in normal(option.why)]
    assert named, option.why
    for name in named:
        traces = [simulate(c, a, ranks=8, elements=8) for c, a in engine[name]]
        assert sum(t.total_steps for t in traces) == 3, name
        assert max(t.bytes_sent.max() for t in traces) == 3 * traces[0].message_bytes, name


# (claim, unless): a sentence that makes the claim must carry the qualifier. REFERENCE § 3 unless
# said otherwise.
MISLEADING = [
    pytest.param(  # 3d-parallelism-which-dominates: PP 19 GB against DP 4.8 GB per GPU per step
        r"(\bpp\b|pipeline)[^.;]*\b(the least|smallest)\b",
        r"\bnot\b|can exceed",
        id="pipeline-traffic-the-least",
    ),
    pytest.param(  # Open MPI's UCC collectives can hand GPU collectives to NCCL
        r"neither calls the other|does not call nccl|never calls nccl|independent of nccl"
        r"|independent libraries|they are independent",
        r"\bucc\b",
        id="mpi-never-calls-nccl",
    ),
    pytest.param(  # NVLS and SHARP reduce in the switch and beat 2(p-1)/p·M
        r"lower bound|can (do|send|move) with less|can send less|minimum any allreduce",
        r"point-to-point|point to point|in-network|nvls|sharp",
        id="allreduce-bound-without-point-to-point",
    ),
    pytest.param(  # a GPU's NVLink rate is its total, shared among the peers it talks to
        r"\b(every|any|each) (gpu )?pairs?\b[^.;]*\bfull\b"
        r"|\bfull[- ]rate any-to-any|\bfull nvlink\b[^.;]*\bpairs?\b",
        r"\bshar(e|es|ed|ing)\b",
        id="every-pair-full-nvlink",
    ),
    pytest.param(  # send/recv and all-to-all are point-to-point, not Ring
        r"\bring\b[^.]*\bevery collective\b", r"\bnot\b", id="ring-every-collective"
    ),
]


@pytest.mark.parametrize(("claim", "unless"), MISLEADING)
def test_no_sentence_makes_a_misleading_claim_without_its_qualifier(bank, claim, unless):
    assert offending(bank, claim, unless) == []


def test_the_ring_pair_names_the_collectives_ring_serves(bank):
    # REFERENCE § 3: Ring serves AllReduce, Broadcast, Reduce, AllGather and ReduceScatter.
    q = question(bank, "match-nccl-algorithms")
    (ring,) = [normal(p.right) for p in q.pairs if p.left == "Ring"]
    for name in ("allreduce", "broadcast", "reduce", "allgather", "reducescatter"):
        assert re.search(rf"\b{name}\b", ring), name


# REFERENCE § 4, per direction, in GB/s: link figures and per-GPU shares of a node's NICs.
PER_DIRECTION_GBS = {
    "nvlink 3": 300, "nvlink 4": 450, "nvlink 5": 900, "pcie 4": 31.5, "pcie 5": 63,
    "hdr": 25, "ndr": 50, "xdr": 100,
    "p4d efa per gpu": 400 / 8 / 8, "p5 efa per gpu": 3200 / 8 / 8,
}  # fmt: skip
BIDIRECTIONAL_GBS = {"nvlink 3": 600, "nvlink 4": 900, "nvlink 5": 1800}
LINE_RATES_GBPS = {"hdr": 200, "ndr": 400, "xdr": 800}


def test_every_ratio_in_the_interconnect_gap_question_uses_real_figures(bank):
    real = {*PER_DIRECTION_GBS.values(), *BIDIRECTIONAL_GBS.values(), *LINE_RATES_GBPS.values()}
    q = question(bank, "gpu-interconnects-gap")
    pattern = r"about ([\d.]+)×: ([\d.]+) gb/s versus ([\d.]+) gb/s"
    ratios = [re.search(pattern, normal(o.text)) for o in q.options]
    assert all(ratios), [o.text for o in q.options]
    for m in ratios:
        ratio, fast, slow = (float(g) for g in m.groups())
        assert fast in real and slow in real, m.group(0)
        assert math.isclose(fast / slow, ratio, rel_tol=0.15), m.group(0)
    (right,) = [m for m, o in zip(ratios, q.options, strict=True) if o.correct]
    want = PER_DIRECTION_GBS["nvlink 4"] / PER_DIRECTION_GBS["ndr"]
    assert (float(right.group(2)), float(right.group(3))) == (450, 50) and want == 9
