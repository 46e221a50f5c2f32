"""'Predict the next step' questions agree with the engine: closed forms for ring, butterfly and
binomial broadcast, the engine's own trace for every template, and grading end to end."""

from __future__ import annotations

import random

import pytest

from app.collectives import ranks_in, simulate
from app.quiz import generators, grade, public, tokens
from app.quiz.generators import PredictSpec, predict_truth

SECRET = "test-secret"


def spec(ask, collective, algorithm, ranks, root=0, rpn=None):
    return PredictSpec(
        ask, (generators.Case(collective, algorithm, (ranks,), (root,), (rpn,) if rpn else ()),)
    )


def values(step, rank, ranks, root=0, chunk=None, rpn=None):
    out = {"case": 0, "ranks": ranks, "root": root, "step": step, "rank": rank}
    if chunk is not None:
        out["chunk"] = chunk
    if rpn is not None:
        out["ranks_per_node"] = rpn
    return out


@pytest.mark.parametrize("p", [3, 4, 5, 6, 8])
def test_ring_allreduce_sends_match_the_closed_form(p):
    s = spec("sends", "allreduce", "ring", p)
    for step in range(2 * (p - 1)):
        for r in range(p):
            if step < p - 1:  # reduce-scatter: rank r sends chunk r - step
                chunk = (r - step) % p
            else:  # allgather: rank r forwards the chunk it completed last
                chunk = (r + 1 - (step - (p - 1))) % p
            assert predict_truth(s, values(step, r, p)) == {f"c{chunk}"}


@pytest.mark.parametrize("p", [4, 5, 8])
def test_ring_allgather_holdings_grow_by_one_chunk_per_step(p):
    s = spec("holds", "allgather", "ring", p)
    for step in range(p - 1):
        for r in range(p):
            want = {f"c{(r - j) % p}" for j in range(step + 2)}
            assert predict_truth(s, values(step, r, p)) == want


@pytest.mark.parametrize("p", [4, 8, 16])
def test_butterfly_partners_are_rank_xor_two_to_the_step(p):
    s = spec("peers", "allreduce", "recursive_doubling", p)
    c = spec("contributions", "allreduce", "recursive_doubling", p)
    for step in range(p.bit_length() - 1):
        for r in range(p):
            assert predict_truth(s, values(step, r, p)) == {f"r{r ^ (1 << step)}"}
            block = 1 << (step + 1)  # after step k, a rank holds its aligned block of 2^(k+1)
            start = r // block * block
            want = {f"r{q}" for q in range(start, start + block)}
            assert predict_truth(c, values(step, r, p, chunk=0)) == want


@pytest.mark.parametrize(("p", "root"), [(8, 0), (8, 3), (16, 5)])
def test_binomial_broadcast_halves_the_distance_each_step(p, root):
    s = spec("peers", "broadcast", "binomial_tree", p, root)
    steps = p.bit_length() - 1
    for step in range(steps):
        gap = p >> (step + 1)
        for r in range(p):
            rel = (r - root) % p
            want = {f"r{(r + gap) % p}"} if rel % (2 * gap) == 0 else set()
            assert predict_truth(s, values(step, r, p, root)) == want


CASES = [
    ("sends", "allreduce", "ring", 5, 0, None),
    ("sends", "allreduce", "rabenseifner", 8, 0, None),
    ("peers", "reduce_scatter", "recursive_halving", 8, 0, None),
    ("sends", "allgather", "bruck", 7, 0, None),
    ("contributions", "reduce", "binomial_tree", 8, 0, None),
    ("complete", "allreduce", "hierarchical", 8, 0, 4),
    ("peers", "allreduce", "double_binary_tree", 8, 0, None),
    ("holds", "all_to_all", "pairwise", 4, 0, None),
    ("holds", "broadcast", "scatter_allgather", 8, 0, None),
    ("holds", "sendrecv", "pipeline", 4, 0, None),
]


@pytest.mark.parametrize(("ask", "collective", "algorithm", "p", "root", "rpn"), CASES)
def test_truth_is_read_from_a_fresh_engine_trace(ask, collective, algorithm, p, root, rpn):
    s = spec(ask, collective, algorithm, p, root, rpn)
    trace = simulate(collective, algorithm, ranks=p, elements=4 * p, root=root, ranks_per_node=rpn)
    full = (1 << p) - 1
    for k, step in enumerate(trace.steps):
        after = trace.holdings_at(k)
        for t in step.transfers:
            v = values(k, t.src, p, root, rpn=rpn)
            if ask == "sends":
                want = {f"c{x.chunk}" for x in step.transfers if x.src == t.src}
            elif ask == "peers":
                want = {f"r{x.dst}" for x in step.transfers if x.src == t.src}
            elif ask == "contributions":
                v = values(k, t.dst, p, root, chunk=t.chunk, rpn=rpn)
                want = {f"r{q}" for q in ranks_in(after[(t.dst, t.chunk)])}
            else:
                v = values(k, t.dst, p, root, rpn=rpn)
                held = [c for c in range(trace.chunk_count) if after.get((t.dst, c), 0)]
                if ask == "complete":
                    held = [c for c in held if after[(t.dst, c)] == full]
                want = {f"c{c}" for c in held}
            assert predict_truth(s, v) == want


def test_the_buffer_view_is_the_state_before_the_step(bank):
    rng = random.Random(2)
    for q in bank.questions:
        if q.kind != "predict":
            continue
        for _ in range(5):
            shown = public(bank, q, SECRET, rng)
            v, fig = shown["params"], shown["figure"]
            case = q.predict.cases[v["case"]]
            trace = simulate(
                case.collective,
                case.algorithm,
                ranks=v["ranks"],
                elements=4 * v["ranks"],
                root=v["root"],
                ranks_per_node=v.get("ranks_per_node"),
            )
            before = trace.holdings_at(v["step"] - 1)
            for r in range(trace.ranks):
                for c in range(trace.chunk_count):
                    assert fig["holdings"][r][c] == ranks_in(before.get((r, c), 0))
            assert fig["steps_done"] == v["step"]


def test_every_predict_template_grades_its_truth_right_and_other_sets_wrong(bank):
    rng = random.Random(4)
    for q in bank.questions:
        if q.kind != "predict":
            continue
        for _ in range(8):
            shown = public(bank, q, SECRET, rng)
            truth = sorted(predict_truth(q.predict, shown["params"]))
            body = {"id": q.id, "params": shown["params"], "token": shown["token"]}
            assert grade(bank, {**body, "answer": truth}, SECRET)["correct"] is True
            ids = [o["id"] for o in shown["options"]]
            other = [i for i in ids if i not in truth][:1] + truth[1:]
            assert grade(bank, {**body, "answer": other}, SECRET)["correct"] is False
            assert "{" not in shown["prompt_html"]


def test_a_forged_step_is_rejected(bank):
    q = bank.by_id["predict-ring-allreduce-sends"]
    shown = public(bank, q, SECRET, random.Random(1))
    forged = {**shown["params"], "step": (shown["params"]["step"] + 1) % 6}
    from app.quiz import SubmissionError

    with pytest.raises(SubmissionError, match="params"):
        grade(bank, {"id": q.id, "params": forged, "token": shown["token"], "answer": []}, SECRET)
    resigned = tokens.sign(SECRET, q.id, {**shown["params"], "ranks": 9})
    with pytest.raises(SubmissionError, match="not a shape this question draws"):
        grade(
            bank,
            {
                "id": q.id,
                "params": {**shown["params"], "ranks": 9},
                "token": resigned,
                "answer": [],
            },
            SECRET,
        )


def test_a_draw_can_be_pinned_to_a_run_and_a_step():
    two = PredictSpec(
        "sends",
        (
            generators.Case("allgather", "ring", (4, 8)),
            generators.Case("allreduce", "ring", (4, 5)),
        ),
    )
    rng = random.Random(0)
    drawn = generators.draw_predict_for(two, rng, "allreduce", "ring", (5, 0, None), 3)
    assert drawn["case"] == 1 and (drawn["ranks"], drawn["step"]) == (5, 3)
    assert generators.check_predict(two, drawn) is None
    # Unpinned, it still keeps to the collective and algorithm asked for.
    for _ in range(20):
        free = generators.draw_predict_for(two, rng, "allgather", "ring")
        assert free["case"] == 0 and generators.check_predict(two, free) is None
    # A shape the question does not draw, a step past the end, another algorithm: none.
    assert generators.draw_predict_for(two, rng, "allreduce", "ring", (8, 0, None), 0) is None
    assert generators.draw_predict_for(two, rng, "allreduce", "ring", (4, 0, None), 6) is None
    assert generators.draw_predict_for(two, rng, "allreduce", "direct") is None
