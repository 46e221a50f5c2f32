"""Read a learner's formula ("2(p−1)/p·M", "2*M*(p-1)/p") safely and compare it with a model one.

A whiteboard answer is written the way people write maths, so the reader accepts ×, ·, ÷, −,
^, α/β/γ and implied products ("2(p-1)", "2M", "(p-1)M"); then Python's `ast` parses it and
only numbers, the allowed names, + − × ÷, powers with a small constant exponent and
parentheses get through. Nothing is ever executed: the tree is walked by `evaluate`. Two
formulas are the same when they agree at several random points, which accepts every
rearrangement and nothing else in practice (Schwartz–Zippel, for rational functions).
A refusal's message is marked for the catalog (`N_`) with its values apart, so the page can show
it in the learner's language: `ExpressionError.in_language(lang)`.
"""

from __future__ import annotations

import ast
import math
import random
import re
from collections.abc import Callable, Iterable, Mapping

from app.i18n import DEFAULT, N_
from app.i18n.catalog import translate

MAX_LENGTH = 200
MAX_DEPTH = 24
MAX_EXPONENT = 8
ALLOWED_FORM = N_(
    "numbers, the names %(names)s, + - * / ** and parentheses "
    "(×, ·, ÷, −, ^, α, β, γ and implied products like 2(p-1) are fine)"
)
# Typographic forms a learner may paste, and what they mean in Python.
SPELLINGS = {
    "×": "*",
    "·": "*",
    "⋅": "*",
    "∗": "*",
    "÷": "/",
    "−": "-",
    "–": "-",
    "^": "**",
    "α": "alpha",
    "β": "beta",
    "γ": "gamma",
    "²": "**2",
}
NUMBER = r"(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)"
TOKEN = re.compile(rf"\s*(?:{NUMBER}|([A-Za-z_][A-Za-z_0-9]*)|(\*\*|[-+*/()]))")
BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
}
UNARY = {ast.UAdd: lambda a: a, ast.USub: lambda a: -a}


class Text:
    """A catalog message and its values (some of them Texts too): English by str()."""

    def __init__(self, message: str, **values: object) -> None:
        self.message, self.values = message, values

    def in_language(self, lang: str) -> str:
        values = {
            k: v.in_language(lang) if isinstance(v, Text | ExpressionError) else v
            for k, v in self.values.items()
        }
        return translate(lang, self.message, **values)

    def __str__(self) -> str:
        return self.in_language(DEFAULT)


class ExpressionError(ValueError):
    """The text is not a formula in the allowed form; the message says what is wrong."""

    def __init__(self, message: str, **values: object) -> None:
        self.text = Text(message, **values)
        super().__init__(str(self.text))

    def in_language(self, lang: str) -> str:
        """The message in `lang` (the UI catalog; English where it has none)."""
        return self.text.in_language(lang)


def _tokens(text: str) -> list[str]:
    """Split `text` into numbers, names, operators and parentheses, or say where it fails."""
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        match = TOKEN.match(text, pos)
        if not match:
            bad = text[pos:].lstrip()[:1]
            raise ExpressionError(N_("%(bad)s is not allowed"), bad=repr(bad))
        out.append(match.group(match.lastindex))
        pos = match.end()
    return out


def _with_implied_products(tokens: list[str]) -> str:
    """Join the tokens, adding the * a whiteboard leaves out: 2(p-1), 2M, (p-1)M, (a)(b)."""
    out: list[str] = []
    for token in tokens:
        if out and _ends_value(out[-1]) and _starts_value(token):
            out.append("*")
        out.append(token)
    return " ".join(out)


def _split_names(tokens: list[str], names: tuple[str, ...]) -> list[str]:
    """Read run-together names as a product, as a whiteboard does: "Mbeta" is M·β, "gN" g·N.

    A token that is not a name but splits wholly into names (longest first) is split; any
    other token is kept, to be refused later by name.
    """
    out = []
    for token in tokens:
        parts = None if token in names or not token[0].isalpha() else _split(token, names)
        out.extend(parts or [token])
    return out


def _split(token: str, names: tuple[str, ...]) -> list[str] | None:
    if not token:
        return []
    for name in sorted((n for n in names if token.startswith(n)), key=len, reverse=True):
        rest = _split(token[len(name) :], names)
        if rest is not None:
            return [name, *rest]
    return None


def _refuse_calls(tokens: list[str], names: tuple[str, ...]) -> None:
    """Refuse `name(` for a name that is not a variable: a function call, not a product."""
    for name, after in zip(tokens, tokens[1:], strict=False):
        if after == "(" and name[0].isalpha() and name not in names:
            raise ExpressionError(N_("calls like %(name)s(...) are not allowed"), name=name)


def _ends_value(token: str) -> bool:
    return token == ")" or token[0].isalnum() or token[0] in "._"


def _starts_value(token: str) -> bool:
    return token == "(" or token[0].isalnum() or token[0] in "._"


def parse(text: object, names: Iterable[str], field: str = "answer") -> ast.expr:
    """Return the checked tree of the formula `text` over `names`, or raise ExpressionError.

    Every message starts with `field` and says what is allowed.
    """
    names = tuple(names)
    form = Text(ALLOWED_FORM, names=", ".join(names))
    if not isinstance(text, str):
        raise ExpressionError(
            N_("%(field)s: must be a formula as text, using %(form)s"), field=field, form=form
        )
    if not text.strip():
        raise ExpressionError(
            N_("%(field)s: is empty; write a formula using %(form)s"), field=field, form=form
        )
    if len(text) > MAX_LENGTH:
        raise ExpressionError(
            N_("%(field)s: at most %(max)s characters, got %(got)s"),
            field=field,
            max=MAX_LENGTH,
            got=len(text),
        )
    for typed, meant in SPELLINGS.items():
        text = text.replace(typed, meant)
    try:
        tokens = _split_names(_tokens(text), names)
        _refuse_calls(tokens, names)
        source = _with_implied_products(tokens)
        tree = ast.parse(source, mode="eval").body
    except ExpressionError as exc:
        raise ExpressionError(
            N_("%(field)s: %(problem)s; use %(form)s"), field=field, problem=exc, form=form
        ) from None
    except SyntaxError:
        raise ExpressionError(
            N_("%(field)s: is not a complete formula; use %(form)s"), field=field, form=form
        ) from None
    _check(tree, set(names), field, form, depth=0)
    return tree


def _check(node: ast.AST, names: set[str], field: str, form: Text, depth: int) -> None:
    """Refuse any node outside the whitelist, names outside `names`, deep trees, big powers."""
    if depth > MAX_DEPTH:
        raise ExpressionError(
            N_("%(field)s: nested too deeply (at most %(max)s levels)"), field=field, max=MAX_DEPTH
        )
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        if not math.isfinite(node.value) or abs(node.value) > 1e12:
            raise ExpressionError(
                N_("%(field)s: numbers must be finite and at most 1e12"), field=field
            )
        return
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise ExpressionError(
                N_(
                    "%(field)s: unknown name %(name)s; the names are %(names)s "
                    "(write products with *, e.g. p*M)"
                ),
                field=field,
                name=repr(node.id),
                names=", ".join(sorted(names)),
            )
        return
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
        _check(node.operand, names, field, form, depth + 1)
        return
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        exponent = _constant_exponent(node.right)
        if exponent is None or abs(exponent) > MAX_EXPONENT:
            raise ExpressionError(
                N_("%(field)s: an exponent must be a whole number from -%(max)s to %(max)s"),
                field=field,
                max=MAX_EXPONENT,
            )
        _check(node.left, names, field, form, depth + 1)
        return
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        _check(node.left, names, field, form, depth + 1)
        _check(node.right, names, field, form, depth + 1)
        return
    what = Text(N_("a function call")) if isinstance(node, ast.Call) else type(node).__name__
    raise ExpressionError(
        N_("%(field)s: %(what)s is not allowed; use %(form)s"), field=field, what=what, form=form
    )


def _constant_exponent(node: ast.expr) -> int | None:
    """Return the exponent when it is a whole-number constant, possibly negated, else None."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def evaluate(tree: ast.expr, values: Mapping[str, float]) -> float:
    """Return the value of a checked tree at `values` (raises ZeroDivisionError, OverflowError)."""
    if isinstance(tree, ast.Constant):
        return float(tree.value)
    if isinstance(tree, ast.Name):
        return float(values[tree.id])
    if isinstance(tree, ast.UnaryOp):
        return UNARY[type(tree.op)](evaluate(tree.operand, values))
    left = evaluate(tree.left, values)
    if isinstance(tree.op, ast.Pow):
        return left ** _constant_exponent(tree.right)
    return BINARY[type(tree.op)](left, evaluate(tree.right, values))


Sampler = Callable[[random.Random], dict[str, float]]


def values_at(trees: list[ast.expr], points: list[dict[str, float]]) -> list[list[float] | None]:
    """Evaluate each tree at every point; a point where any tree fails gives None for all."""
    out: list[list[float] | None] = []
    for point in points:
        try:
            out.append([evaluate(t, point) for t in trees])
        except (ZeroDivisionError, OverflowError):
            out.append(None)
    return out


def close(a: float, b: float, rel: float = 1e-9) -> bool:
    """Whether two values agree to a relative tolerance (exact zeros agree only with zeros)."""
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-300)


def same(a: ast.expr, b: ast.expr, points: list[dict[str, float]]) -> bool:
    """Whether two formulas agree at every point where both are defined (and at some)."""
    rows = [row for row in values_at([a, b], points) if row is not None]
    return bool(rows) and all(close(x, y) for x, y in rows)


def ratio(a: ast.expr, b: ast.expr, points: list[dict[str, float]]) -> list[float]:
    """Return a ÷ b at every point where both are defined and b is not zero."""
    rows = [row for row in values_at([a, b], points) if row is not None and row[1] != 0]
    return [x / y for x, y in rows]
