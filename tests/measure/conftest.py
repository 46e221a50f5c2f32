"""Real MPI ranks for tests/measure: skipped without mpi4py and MPICH, but failing under CI."""

from __future__ import annotations

import pytest

from app.measure.backends import missing
from tests.conftest import require


@pytest.fixture
def mpi():
    """Require the mpi backend (`make test` installs it: the `measure` extra)."""
    require(missing("mpi") is None, f"mpi backend: {missing('mpi')}")
