"""Start a sweep's ranks as one process group, stream rank 0's JSON lines, stop it in bounds.

At a time limit or a cancel the ranks are first asked to stop between two sizes (a file they
look for), so MPI finalizes cleanly; ranks still busy after a grace period are killed as one
process group (their own session), mpiexec's helpers included. What arrived is kept.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable

from .algorithms import cvar_environment
from .backends import mpiexec_path
from .config import MeasureConfig, cores
from .operations import element_count, size_of
from .sizes import sweep_sizes
from .worker import STOP_ENV

POLL_S = 0.1  # how often a wait looks at the cancel flag and the clock
STOP_GRACE_S = 2.0  # how long stopped ranks may take to finish their size before the kill


def sizes_for(config: MeasureConfig) -> list[int]:
    """Return the distinct sizes the ranks will run (nccl-tests rounds each to whole elements)."""
    sizes = []
    for size in sweep_sizes(config.min_bytes, config.max_bytes, config.factor):
        count = element_count(config.collective, size, config.ranks)
        rounded = size_of(config.collective, count, config.ranks)
        if rounded not in sizes:
            sizes.append(rounded)
    return sizes


def command(config: MeasureConfig) -> list[str]:
    """Return the command line that starts every rank."""
    worker = [
        config.collective,
        "--sizes",
        ",".join(str(s) for s in sizes_for(config)),
        "-w",
        str(config.warmup),
        "-n",
        str(config.iters),
    ]
    if config.backend == "torch":
        return [sys.executable, "-m", "app.measure.torch_launch", str(config.ranks), *worker]
    return [
        mpiexec_path() or "mpiexec",
        "-n",
        str(config.ranks),
        sys.executable,
        "-m",
        "app.measure.worker",
        *worker,
    ]


def environment(config: MeasureConfig, extra: dict[str, str] | None = None) -> dict[str, str]:
    """Return the ranks' environment: ours, the forced algorithm's CVARs, and `extra`."""
    env = dict(os.environ)
    env.update(cvar_environment(config.collective, config.algorithm))
    if config.ranks > cores():
        # MPICH busy-polls while it waits; with more ranks than cores a waiting rank spins on
        # the core its peer needs, and 8-byte calls take milliseconds. Yielding (sched_yield
        # in every poll) lets the peer run: still slower than one core each, but by ~20x less.
        env.setdefault("MPIR_CVAR_ENABLE_HEAVY_YIELD", "1")
    # The ranks import `app`: make the project importable from any working directory.
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    env.update(extra or {})
    return env


def _pump(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def run(
    config: MeasureConfig,
    on_record: Callable[[dict], None],
    cancelled: Callable[[], bool] = lambda: False,
    extra_env: dict[str, str] | None = None,
) -> dict:
    """Run the ranks, call on_record per JSON line; return {status, returncode, stderr}.

    status: "done", "failed" (non-zero exit), "timeout" or "cancelled".
    """
    with tempfile.TemporaryDirectory(prefix="measure-") as scratch:
        stop_file = os.path.join(scratch, "stop")
        env = environment(config, {**(extra_env or {}), STOP_ENV: stop_file})
        return _run(config, env, stop_file, on_record, cancelled)


def _run(config: MeasureConfig, env: dict, stop_file: str, on_record, cancelled) -> dict:
    with subprocess.Popen(
        command(config),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    ) as proc:  # closes both pipes on the way out
        lines: queue.Queue = queue.Queue()
        errors: list[str] = []
        readers = [
            threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True),
            threading.Thread(target=lambda: errors.extend(proc.stderr), daemon=True),
        ]
        for reader in readers:
            reader.start()
        deadline = time.monotonic() + config.time_limit_s
        status = _follow(proc, lines, on_record, cancelled, deadline)
        if status in ("timeout", "cancelled"):
            _stop(proc, stop_file)
        returncode = proc.wait()
        for reader in readers:
            reader.join(timeout=5)
    if status == "done" and returncode != 0:
        status = "failed"
    return {
        "status": status,
        "returncode": returncode,
        "stderr": "".join(errors)[-4000:],
        "process_group": proc.pid,  # gone by now: tests check that nothing of it is left
    }


def _follow(proc, lines: queue.Queue, on_record, cancelled, deadline: float) -> str:
    while True:
        if cancelled():
            return "cancelled"
        if time.monotonic() >= deadline:
            return "timeout"
        try:
            line = lines.get(timeout=POLL_S)
        except queue.Empty:
            continue
        if line is None:
            return "done"
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # a library's own chatter on stdout
        if isinstance(record, dict):
            on_record(record)


def _stop(proc: subprocess.Popen, stop_file: str) -> None:
    """Ask the ranks to stop after the size they are on; kill them all if they do not soon."""
    with open(stop_file, "w", encoding="utf-8"):
        pass
    try:
        proc.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        _kill_group(proc)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
