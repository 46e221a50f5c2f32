"""One torch.distributed rank (gloo, CPU) of a sweep: the same rows as the MPI worker.

Started by torch_launch with RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT set. The tensors
are views of the numpy buffers (torch.from_numpy), so the inputs and the numpy answers are
operations.py's. gloo has no in-place flag: out of place reads `send` and writes `recv`; in
place passes the one buffer as both, where the call allows it.
"""

from __future__ import annotations

import os

from . import operations as ops
from .worker import run_sizes


class TorchRanks:
    """This process's view of the ranks through torch.distributed, as `measure` needs it."""

    def __init__(self) -> None:
        import torch
        import torch.distributed as dist

        dist.init_process_group("gloo")
        self.torch, self.dist = torch, dist
        self.rank, self.ranks = dist.get_rank(), dist.get_world_size()
        self.errors: tuple[type[BaseException], ...] = (RuntimeError,)
        self.library = f"torch {torch.__version__} gloo"

    def call(self, collective: str, bufs: ops.Buffers, in_place: bool) -> None:
        t, dist = self.torch.from_numpy, self.dist
        send, recv = t(bufs.recv if in_place else bufs.send), t(bufs.recv)
        count = recv.numel() // (self.ranks if collective in ("allgather", "all_to_all") else 1)
        if collective == "allreduce":
            if not in_place:
                recv.copy_(send)
            dist.all_reduce(recv)
        elif collective == "allgather":
            mine = recv[self.rank * count : (self.rank + 1) * count] if in_place else send
            dist.all_gather_into_tensor(recv, mine)
        elif collective == "reduce_scatter":
            dist.reduce_scatter_tensor(recv[:count] if in_place else recv, send)
        elif collective in ("broadcast", "reduce"):
            if not in_place:
                recv.copy_(send)  # gloo broadcasts and reduces in place, from or into rank 0
            (dist.broadcast if collective == "broadcast" else dist.reduce)(recv, 0)
        elif collective == "all_to_all":
            dist.all_to_all_single(recv, send.clone() if in_place else send)
        else:  # sendrecv: a shift to the next rank
            incoming = recv.clone() if in_place else recv
            out = dist.isend(send.clone() if in_place else send, (self.rank + 1) % self.ranks)
            dist.recv(incoming, (self.rank - 1) % self.ranks)
            out.wait()
            recv.copy_(incoming)

    def barrier(self) -> None:
        self.dist.barrier()

    def _reduced(self, value: float, op) -> float:
        box = self.torch.tensor([value], dtype=self.torch.float64)
        self.dist.all_reduce(box, op=op)
        return box.item()

    def max(self, value: float) -> float:
        return self._reduced(value, self.dist.ReduceOp.MAX)

    def sum(self, value: int) -> int:
        return int(self._reduced(value, self.dist.ReduceOp.SUM))


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # one machine: the loopback interface
    return run_sizes(TorchRanks(), argv)


if __name__ == "__main__":
    raise SystemExit(main())
