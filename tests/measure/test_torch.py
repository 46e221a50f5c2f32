"""The torch.distributed (gloo) backend: its absence is said plainly; with torch, it measures.

torch is not one of the project's extras, so without it this skips, under CI too.
"""

from __future__ import annotations

import pytest

from app.measure.backends import has_module
from app.measure.config import MeasureConfig
from app.measure.sweep import BackendUnavailable, sweep

TORCH = has_module("torch")


@pytest.mark.skipif(TORCH, reason="torch is installed here")
def test_without_torch_the_backend_says_how_to_install_it():
    with pytest.raises(BackendUnavailable, match=r"backend torch: torch is not installed: pip"):
        sweep(MeasureConfig(backend="torch"))


@pytest.mark.skipif(not TORCH, reason="torch is not installed (not a project extra)")
@pytest.mark.parametrize("collective", ["allreduce", "allgather", "broadcast", "sendrecv"])
def test_torch_gloo_measures_right_answers(collective):
    config = MeasureConfig(
        collective, backend="torch", ranks=2, max_bytes="1K", factor=8, iters=2, oversubscribe=True
    )
    result = sweep(config)
    assert result["status"] == "done", result["error"]
    assert result["machine"]["library"].startswith("torch")
    assert [r["out_of_place"]["wrong"] for r in result["rows"]] == [0, 0, 0]
