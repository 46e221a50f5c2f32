"""The alpha-beta fit recovers known links, and "this machine" round-trips through the file."""

from __future__ import annotations

import json
import random

import pytest

from app.costs import cost
from app.costs.hardware import HARDWARE, add_measured, load_measured
from app.measure.fit import FitError, fit_times, model_terms
from app.measure.preset import PRESET_KEY, save_preset
from app.measure.sizes import sweep_sizes
from app.measure.table import parse, render

SIZES = sweep_sizes(8, 1 << 22, 2)


@pytest.mark.parametrize(
    ("collective", "algorithm", "ranks"),
    [("allreduce", "ring", 4), ("allgather", "ring", 3), ("broadcast", "binomial_tree", 4)],
)
def test_the_fit_recovers_alpha_and_beta_from_noisy_times(collective, algorithm, ranks):
    alpha_us, gbs = 7.0, 3.5
    rng = random.Random(1)
    times = [
        cost(
            collective,
            algorithm,
            ranks=ranks,
            message_bytes=s,
            latency_us=alpha_us,
            bandwidth_gbs=gbs,
        ).time_s
        * rng.uniform(0.97, 1.03)
        for s in SIZES
    ]
    fit = fit_times(SIZES, times, collective, algorithm, ranks)
    assert fit.alpha_us == pytest.approx(alpha_us, rel=0.1)
    assert fit.bandwidth_gbs == pytest.approx(gbs, rel=0.05)
    assert 0 < fit.alpha_error_pct < 5 and 0 < fit.beta_error_pct < 5
    assert fit.steps == model_terms(collective, algorithm, ranks)[0]


def test_a_fit_that_cannot_be_says_why():
    with pytest.raises(FitError, match="at least 4 distinct sizes"):
        fit_times([8, 16], [1e-6, 1e-6], "allreduce", "ring", 2)
    with pytest.raises(FitError, match="do not grow with size"):
        fit_times(SIZES, [1e-3 / (i + 1) for i in range(len(SIZES))], "allreduce", "ring", 2)


def _result(rows_us: list[tuple[int, float]]) -> dict:
    rows = [
        {
            "size": s,
            "count": s // 4,
            "type": "float",
            "redop": "sum",
            "root": -1,
            **{
                p: {
                    "time_us": t,
                    "algbw_gbs": s / t / 1e3,
                    "busbw_gbs": s / t / 1e3,
                    "wrong": 0,
                    "fallback": False,
                }
                for p in ("out_of_place", "in_place")
            },
        }
        for s, t in rows_us
    ]
    return {
        "config": {
            "collective": "allreduce",
            "backend": "mpi",
            "ranks": 2,
            "min_bytes": 8,
            "max_bytes": 1 << 22,
            "factor": 2,
            "warmup": 1,
            "iters": 20,
        },
        "machine": {"cores": 2, "backend": "mpi", "algorithm": "auto", "library": "MPICH 5"},
        "rows": rows,
        "avg_busbw_gbs": 1.0,
        "status": "done",
        "warnings": [],
        "error": "",
    }


def test_this_machine_is_saved_loaded_and_offered(tmp_path):
    times = [
        cost("allreduce", "ring", ranks=2, message_bytes=s, latency_us=3, bandwidth_gbs=2).time_s
        for s in SIZES
    ]
    fit = fit_times(SIZES, times, "allreduce", "ring", 2)
    path = save_preset(
        fit, _result([(s, t * 1e6) for s, t in zip(SIZES, times, strict=True)]), tmp_path
    )
    link = load_measured(path)[PRESET_KEY]
    assert link.bandwidth_gbs == pytest.approx(2) and link.latency_us == pytest.approx(3)
    assert "measured: allreduce on 2 ranks" in link.bandwidth_source
    try:
        assert add_measured(path) == [PRESET_KEY]
        assert HARDWARE[PRESET_KEY] == link
    finally:
        HARDWARE.pop(PRESET_KEY, None)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": 2}, "format: expected 1"),
        ({"presets": [{"key": "x"}]}, r"presets\[0\]\.label: missing"),
        (
            {
                "presets": [
                    {
                        "key": "nvlink3",
                        "label": "l",
                        "scope": "intra-node",
                        "bandwidth_source": "b",
                        "latency_source": "l",
                        "bandwidth_gbs": 1,
                        "latency_us": 1,
                    }
                ]
            },
            "a built-in preset's key",
        ),
    ],
)
def test_a_bad_measured_file_is_refused_naming_the_field(tmp_path, change, message):
    path = tmp_path / "measured_hardware.json"
    path.write_text(json.dumps({"format": 1, "presets": [], **change}))
    with pytest.raises(ValueError, match=message):
        load_measured(path)
    assert load_measured(tmp_path / "none.json") == {}


def test_the_table_reads_back_what_it_printed():
    result = _result([(8, 12.5), (1024, 30.25)])
    result["rows"][1]["in_place"] = {
        "time_us": None,
        "algbw_gbs": None,
        "busbw_gbs": None,
        "wrong": None,
        "error": "MPICH cannot run it",
    }
    text = render(result)
    rows = parse(text)
    assert [r["size"] for r in rows] == [8, 1024]
    assert rows[0]["out_of_place"]["time_us"] == 12.5 and rows[1]["in_place"]["time_us"] is None
    assert "# n/a: MPICH cannot run it" in text and "# Avg bus bandwidth    : 1" in text
