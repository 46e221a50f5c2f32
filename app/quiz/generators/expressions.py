"""Safe arithmetic over a template's drawn parameters, and the error every template check raises.

Template authors write small expressions (`mib * 2**20`, `log2(ranks)`); they are parsed with
`ast`, checked against an allow-list of nodes, names and functions, and evaluated by walking the
tree, never with `eval`.
"""

from __future__ import annotations

import ast
import math


class TemplateError(ValueError):
    """A numeric or predict template is malformed; the message names the field."""


MATH = {
    "min": min,
    "max": max,
    "log2": math.log2,
    "ceil": math.ceil,
    "floor": math.floor,
    "round": round,
    "int": int,
}
BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}
ALLOWED_NODES = (
    ast.Expression,
    ast.BinOp,
    ast.UnaryOp,
    ast.USub,
    ast.UAdd,
    ast.Constant,
    ast.Name,
    ast.Load,
    ast.Attribute,
    ast.Call,
    *BINARY,
)


def parse_expression(source: str, names: set[str], field: str) -> ast.Expression:
    """Parse `source` and check it uses only arithmetic, MATH functions and known names."""
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError:
        raise TemplateError(f"field '{field}': cannot parse the expression {source!r}") from None
    for node in ast.walk(tree):
        _check_node(node, source, names, field)
    return tree


def _check_node(node: ast.AST, source: str, names: set[str], field: str) -> None:
    """Raise TemplateError if one node of `source` is not allowed in an expression."""
    if isinstance(node, ast.Name) and node.id not in names and node.id not in MATH:
        known = ", ".join(sorted(names)) or "none"
        raise TemplateError(
            f"field '{field}': {node.id!r} is not a parameter (parameters: {known})"
        )
    if not isinstance(node, ALLOWED_NODES):
        raise TemplateError(
            f"field '{field}': {type(node).__name__} is not allowed in {source!r}; "
            "use numbers, parameters, + - * / // % ** and " + ", ".join(MATH)
        )
    if isinstance(node, ast.Call) and not (
        isinstance(node.func, ast.Name) and node.func.id in MATH and not node.keywords
    ):
        raise TemplateError(f"field '{field}': only {', '.join(MATH)} may be called")
    if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
        raise TemplateError(f"field '{field}': private attribute {node.attr!r}")


def evaluate(tree: ast.AST, env: dict):
    """Evaluate a parsed, checked expression against the parameter values in `env`."""
    if isinstance(tree, ast.Expression):
        return evaluate(tree.body, env)
    if isinstance(tree, ast.Constant):
        return tree.value
    if isinstance(tree, ast.Name):
        return env[tree.id] if tree.id in env else MATH[tree.id]
    if isinstance(tree, ast.Attribute):
        return getattr(evaluate(tree.value, env), tree.attr)
    if isinstance(tree, ast.UnaryOp):
        value = evaluate(tree.operand, env)
        return -value if isinstance(tree.op, ast.USub) else value
    if isinstance(tree, ast.BinOp):
        return BINARY[type(tree.op)](evaluate(tree.left, env), evaluate(tree.right, env))
    if isinstance(tree, ast.Call):
        return MATH[tree.func.id](*(evaluate(a, env) for a in tree.args))
    raise TemplateError(f"cannot evaluate {ast.dump(tree)}")  # parse_expression prevents this
