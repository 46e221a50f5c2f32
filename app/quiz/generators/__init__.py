"""Fresh questions from templates: numbers drawn for the cost model, states drawn from the engine.

- `expressions`: the safe arithmetic template expressions use, and `TemplateError`.
- `params`: a numeric template's parameters: drawn, checked when submitted, resolved.
- `prompts`: `{placeholders}` in prompts and explanations.
- `numeric`: numeric templates, answered by an `app.costs` call (`solve`).
- `predict`: predict-the-next-step templates, drawn from a small engine run.
- `predict_answers`: what a predict draw shows and what answers it (`predict_truth`).

Everything here is pure Python over `app.costs` and `app.collectives`; the web layer only
passes parameters through. The names below are the ones the bank, the presenter, the grader
and the tests use.
"""

from .expressions import TemplateError, evaluate
from .numeric import UNITS, NumericSpec, parse_numeric, solve, within
from .params import all_draws, check_draw, draw, environment
from .predict import Case, PredictSpec, check_predict, draw_predict, draw_predict_for, parse_predict
from .predict_answers import (
    NONE,
    PREDICT_NAMES,
    describe_step,
    figure,
    predict_env,
    predict_options,
    predict_truth,
)
from .prompts import check_placeholders, fill

__all__ = [
    "NONE",
    "PREDICT_NAMES",
    "UNITS",
    "Case",
    "NumericSpec",
    "PredictSpec",
    "TemplateError",
    "all_draws",
    "check_draw",
    "check_placeholders",
    "check_predict",
    "describe_step",
    "draw",
    "draw_predict",
    "draw_predict_for",
    "environment",
    "evaluate",
    "figure",
    "fill",
    "parse_numeric",
    "parse_predict",
    "predict_env",
    "predict_options",
    "predict_truth",
    "solve",
    "within",
]
