"""The cost model beside a measurement: the fit, and busbw curves of the fit or of a preset.

t(S) = A·α + B·S·β with A and B the model's terms for the collective's default algorithm
(app.measure.fit), busbw from t as nccl-tests computes it (app.costs.nccl_tests): the page
draws these points and computes nothing itself.
"""

from __future__ import annotations

from app.costs.hardware import HARDWARE
from app.costs.nccl_tests import busbw_gbs
from app.i18n import DEFAULT, N_
from app.i18n.catalog import translate_text
from app.i18n.errors import translate_error
from app.measure.fit import DEFAULT_MODEL, FitError, fit_result, model_terms
from app.measure.preset import PRESET_KEY
from app.measure.report import fit_sentences


def fit_of(result: dict, lang: str = DEFAULT) -> tuple[dict | None, str]:
    """Return (the fit as data with the CLI's sentences of it in `lang`, "") or (None, why
    there is none)."""
    try:
        fit = fit_result(result)
    except FitError as error:
        return None, translate_error(lang, str(error))
    lines = [translate_text(lang, sentence) for sentence in fit_sentences(fit)]
    return {**fit.as_dict(), "lines": lines}, ""


def _curve(name: str, result: dict, sizes: list[int], alpha_s: float, beta: float) -> dict:
    config = result["config"]
    collective, ranks = config["collective"], config["ranks"]
    steps, per_byte = model_terms(collective, DEFAULT_MODEL[collective], ranks)
    points = []
    for size in sizes:
        time_s = steps * alpha_s + per_byte * size * beta
        points.append({"size": size, "busbw_gbs": busbw_gbs(collective, ranks, size, time_s)})
    return {"name": name, "points": points}


def curve_of_fit(fit: dict, result: dict, sizes: list[int], lang: str = DEFAULT) -> dict:
    """Return the fitted model's busbw at each measured size, named in `lang`."""
    alpha_s, beta = fit["alpha_us"] / 1e6, fit["beta_s_per_byte"]
    return _curve(translate_text(lang, N_("model (fitted)")), result, sizes, alpha_s, beta)


def curve_of_preset(key: str, result: dict, sizes: list[int], lang: str = DEFAULT) -> dict:
    """Return the model's busbw at each measured size on the hardware preset `key`, named in
    `lang`."""
    link = HARDWARE[key]
    beta = 1 / (link.bandwidth_gbs * 1e9)
    if key == PRESET_KEY:
        name = N_("model (this machine, saved)")
    else:
        name = N_("model (%(preset)s)", preset=link.label)
    return _curve(translate_text(lang, name), result, sizes, link.latency_us / 1e6, beta)
