"""The cost model beside a measurement: the fit, and busbw curves of the fit or of a preset.

t(S) = A·α + B·S·β with A and B the model's terms for the collective's default algorithm
(app.measure.fit), busbw from t as nccl-tests computes it (app.costs.nccl_tests): the page
draws these points and computes nothing itself.
"""

from __future__ import annotations

from app.costs.hardware import HARDWARE
from app.costs.nccl_tests import busbw_gbs
from app.measure.fit import DEFAULT_MODEL, FitError, fit_result, model_terms
from app.measure.preset import PRESET_KEY
from app.measure.report import fit_lines


def fit_of(result: dict) -> tuple[dict | None, str]:
    """Return (the fit as data with the CLI's lines of it, "") or (None, why there is none)."""
    try:
        fit = fit_result(result)
    except FitError as error:
        return None, str(error)
    return {**fit.as_dict(), "lines": [line.lstrip("# ") for line in fit_lines(fit)]}, ""


def _curve(name: str, result: dict, sizes: list[int], alpha_s: float, beta: float) -> dict:
    config = result["config"]
    collective, ranks = config["collective"], config["ranks"]
    steps, per_byte = model_terms(collective, DEFAULT_MODEL[collective], ranks)
    points = []
    for size in sizes:
        time_s = steps * alpha_s + per_byte * size * beta
        points.append({"size": size, "busbw_gbs": busbw_gbs(collective, ranks, size, time_s)})
    return {"name": name, "points": points}


def curve_of_fit(fit: dict, result: dict, sizes: list[int]) -> dict:
    """Return the fitted model's busbw at each measured size."""
    alpha_s, beta = fit["alpha_us"] / 1e6, fit["beta_s_per_byte"]
    return _curve("model (fitted)", result, sizes, alpha_s, beta)


def curve_of_preset(key: str, result: dict, sizes: list[int]) -> dict:
    """Return the model's busbw at each measured size on the hardware preset `key`."""
    link = HARDWARE[key]
    beta = 1 / (link.bandwidth_gbs * 1e9)
    name = "model (this machine, saved)" if key == PRESET_KEY else f"model ({link.label})"
    return _curve(name, result, sizes, link.latency_us / 1e6, beta)
