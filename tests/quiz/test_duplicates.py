"""No question is asked twice under another id: issue 11 found the `mpirun -np 16 -g 8`
question, "statements about NCCL's algorithms" and "four MoE all-to-alls" three times each, and
the same measure found five more pairs (ring AllReduce statements, NCCL_CROSS_NIC, hpZ, turning
GPUDirect RDMA on, DDP's default buckets). Each set was merged into one question.

Written questions (choice, order, match, explain) are compared within their family by the word
overlap (Jaccard) of their prompts, and of prompt plus right answer; predict questions by what
they simulate. Numeric templates share their wording on purpose and are not compared.
"""

from __future__ import annotations

import itertools
import re

from app.quiz.questions import Option, Question

NEAR_DUPLICATE = 0.57  # the closest distinct pair left scores 0.55; the merged ones 0.59 to 1.0
STOPWORDS = set(
    "a an the of in on to for and or is are be it its by with as at from that this which what "
    "how does do each one per all any select apply correct statements about right true there "
    "their".split()
)


def words(text: str) -> set[str]:
    """Content words, lower case, with plural and -ing endings cut so forms compare equal."""
    text = text.lower().replace("all-to-all", "alltoall")
    out = set()
    for w in re.findall(r"[a-z0-9]+", text):
        if w in STOPWORDS:
            continue
        for suffix in ("ing", "es", "s"):
            if w.endswith(suffix) and len(w) > len(suffix) + 3:
                w = w[: -len(suffix)]
                break
        out.add(w)
    return out


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def asked(q: Question) -> str:
    """The prompt with the right answer(s): two wordings of one fact share most of these."""
    return " ".join([q.prompt, *(o.text for o in q.options if o.correct)])


def similarity(a: Question, b: Question) -> float:
    """The larger of the prompts' word overlap and that of prompt plus right answer."""
    return max(jaccard(words(a.prompt), words(b.prompt)), jaccard(words(asked(a)), words(asked(b))))


FAMILY = {
    "single": "choice", "multiple": "choice", "order": "order", "match": "match",
    "explain": "explain",
}  # fmt: skip


def test_no_two_questions_of_a_kind_ask_nearly_the_same_thing(bank):
    # Numeric and predict prompts are templates that share their wording on purpose; predict
    # questions are compared by what they simulate below.
    written = [q for q in bank.questions if q.kind in FAMILY]
    close = [
        (round(similarity(a, b), 2), a.id, b.id)
        for a, b in itertools.combinations(written, 2)
        if FAMILY[a.kind] == FAMILY[b.kind] and similarity(a, b) >= NEAR_DUPLICATE
    ]
    assert close == [], "near-duplicate questions: merge them into one, or ask something else"


def test_the_measure_catches_a_reworded_question_and_not_a_different_one():
    def single(prompt: str, right: str) -> Question:
        options = (Option(right, True, "Why."), Option("Two.", False, "Why not."))
        return Question("q", "single", "warm-up", ("moe",), (), prompt, "moe-all-to-all", None,
                        "x.yaml", options=options)  # fmt: skip

    a = single(
        "How many all-to-all operations does one MoE layer run per training step?",
        "Four: dispatch and combine forward, and two more backward.",
    )
    b = single(
        "How many All-to-All operations does an MoE layer perform in one training step?",
        "Four: dispatch and combine in forward, their counterparts in backward.",
    )
    c = single("What does NCCL_CROSS_NIC control?", "Whether rings may change rails.")
    assert similarity(a, b) >= NEAR_DUPLICATE > similarity(a, c)


def test_no_two_predict_questions_simulate_the_same_thing(bank):
    seen: dict[tuple[str, str, str], str] = {}
    for q in bank.questions:
        for case in q.predict.cases if q.predict else ():
            key = (q.predict.ask, case.collective, case.algorithm)
            assert seen.setdefault(key, q.id) == q.id, (key, seen[key], q.id)
