"""Numeric templates: for many draws the graded answer is the cost model's result, a wrong answer
outside the tolerance is marked wrong, and a few templates are pinned to hand formulas."""

from __future__ import annotations

import ast
import math
import random

import pytest

from app import costs
from app.quiz import generators, grade, public
from app.quiz.generators import UNITS

SECRET = "test-secret"
DRAWS = 25


def numeric_questions(bank):
    return [q for q in bank.questions if q.kind == "numeric"]


def cost_model_value(spec, values) -> float:
    """Call app.costs directly for one draw and combine the calls as the template says."""
    env = generators.environment(spec.params, values)

    def call(c):
        args = {
            k: (generators.evaluate(v, env) if isinstance(v, ast.AST) else v) for k, v in c.args
        }
        if c.function == "cost":
            result = costs.cost(**args)
            if c.result == "max_bytes_per_rank":
                return max(result.bytes_per_rank)
            return getattr(result, c.result)
        return getattr(costs, c.function)(**args)

    value = call(spec.answer) + sum(call(c) for c in spec.plus)
    if spec.scale is not None:
        value *= generators.evaluate(spec.scale, env)
    if spec.divide_by is not None:
        value /= call(spec.divide_by)
    return value / UNITS[spec.unit][1]


def test_there_are_numeric_templates_for_many_topics(bank):
    templates = numeric_questions(bank)
    assert len(templates) >= 20
    assert len({s for q in templates for s in q.seed_questions}) >= 25


def test_graded_answer_is_the_cost_model_result_for_many_draws(bank):
    rng = random.Random(7)
    for q in numeric_questions(bank):
        seen = set()
        for _ in range(DRAWS):
            shown = public(bank, q, SECRET, rng)
            seen.add(tuple(sorted(shown["params"].items())))
            truth = cost_model_value(q.numeric, shown["params"])
            body = {"id": q.id, "params": shown["params"], "token": shown["token"]}
            right = grade(bank, {**body, "answer": truth}, SECRET)
            assert right["correct"] is True, (q.id, shown["params"])
            assert right["expected"] == pytest.approx(truth, rel=1e-3)
            kind, tol = q.numeric.tolerance
            off = truth * (1 + 3 * tol) if kind == "relative" else truth + 3 * tol + 1
            wrong = grade(bank, {**body, "answer": off}, SECRET)
            assert wrong["correct"] is False, (q.id, shown["params"], off)
            low = grade(bank, {**body, "answer": truth / 2}, SECRET)
            assert low["correct"] is False
        assert len(seen) > 1, f"{q.id} always draws the same numbers"


def test_answers_within_the_tolerance_are_accepted(bank):
    rng = random.Random(11)
    for q in numeric_questions(bank):
        kind, tol = q.numeric.tolerance
        shown = public(bank, q, SECRET, rng)
        truth = cost_model_value(q.numeric, shown["params"])
        near = truth * (1 + 0.9 * tol) if kind == "relative" else truth + 0.9 * tol
        body = {"id": q.id, "params": shown["params"], "token": shown["token"], "answer": near}
        assert grade(bank, body, SECRET)["correct"] is True, q.id


def test_feedback_shows_the_formula_with_the_numbers_substituted(bank):
    q = bank.by_id["num-ring-allreduce-time"]
    values = {"ranks": 8, "mib": 256, "link": "ib_hdr"}
    result = grade(
        bank,
        {"id": q.id, "params": values, "token": _sign(q.id, values), "answer": 1.0},
        SECRET,
    )
    text = "\n".join(result["formula"])
    assert "2(p−1)·α + 2·(p−1)/p·M·β" in text
    assert "14·2.7 µs" in text and "256 MiB ÷ 25 GB/s" in text
    assert result["expected_text"] == "18.83 ms"


def _sign(qid, values):
    from app.quiz import tokens

    return tokens.sign(SECRET, qid, values)


def test_ring_allreduce_time_matches_the_hand_formula(bank):
    q = bank.by_id["num-ring-allreduce-time"]
    for ranks in (4, 16, 64):
        for mib in (16, 1024):
            values = {"ranks": ranks, "mib": mib, "link": "ib_ndr"}
            m, alpha, bw = mib * 2**20, 2.7e-6, 50e9
            hand = 2 * (ranks - 1) * alpha + 2 * (ranks - 1) / ranks * m / bw
            assert generators.solve(q.numeric, values).value == pytest.approx(hand * 1e3)


def test_busbw_template_matches_nccl_tests_definition(bank):
    q = bank.by_id["num-nccl-tests-busbw"]
    values = {"ranks": 16, "mib": 1024, "target": 83}
    env = generators.environment(q.numeric.params, values)
    algbw = 2**30 / env["t"] / 1e9
    assert generators.solve(q.numeric, values).value == pytest.approx(algbw * 2 * 15 / 16)
    assert generators.solve(q.numeric, values).value == pytest.approx(83, rel=1e-3)


def test_hierarchical_steps_are_exact(bank):
    q = bank.by_id["num-hierarchical-steps"]
    for nodes in (2, 16, 128):
        for gpus in (4, 8):
            got = generators.solve(q.numeric, {"nodes": nodes, "gpus": gpus}).value
            assert got == 2 * (gpus - 1) + 2 * (nodes - 1)
    assert q.numeric.tolerance == ("absolute", 0.0)


def test_nvlink_against_pcie_is_about_9_5x_for_large_copies(bank):
    q = bank.by_id["num-nvlink-vs-pcie"]
    got = generators.solve(q.numeric, {"fast": "nvlink3", "slow": "pcie4", "mib": 1024}).value
    assert got == pytest.approx(300 / 31.5, rel=1e-3)


def test_prompts_show_the_drawn_numbers(bank):
    q = bank.by_id["num-ring-allreduce-time"]
    shown = public(bank, q, SECRET, random.Random(3))
    p = shown["params"]
    assert f"{p['mib']} MiB" in shown["prompt_html"]
    assert f"on {p['ranks']} GPUs" in shown["prompt_html"]
    assert costs.HARDWARE[p["link"]].label in shown["prompt_html"]
    assert "{" not in shown["prompt_html"]


def test_every_template_value_is_finite_and_positive_over_all_draws(bank):
    rng = random.Random(5)
    for q in numeric_questions(bank):
        for values in generators.all_draws(q.numeric.params, 300, rng):
            value = generators.solve(q.numeric, values).value
            assert math.isfinite(value) and value > 0, (q.id, values)
