"""MeasureConfig's checks, the size sweep and nccl-tests' counts: no MPI needed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.measure import operations as ops
from app.measure.algorithms import cvar_environment
from app.measure.config import COLLECTIVES, MeasureConfig, cores
from app.measure.launcher import sizes_for
from app.measure.sizes import parse_bytes, sweep_sizes
from app.measure.sweep import BackendUnavailable, backends, sweep


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"collective": "gather"}, "collective: 'gather' is not one of allreduce"),
        ({"ranks": 0}, "ranks: 0 is outside 1..64"),
        ({"ranks": 1, "collective": "sendrecv"}, "ranks: 1 is outside 2..64"),
        ({"ranks": 65, "oversubscribe": True}, "ranks: 65 is outside 1..64"),
        ({"max_bytes": "2G"}, "max_bytes: 2147483648 is outside 8..1073741824"),
        ({"min_bytes": "1M", "max_bytes": "1K"}, "max_bytes: 1024 is outside 1048576.."),
        ({"min_bytes": "8X"}, "min_bytes: '8X' is not a size"),
        ({"factor": 1}, "factor: 1 is outside 2..1024"),
        ({"iters": 0}, "iters: 0 is outside 1..10000"),
        ({"warmup": -1}, "warmup: -1 is outside 0..1000"),
        ({"time_limit_s": 0.5}, "time_limit_s: 0.5 is outside 1..3600"),
        ({"algorithm": "brucks"}, "algorithm: 'brucks' is not one of auto, recursive_doubling"),
        ({"algorithm": "ring", "collective": "sendrecv"}, "algorithm: sendrecv has none to choose"),
        ({"backend": "nccl"}, "backend: 'nccl' is not one of mpi, torch"),
    ],
)
def test_a_bad_field_is_named_with_its_range(fields, message):
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace(".", r"\.")):
        MeasureConfig(**fields)


def test_more_ranks_than_cores_needs_oversubscribe():
    with pytest.raises(
        ValueError, match=rf"ranks: {cores() + 1} is more than .* \(1\.\.{cores()};"
    ):
        MeasureConfig(ranks=cores() + 1)
    assert MeasureConfig(ranks=cores() + 1, oversubscribe=True).ranks == cores() + 1


@settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "collective",
                "ranks",
                "min_bytes",
                "max_bytes",
                "factor",
                "iters",
                "warmup",
                "time_limit_s",
                "algorithm",
                "backend",
            ]
        ),
        st.one_of(
            st.integers(-5, 1 << 31), st.text(max_size=6), st.none(), st.floats(), st.booleans()
        ),
    )
)
def test_any_input_makes_a_config_or_names_a_field(fields):
    try:
        config = MeasureConfig(**fields, oversubscribe=True)
    except ValueError as error:
        assert str(error).split(":")[0] in MeasureConfig.__dataclass_fields__
    else:
        assert config.min_bytes <= config.max_bytes


def test_sizes_are_nccl_tests_sweep():
    assert parse_bytes("b", "1M") == 1 << 20 and parse_bytes("b", "4k") == 4096
    assert (
        sweep_sizes(8, 1 << 20, 2)[:3] == [8, 16, 32] and sweep_sizes(8, 1 << 20, 2)[-1] == 1 << 20
    )
    assert sweep_sizes(8, 100, 4) == [8, 32]
    # allgather on 3 ranks: S = count × 4 × 3, so 8 B rounds to one element per rank (12 B).
    config = MeasureConfig("allgather", ranks=2, min_bytes=8, max_bytes=64)
    assert sizes_for(config) == [8, 16, 32, 64]


@pytest.mark.parametrize("collective", COLLECTIVES)
def test_expected_results_follow_the_definition(collective):
    ranks, count = 3, 4
    per_rank = [ops.expected(collective, count, ranks, r) for r in range(ranks)]
    inputs = [ops.rank_input(r, ops.input_length(collective, count, ranks)) for r in range(ranks)]
    if collective == "allreduce":
        assert all(np.array_equal(p, inputs[0] + inputs[1] + inputs[2]) for p in per_rank)
    elif collective == "reduce_scatter":
        total = inputs[0] + inputs[1] + inputs[2]
        assert np.array_equal(np.concatenate(per_rank), total)
    elif collective == "all_to_all":
        assert np.array_equal(per_rank[2][count : 2 * count], inputs[1][2 * count : 3 * count])
    elif collective == "reduce":
        assert per_rank[1] is None and per_rank[2] is None
    elif collective == "sendrecv":
        assert np.array_equal(per_rank[0], inputs[2])
    assert len({bytes(x) for x in inputs}) == ranks  # every rank's input differs


def test_forcing_sets_mpichs_cvar():
    assert cvar_environment("reduce_scatter", "pairwise") == {
        "MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM": "pairwise",
        "MPIR_CVAR_COLLECTIVE_FALLBACK": "print",
    }
    assert cvar_environment("allreduce", None) == {}


def test_a_missing_backend_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr("app.measure.backends.has_module", lambda name: False)
    report = backends()
    assert report["mpi"] == {"installed": False, "reason": report["mpi"]["reason"]}
    assert "pip install -e '.[measure]'" in report["install"]
    with pytest.raises(BackendUnavailable, match=r"backend mpi: mpi4py is not installed: pip"):
        sweep(MeasureConfig())
