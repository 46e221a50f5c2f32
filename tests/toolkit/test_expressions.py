"""The formula reader: whiteboard forms in, anything executable out, with errors that say why."""

from __future__ import annotations

import random

import pytest

from app.toolkit import expressions as ex
from app.toolkit.expressions import ExpressionError

NAMES = ("p", "M", "alpha", "beta", "gamma")


def points(n: int = 8) -> list[dict[str, float]]:
    rng = random.Random(7)
    return [
        {"p": float(rng.randint(2, 97)), **{k: rng.uniform(0.3, 9) for k in NAMES[1:]}}
        for _ in range(n)
    ]


def same(a: str, b: str) -> bool:
    return ex.same(ex.parse(a, NAMES), ex.parse(b, NAMES), points())


@pytest.mark.parametrize(
    "written",
    [
        "2*(p-1)/p*M",
        "2*M*(p-1)/p",
        "2(p-1)/p M",
        "2(p−1)/p·M",
        "2 × (p − 1) ÷ p × M",
        "(2*p - 2)*M/p",
        "2*M - 2*M/p",
        "2M(p-1)/p",
        "2*(p-1)*p**-1*M",
        "2*(p-1)*p^(-1)*M",
    ],
)
def test_equivalent_forms_of_the_bound_are_the_same_formula(written):
    assert same(written, "2*(p-1)/p*M")


@pytest.mark.parametrize("written", ["2*M", "2*(p-1)*M", "(p-1)/p*M", "2*(p-1)/p*M + 1"])
def test_different_formulas_are_not_the_same(written):
    assert not same(written, "2*(p-1)/p*M")


def test_run_together_names_are_a_product():
    assert same("2(p-1)/p Mbeta", "2*(p-1)/p*M*beta")
    assert same("pM", "p*M")


def test_greek_letters_are_the_named_variables():
    model = "2*(p-1)*alpha + 2*(p-1)/p*M*beta + (p-1)/p*M*gamma"
    assert same("2(p-1)α + 2(p-1)/p·Mβ + (p-1)/p·Mγ", model)


@pytest.mark.parametrize(
    ("written", "says"),
    [
        ("__import__('os')", "not allowed"),
        ("sqrt(p)", "calls like sqrt(...) are not allowed"),
        ("p.real", "'.' is not allowed"),
        ("M[0]", "'[' is not allowed"),
        ("2**p", "exponent must be a whole number"),
        ("9**9**9", "exponent must be a whole number"),
        ("p**100", "exponent must be a whole number"),
        ("x*M", "unknown name 'x'"),
        ("pMx", "unknown name 'pMx'"),
        ("", "is empty"),
        ("2*(p-1", "is not a complete formula"),
        ("p" * 201, "at most 200 characters"),
        ("+".join(["p"] * 40), "nested too deeply"),
        ("1e400", "numbers must be finite"),
        ("p == M", "'=' is not allowed"),
    ],
)
def test_what_is_refused_is_refused_with_a_message_naming_the_field(written, says):
    with pytest.raises(ExpressionError) as caught:
        ex.parse(written, NAMES, "answer")
    message = str(caught.value)
    assert message.startswith("answer: ")
    assert says in message


@pytest.mark.parametrize("value", [None, 3, ["p"], {"p": 1}])
def test_a_non_text_answer_is_refused(value):
    with pytest.raises(ExpressionError, match="^answer: must be a formula as text"):
        ex.parse(value, NAMES, "answer")


def test_the_allowed_form_is_spelled_out_in_the_error():
    with pytest.raises(ExpressionError) as caught:
        ex.parse("p;M", NAMES, "answer")
    assert "the names p, M, alpha, beta, gamma, + - * / ** and parentheses" in str(caught.value)


def test_evaluation_walks_the_tree_and_a_division_by_zero_is_not_a_crash():
    tree = ex.parse("M/(p-p)", NAMES)
    assert ex.values_at([tree], [{"p": 2.0, "M": 1.0}]) == [None]
    assert ex.evaluate(ex.parse("2(p-1)/p", NAMES), {"p": 4.0}) == 1.5
