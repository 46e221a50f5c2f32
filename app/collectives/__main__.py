"""The terminal view: run one collective and print its steps as a table, for people without a
browser and for debugging.

    python -m app.collectives allreduce ring --ranks 4 --elements 8
    python -m app.collectives --list

Each row is one message: the chunks one rank sends another in one step (a message that carries
several chunks is several transfers in the trace). Exit status: 0 verified, 1 not verified,
2 bad parameters.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import OPS, CollectiveError, Trace, catalog, chunk_label, simulate

ARROW = "→"


def step_rows(trace: Trace) -> list[list[str]]:
    """Return one table row per message: step, phase, src→dst, chunks, elements, op."""
    rows = []
    for step in trace.steps:
        messages: dict[tuple[int, int, str], list] = {}
        for t in step.transfers:
            messages.setdefault((t.src, t.dst, t.op), []).append(t)
        for i, ((src, dst, op), transfers) in enumerate(messages.items()):
            labels = " ".join(chunk_label(t.chunk) for t in transfers)
            first = i == 0  # step and phase once per step keeps the table readable
            rows.append(
                [
                    str(step.index) if first else "",
                    step.phase if first else "",
                    f"{src}{ARROW}{dst}",
                    labels,
                    str(sum(t.elements for t in transfers)),
                    op,
                ]
            )
    return rows


def format_table(header: Sequence[str], rows: list[list[str]], numeric: set[int]) -> str:
    """Align `rows` under `header` in columns; columns in `numeric` are right-aligned."""
    widths = [max(len(row[i]) for row in [list(header), *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        parts = [
            cell.rjust(w) if i in numeric else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(row) for row in rows)])


def summary(trace: Trace) -> str:
    """Return the lines under the table: steps, bytes per rank, and the check against numpy."""
    sent = trace.bytes_sent.tolist()
    verdict = "yes" if trace.verified else "NO"
    return "\n".join(
        [
            f"steps: {trace.total_steps}",
            f"bytes sent per rank: {' '.join(str(b) for b in sent)} (total {sum(sent)})",
            f"verified against numpy: {verdict} (max abs error {trace.max_abs_error:g})",
        ]
    )


def render(trace: Trace) -> str:
    """Render a whole trace: a title, the step table, and the summary."""
    title = (
        f"{trace.collective}/{trace.algorithm}: {trace.ranks} ranks, {trace.elements} elements "
        f"({trace.dtype}), op {trace.op}, {trace.chunk_count} chunks"
    )
    header = ["step", "phase", f"src{ARROW}dst", "chunk", "elements", "op"]
    table = format_table(header, step_rows(trace), numeric={0, 4})
    return f"{title}\n\n{table}\n\n{summary(trace)}"


def render_catalog() -> str:
    """Render the catalog: one line per (collective, algorithm) with its description."""
    rows = [[e["collective"], e["algorithm"], e["description"]] for e in catalog()]
    return format_table(["collective", "algorithm", "description"], rows, numeric=set())


def parser() -> argparse.ArgumentParser:
    """Build the command-line parser."""
    p = argparse.ArgumentParser(
        prog="python -m app.collectives",
        description="Run one collective step by step on numpy buffers and print the steps.",
    )
    p.add_argument("collective", nargs="?", help="e.g. allreduce (see --list)")
    p.add_argument("algorithm", nargs="?", help="e.g. ring (see --list)")
    p.add_argument("--list", action="store_true", help="print every collective and algorithm")
    p.add_argument("--ranks", type=int, help="number of ranks, 1..256")
    p.add_argument("--elements", type=int, help="elements in each rank's input")
    p.add_argument("--op", default="sum", help=f"reduction: {', '.join(OPS)} (default sum)")
    p.add_argument("--root", type=int, default=0, help="root rank for rooted collectives")
    p.add_argument("--ranks-per-node", type=int, help="ranks per node, for hierarchical")
    p.add_argument("--seed", type=int, default=0, help="seed for the random inputs")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the terminal view and return the exit status."""
    if hasattr(sys.stdout, "reconfigure"):
        # A C-locale terminal cannot encode → or ·; show a placeholder rather than crash.
        sys.stdout.reconfigure(errors="replace")
    ap = parser()
    args = ap.parse_args(argv)
    if args.list:
        print(render_catalog())
        return 0
    missing = [
        name
        for name, value in [
            ("collective", args.collective),
            ("algorithm", args.algorithm),
            ("--ranks", args.ranks),
            ("--elements", args.elements),
        ]
        if value is None
    ]
    if missing:
        ap.error(f"missing {', '.join(missing)} (or use --list)")  # exits with status 2
    try:
        trace = simulate(
            args.collective,
            args.algorithm,
            ranks=args.ranks,
            elements=args.elements,
            op=args.op,
            root=args.root,
            ranks_per_node=args.ranks_per_node,
            seed=args.seed,
        )
    except CollectiveError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(render(trace))
    return 0 if trace.verified else 1


if __name__ == "__main__":
    sys.exit(main())
