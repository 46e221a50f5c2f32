"""`python -m app.measure`: nccl-tests' table for real collectives on this machine.

python -m app.measure --backend mpi --ranks 2 allreduce -b 8 -e 1M -f 2 [-w 1 -n 20]
    [--algorithm ring] [--json out.json] [--time-limit 120]
    [--fit] [--save-preset]
python -m app.measure compare allreduce --ranks 2 -b 8 -e 4M
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from .algorithms import MPICH_ALGORITHMS
from .compare import compare
from .config import BACKENDS, COLLECTIVES, DEFAULT_TIME_LIMIT_S, MeasureConfig
from .fit import FitError, fit_result
from .preset import save_preset
from .report import compare_lines, fit_lines
from .sweep import BackendUnavailable, sweep, warnings_for
from .table import footer, header, row_line

COMPARE = "compare"


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("collective", choices=COLLECTIVES)
    p.add_argument("--backend", choices=BACKENDS, default="mpi")
    p.add_argument(
        "--ranks", type=int, default=2, help="processes, 1..64 (more than the cores: a warning)"
    )
    p.add_argument("-b", "--minbytes", default="8", help="smallest size (K, M, G suffixes)")
    p.add_argument("-e", "--maxbytes", default="1M", help="largest size")
    p.add_argument("-f", "--stepfactor", type=int, default=2, help="size multiplier")
    p.add_argument("-w", "--warmup_iters", type=int, default=1)
    p.add_argument("-n", "--iters", type=int, default=20)
    p.add_argument(
        "--time-limit", type=float, default=DEFAULT_TIME_LIMIT_S, help="seconds, 1..3600"
    )
    p.add_argument("--json", metavar="PATH", help="also write every row and the machine as JSON")


def parser(command: str | None) -> argparse.ArgumentParser:
    """Return the parser of a plain run, or of `compare`."""
    prog = "python -m app.measure" + (f" {command}" if command else "")
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    _common(p)
    if command is None:
        names = sorted({n for names in MPICH_ALGORITHMS.values() for n in names})
        p.add_argument("--algorithm", help=f"force an MPICH algorithm: auto, {', '.join(names)}")
        p.add_argument("--fit", action="store_true", help="fit alpha and beta to the times")
        p.add_argument(
            "--save-preset",
            action="store_true",
            help='fit, and keep it as the preset "this machine" (docs/measure.md)',
        )
    return p


def config_from(args: argparse.Namespace, p: argparse.ArgumentParser) -> MeasureConfig:
    """Return the config, or exit with argparse's error naming the field."""
    try:
        return MeasureConfig(
            collective=args.collective,
            backend=args.backend,
            ranks=args.ranks,
            min_bytes=args.minbytes,
            max_bytes=args.maxbytes,
            factor=args.stepfactor,
            warmup=args.warmup_iters,
            iters=args.iters,
            algorithm=getattr(args, "algorithm", None),
            oversubscribe=True,  # asked for at the terminal: run, and warn above the table
            time_limit_s=args.time_limit,
        )
    except ValueError as error:
        p.error(str(error))
        raise  # unreachable: p.error exits


def run(args: argparse.Namespace, p: argparse.ArgumentParser) -> int:
    config = config_from(args, p)
    start = {"config": config.as_dict(), "warnings": warnings_for(config)}

    def on_start(machine: dict) -> None:  # the header names the library: print it once known
        print("\n".join(header({**start, "machine": machine})), flush=True)

    result = sweep(config, on_row=lambda row: print(row_line(row), flush=True), on_start=on_start)
    if "library" not in result["machine"]:  # the ranks never started: no header yet
        print("\n".join(header(result)))
    print("\n".join(footer(result)))
    if args.fit or args.save_preset:
        result["fit"] = _fit(result, args.save_preset)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(result, out, indent=2)
    return 0 if result["status"] == "done" else 1


def _fit(result: dict, save: bool) -> dict | None:
    try:
        fit = fit_result(result)
    except FitError as error:
        print(f"# no fit: {error}")
        return None
    print("\n".join(fit_lines(fit)))
    if save:
        print(f'# saved as the preset "this machine" in {save_preset(fit, result)}')
    return fit.as_dict()


def run_compare(args: argparse.Namespace, p: argparse.ArgumentParser) -> int:
    config = config_from(args, p)
    summary = compare(config, lambda name, r: print(f"# ran {name}: {r['status']}", flush=True))
    print("\n".join(compare_lines(summary)))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(summary, out, indent=2)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = COMPARE if argv[:1] == [COMPARE] else None
    p = parser(command)
    args = p.parse_args(argv[1:] if command else argv)
    try:
        return run_compare(args, p) if command else run(args, p)
    except BackendUnavailable as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
