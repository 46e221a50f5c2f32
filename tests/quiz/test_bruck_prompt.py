"""The Bruck allgather predict question states its rule in the prompt, and that rule, applied
literally, gives the engine's answer in every draw (issue 11: "sends what it holds" marked a
careful learner wrong in the short last step of 5 to 7 ranks)."""

from __future__ import annotations

from app.collectives import simulate
from app.quiz import generators
from app.quiz.generators.predict import shapes

from .test_facts import normal, question

BRUCK = "predict-allgather-bruck-sends"


def bruck_draws(bank):
    """Every (ranks, step index, rank) the question can draw, with its spec."""
    spec = question(bank, BRUCK).predict
    for case_index, case in enumerate(spec.cases):
        for ranks, root, _ in shapes(case):
            trace = simulate(case.collective, case.algorithm, ranks=ranks, elements=4 * ranks)
            for step, s in enumerate(trace.steps):
                for rank in sorted({t.src for t in s.transfers}):
                    values = {"case": case_index, "ranks": ranks, "root": root}
                    yield spec, values | {"step": step, "rank": rank}, trace


def rule_in_the_prompt(ranks: int, step: int, rank: int) -> set[int]:
    """The prompt's rule, applied literally: in step s (from 1) rank r sends to r - 2^(s-1) the
    first min(2^(s-1), p - 2^(s-1)) chunks it holds, starting with its own: r, r+1, ... mod p."""
    distance = 2 ** (step - 1)
    return {(rank + i) % ranks for i in range(min(distance, ranks - distance))}


def test_the_bruck_prompt_states_the_rule_for_the_last_step(bank):
    q = question(bank, BRUCK)
    for spec, values, _ in bruck_draws(bank):
        text = normal(generators.fill(q.prompt, generators.predict_env(spec, values)))
        p = values["ranks"]
        assert f"rank r - 2^(s-1) (mod {p})" in text, text
        assert f"first min(2^(s-1), {p} - 2^(s-1))" in text, text


def test_the_bruck_prompts_rule_gives_the_engines_answer_in_every_draw(bank):
    draws = list(bruck_draws(bank))
    short_last_steps = 0
    for spec, values, trace in draws:
        p, step, rank = values["ranks"], values["step"], values["rank"]
        sent = {t.chunk for t in trace.steps[step].transfers if t.src == rank}
        receivers = {t.dst for t in trace.steps[step].transfers if t.src == rank}
        assert sent == rule_in_the_prompt(p, step + 1, rank), values
        assert generators.predict_truth(spec, values) == {f"c{c}" for c in sent}  # as graded
        assert receivers == {(rank - 2**step) % p}, values
        short_last_steps += len(sent) < 2**step
    # The exception matters: "sends what it holds" would be wrong in these draws.
    assert short_last_steps > 0
