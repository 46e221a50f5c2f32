"""MPICH's algorithm names per collective, the CVAR that forces one, and the catalog's match.

Names from MPICH 5's CVAR list (src/mpi/coll/cvars.txt; the same text is in libmpi's MPI_T
descriptions, `mpivars`). Only point-to-point algorithms a learner meets in the lessons are
offered: MPICH's `nb`, `smp` and `ccl` wrap other libraries or schedules. reduce_scatter runs
MPI_Reduce_scatter_block (nccl-tests' ReduceScatter: equal blocks), so its CVAR is that one's.
"""

from __future__ import annotations

MPICH_ALGORITHMS: dict[str, tuple[str, ...]] = {
    "allreduce": ("recursive_doubling", "reduce_scatter_allgather", "ring", "tree", "recexch"),
    "allgather": ("ring", "recursive_doubling", "brucks", "recexch_doubling", "recexch_halving"),
    "reduce_scatter": ("recursive_halving", "pairwise", "recursive_doubling", "noncommutative"),
    "broadcast": (
        "binomial",
        "scatter_recursive_doubling_allgather",
        "scatter_ring_allgather",
        "pipelined_tree",
        "tree",
    ),
    "reduce": ("binomial", "reduce_scatter_gather"),
    "all_to_all": ("brucks", "pairwise", "pairwise_sendrecv_replace", "scattered"),
    "sendrecv": (),  # one MPI_Sendrecv: nothing to choose
}

CVAR_COLLECTIVE = {
    "allreduce": "ALLREDUCE",
    "allgather": "ALLGATHER",
    "reduce_scatter": "REDUCE_SCATTER_BLOCK",
    "broadcast": "BCAST",
    "reduce": "REDUCE",
    "all_to_all": "ALLTOALL",
}

# The engine's catalog algorithm (app.collectives) that does what the MPICH one does, where the
# catalog has one: `compare` prints its step count beside MPICH's measured time.
CATALOG_MATCH: dict[tuple[str, str], str] = {
    ("allreduce", "recursive_doubling"): "recursive_doubling",
    ("allreduce", "reduce_scatter_allgather"): "rabenseifner",
    ("allreduce", "ring"): "ring",
    ("allgather", "ring"): "ring",
    ("allgather", "recursive_doubling"): "recursive_doubling",
    ("allgather", "brucks"): "bruck",
    ("reduce_scatter", "recursive_halving"): "recursive_halving",
    ("reduce_scatter", "pairwise"): "ring",
    ("broadcast", "binomial"): "binomial_tree",
    ("reduce", "binomial"): "binomial_tree",
    ("broadcast", "scatter_ring_allgather"): "scatter_allgather",
    ("all_to_all", "brucks"): "bruck",
    ("all_to_all", "pairwise"): "pairwise",
}


def cvar_environment(collective: str, algorithm: str | None) -> dict[str, str]:
    """Return the environment that makes MPICH use `algorithm` for `collective` ({} for auto).

    COLLECTIVE_FALLBACK=print: where MPICH cannot run the forced algorithm (MPICH's own calls
    at start-up, a count below the rank count, a non-power-of-two rank count) it says so on
    stderr and runs its own choice; the worker looks for those words per size (a row's `fallback`),
    so a time is never shown under a name that did not run. With `error` one start-up call
    would end the whole run.
    """
    if not algorithm:
        return {}
    name = f"MPIR_CVAR_{CVAR_COLLECTIVE[collective]}_INTRA_ALGORITHM"
    return {name: algorithm, "MPIR_CVAR_COLLECTIVE_FALLBACK": "print"}
