"""One rank of a sweep: `python -m app.measure.worker` under mpiexec; rank 0 prints JSON lines.

Line one is {"kind": "info", ...} (the library and the rank count), then one
{"kind": "row", ...} per size as soon as that size is done, so a reader can stream them.
Per size and per placement (out of place, then in place, as nccl-tests): `warmup` untimed calls,
then `iters` timed ones; the time is the mean per call, the maximum over ranks (nccl-tests'
"avg over iters, max over ranks"). Then one more call on fresh input is checked against the
numpy answer; #wrong is the number of differing elements summed over ranks.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time

import numpy as np

from . import operations as ops

CORRUPT_ENV = "COLLECTIVE_LAB_MEASURE_CORRUPT"  # test-only: rank 0 spoils this many elements
STOP_ENV = "COLLECTIVE_LAB_MEASURE_STOP"  # the launcher creates this file to stop the ranks
FALLBACK_SAYS = "cannot be applied"  # MPICH: "Allreduce ring cannot be applied."


class MpiRanks:
    """This process's view of the ranks through mpi4py: what `measure` needs of a backend."""

    def __init__(self, comm, mpi) -> None:
        self.comm, self.mpi = comm, mpi
        self.rank, self.ranks = comm.Get_rank(), comm.Get_size()
        self.errors: tuple[type[BaseException], ...] = (mpi.Exception,)
        self.library = mpi.Get_library_version().strip()

    def call(self, collective: str, bufs: ops.Buffers, in_place: bool) -> None:
        ops.call(self.comm, self.mpi, collective, bufs, in_place)

    def barrier(self) -> None:
        self.comm.Barrier()

    def max(self, value: float) -> float:
        return self.comm.allreduce(value, op=self.mpi.MAX)

    def sum(self, value: int) -> int:
        return self.comm.allreduce(value, op=self.mpi.SUM)


def timed(ranks, collective: str, count: int, warmup: int, iters: int, in_place: bool) -> float:
    """Return the mean seconds per call on this rank."""
    bufs = ops.buffers(collective, count, ranks.ranks, ranks.rank, in_place)
    for _ in range(warmup):
        ranks.call(collective, bufs, in_place)
    ranks.barrier()
    start = time.perf_counter()
    for _ in range(iters):
        ranks.call(collective, bufs, in_place)
    return (time.perf_counter() - start) / iters


def wrong_here(ranks, collective: str, count: int, in_place: bool, corrupt: int) -> int:
    """Run once on fresh input and return how many of this rank's elements are wrong."""
    bufs = ops.buffers(collective, count, ranks.ranks, ranks.rank, in_place)
    ranks.call(collective, bufs, in_place)
    want = ops.expected(collective, count, ranks.ranks, ranks.rank)
    if want is None:
        return 0
    got = bufs.result(collective, count, in_place)
    if ranks.rank == 0 and corrupt:
        got[: min(corrupt, got.size)] += 1.0
    return int(np.count_nonzero(got != want))


def measure(ranks, collective: str, size: int, warmup: int, iters: int, corrupt: int) -> dict:
    """Return one table row for `size` (only rank 0's is complete)."""
    count = ops.element_count(collective, size, ranks.ranks)
    redop, root = ops.labels(collective)
    row = {"kind": "row", "size": ops.size_of(collective, count, ranks.ranks), "count": count}
    row.update(type="float", redop=redop, root=root)
    for placement, in_place in (("out_of_place", False), ("in_place", True)):
        try:
            with stderr_captured() as said:
                mine = timed(ranks, collective, count, warmup, iters, in_place)
                wrong = wrong_here(ranks, collective, count, in_place, corrupt)
        except ranks.errors as error:  # e.g. a forced algorithm MPICH cannot run for this call
            row[placement] = {"time_s": None, "wrong": None, "error": mpich_reason(error)}
            continue
        row[placement] = {
            "time_s": ranks.max(mine),
            "wrong": ranks.sum(wrong),
            # MPICH set the forced algorithm aside for its own (one rank says so, per call)
            "fallback": ranks.sum(int(FALLBACK_SAYS in said[0])) > 0,
        }
    return row


@contextlib.contextmanager
def stderr_captured():
    """Collect what the process (MPICH's C code included) writes to fd 2 in the block.

    MPICH says "... cannot be applied." when COLLECTIVE_FALLBACK=print sets a forced algorithm
    aside: the only sign of which algorithm really ran. The rest is passed on to stderr.
    """
    sys.stderr.flush()
    saved = os.dup(2)
    said: list[str] = []
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield said
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            said.append(sink.read().decode("utf-8", "replace"))
    rest = [line for line in said[0].splitlines() if not _about_fallback(line)]
    if rest:
        sys.stderr.write("\n".join(rest) + "\n")


def _about_fallback(line: str) -> bool:
    return FALLBACK_SAYS in line or "algorithm is not usable" in line


def mpich_reason(error: Exception) -> str:
    """Return the line of MPICH's error stack that says why (its last line), without the frame."""
    last = str(error).strip().splitlines()[-1]
    if "algorithm is not usable" in last:  # MPICH cuts this line short: say it whole
        return "MPICH cannot run the forced algorithm for this call"
    return last.split(":", 1)[-1].strip()


def emit(record: dict) -> None:
    """Print one JSON line and flush it, so the launcher sees it now."""
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m app.measure.worker")
    p.add_argument("collective", choices=ops.SCALED + ops.ROOTED + ("allreduce", "sendrecv"))
    p.add_argument("--sizes", required=True, help="comma-separated sizes in bytes")
    p.add_argument("-w", "--warmup", type=int, default=1)
    p.add_argument("-n", "--iters", type=int, default=20)
    return p


def run_sizes(ranks, argv: list[str] | None) -> int:
    """Measure every size of the command line on `ranks`; rank 0 prints the JSON lines."""
    args = parser().parse_args(argv)
    corrupt = int(os.environ.get(CORRUPT_ENV, "0") or 0)
    if ranks.rank == 0:
        emit({"kind": "info", "library": ranks.library, "ranks": ranks.ranks})
    stop_file = os.environ.get(STOP_ENV, "")
    for size in (int(s) for s in args.sizes.split(",")):
        # Every rank agrees to stop between sizes, so MPI finalizes and frees its shared memory
        # (a killed MPICH leaves its /dev/shm segment behind).
        if ranks.sum(int(ranks.rank == 0 and bool(stop_file) and os.path.exists(stop_file))):
            break
        row = measure(ranks, args.collective, size, args.warmup, args.iters, corrupt)
        if ranks.rank == 0:
            emit(row)
    return 0


def main(argv: list[str] | None = None) -> int:
    from mpi4py import MPI  # here, not at import: the launcher and tests import this module

    return run_sizes(MpiRanks(MPI.COMM_WORLD, MPI), argv)


if __name__ == "__main__":
    raise SystemExit(main())
