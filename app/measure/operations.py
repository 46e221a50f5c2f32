"""One collective on numpy buffers for one rank: its buffers, its MPI call, its right answer.

nccl-tests' conventions (REFERENCE § 2): the size column S is count × 4 bytes for allreduce,
broadcast, reduce and sendrecv, and count × 4 × ranks for allgather, reduce_scatter and
all_to_all, where count is the per-rank element count; float32, sum, root 0 where rooted.
Each rank's input is a deterministic function of (rank, index) with small integer values, so
every sum is exact in float32 and a wrong element is a real error, not rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SCALED = ("allgather", "reduce_scatter", "all_to_all")  # S = count × 4 × ranks
ROOTED = ("broadcast", "reduce")
REDUCING = ("allreduce", "reduce_scatter", "reduce")
ELEMENT_BYTES = 4  # float32


def element_count(collective: str, size_bytes: int, ranks: int) -> int:
    """Return nccl-tests' per-rank count for a requested size (at least one element)."""
    unit = ELEMENT_BYTES * (ranks if collective in SCALED else 1)
    return max(1, size_bytes // unit)


def size_of(collective: str, count: int, ranks: int) -> int:
    """Return the size column S in bytes for a per-rank `count`."""
    return count * ELEMENT_BYTES * (ranks if collective in SCALED else 1)


def labels(collective: str) -> tuple[str, int]:
    """Return the redop and root columns as nccl-tests prints them ("none", -1 when n/a)."""
    return ("sum" if collective in REDUCING else "none"), (0 if collective in ROOTED else -1)


def rank_input(rank: int, length: int) -> np.ndarray:
    """Return rank `rank`'s input: small integers that differ by rank and by index."""
    return ((np.arange(length, dtype=np.int64) * 7 + rank * 13) % 31).astype(np.float32)


def input_length(collective: str, count: int, ranks: int) -> int:
    """Return how many elements each rank sends."""
    return count * ranks if collective in ("reduce_scatter", "all_to_all") else count


def expected(collective: str, count: int, ranks: int, rank: int) -> np.ndarray | None:
    """Return what `rank` must hold after the collective (None: nothing to check there)."""
    length = input_length(collective, count, ranks)
    inputs = [rank_input(r, length) for r in range(ranks)]
    if collective == "allreduce":
        return np.sum(inputs, axis=0, dtype=np.float32)
    if collective == "reduce":
        return np.sum(inputs, axis=0, dtype=np.float32) if rank == 0 else None
    if collective == "allgather":
        return np.concatenate(inputs)
    if collective == "reduce_scatter":
        return np.sum(inputs, axis=0, dtype=np.float32)[rank * count : (rank + 1) * count]
    if collective == "broadcast":
        return inputs[0]
    if collective == "all_to_all":
        return np.concatenate([inputs[r][rank * count : (rank + 1) * count] for r in range(ranks)])
    return inputs[(rank - 1) % ranks]  # sendrecv: from the left neighbour


@dataclass
class Buffers:
    """A rank's send and receive buffers for one size; `result` is the part to check."""

    send: np.ndarray
    recv: np.ndarray

    def result(self, collective: str, count: int, in_place: bool) -> np.ndarray:
        """Return the elements that hold this rank's answer after the call."""
        if collective == "reduce_scatter" and in_place:
            return self.recv[:count]  # MPI leaves the block in the first `count` elements
        return self.recv


def buffers(collective: str, count: int, ranks: int, rank: int, in_place: bool) -> Buffers:
    """Return fresh buffers holding this rank's input, laid out for the call."""
    data = rank_input(rank, input_length(collective, count, ranks))
    out_length = count * ranks if collective in ("allgather", "all_to_all") else count
    if not in_place:
        return Buffers(data, np.zeros(out_length, dtype=np.float32))
    if collective == "allgather":
        recv = np.zeros(count * ranks, dtype=np.float32)
        recv[rank * count : (rank + 1) * count] = data
        return Buffers(data, recv)
    if collective == "broadcast" and rank != 0:
        return Buffers(data, np.zeros(count, dtype=np.float32))
    return Buffers(data, data.copy())  # the call reads and writes recv


def call(comm, mpi, collective: str, bufs: Buffers, in_place: bool) -> None:
    """Run the collective once on `comm` (mpi4py's MPI module passed in: no import at load)."""
    rank, ranks = comm.Get_rank(), comm.Get_size()
    send = mpi.IN_PLACE if in_place else bufs.send
    if collective == "allreduce":
        comm.Allreduce(send, bufs.recv, op=mpi.SUM)
    elif collective == "allgather":
        comm.Allgather(send, bufs.recv)
    elif collective == "reduce_scatter":
        if in_place:
            comm.Reduce_scatter_block(mpi.IN_PLACE, bufs.recv, op=mpi.SUM)
        else:
            comm.Reduce_scatter_block(bufs.send, bufs.recv, op=mpi.SUM)
    elif collective == "broadcast":
        if not in_place and rank == 0:
            bufs.recv[:] = bufs.send  # out of place: the root's result is its send buffer
        comm.Bcast(bufs.recv, root=0)
    elif collective == "reduce":
        root_send = mpi.IN_PLACE if in_place and rank == 0 else bufs.send
        comm.Reduce(root_send, bufs.recv, op=mpi.SUM, root=0)
    elif collective == "all_to_all":
        comm.Alltoall(send, bufs.recv)
    elif in_place:  # sendrecv
        comm.Sendrecv_replace(bufs.recv, dest=(rank + 1) % ranks, source=(rank - 1) % ranks)
    else:
        comm.Sendrecv(bufs.send, (rank + 1) % ranks, recvbuf=bufs.recv, source=(rank - 1) % ranks)
