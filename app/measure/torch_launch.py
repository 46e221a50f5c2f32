"""Start K torch.distributed (gloo) ranks on this machine: `python -m app.measure.torch_launch K
<worker arguments>`. Rank 0's output is this process's; the others' is dropped (rank 0 prints
every row). The launcher kills this process's group at its time limit, ranks included.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on now (for the rendezvous)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ranks, worker = int(argv[0]), argv[1:]
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()))
    env["WORLD_SIZE"] = str(ranks)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "app.measure.torch_worker", *worker],
            env={**env, "RANK": str(rank)},
            stdout=None if rank == 0 else subprocess.DEVNULL,
        )
        for rank in range(ranks)
    ]
    return max(proc.wait() for proc in procs)


if __name__ == "__main__":
    raise SystemExit(main())
