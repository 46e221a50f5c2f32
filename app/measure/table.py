"""nccl-tests' own table layout for a sweep's result, and a reader for it.

The layout follows nccl-tests `src/common.cu`: `#` header lines, one line per size with the
out-of-place then in-place time (us), algbw and busbw (GB/s) and #wrong, and the closing
`# Avg bus bandwidth` line. A placement MPICH refused prints n/a in its four columns.
"""

from __future__ import annotations

from .rows import PLACEMENTS

NOT_RUN = "n/a"


def _placement_cells(cell: dict) -> str:
    if cell["time_us"] is None:
        return f"{NOT_RUN:>9} {NOT_RUN:>7} {NOT_RUN:>7} {NOT_RUN:>6}"
    return (
        f"{cell['time_us']:9.2f} {cell['algbw_gbs']:7.2f} {cell['busbw_gbs']:7.2f} "
        f"{cell['wrong']:6d}"
    )


def row_line(row: dict) -> str:
    """Return one size's line."""
    head = (
        f"{row['size']:12d}  {row['count']:12d}  {row['type']:>8}  {row['redop']:>6}  "
        f"{row['root']:6d}"
    )
    return head + "".join(" " + _placement_cells(row[p]) for p in PLACEMENTS)


def header(result: dict) -> list[str]:
    """Return the `#` lines above the rows: the run's parameters, machine and column names.

    `result` needs only config, machine and warnings: the CLI prints this before any row.
    """
    c, m = result["config"], result["machine"]
    library = " ".join((m.get("library") or "unknown").splitlines()[0].split())
    lines = [
        f"# Collective test: {c['collective']}  backend: {c['backend']}  ranks: {c['ranks']}  "
        f"algorithm: {m['algorithm']}",
        f"# minBytes {c['min_bytes']} maxBytes {c['max_bytes']} step: {c['factor']}(factor) "
        f"warmup iters: {c['warmup']} iters: {c['iters']} validation: 1",
        f"# {library}  cores: {m['cores']}",
    ]
    lines += [f"# WARNING: {w}" for w in result["warnings"]]
    return [
        *lines,
        "#",
        "#" + " " * 61 + "out-of-place" + " " * 20 + "in-place",
        "#       size         count      type   redop    root      time   algbw   busbw "
        "#wrong      time   algbw   busbw #wrong",
        "#        (B)    (elements)                                (us)  (GB/s)  (GB/s)"
        "             (us)  (GB/s)  (GB/s)",
    ]


def footer(result: dict) -> list[str]:
    """Return the closing lines: errors, stops, and nccl-tests' average bus bandwidth."""
    wrong = sum(row[p]["wrong"] or 0 for row in result["rows"] for p in PLACEMENTS)
    lines = [f"# Out of bounds values : {wrong} {'OK' if wrong == 0 else 'FAILED'}"]
    lines.append(f"# Avg bus bandwidth    : {result['avg_busbw_gbs']:g}")
    if result["status"] != "done":
        lines.append(f"# Stopped ({result['status']}): " + _first_line(result["error"]))
    refused = {row[p].get("error") for row in result["rows"] for p in PLACEMENTS} - {None}
    lines += [f"# n/a: {reason}" for reason in sorted(refused)]
    for p in PLACEMENTS:
        fell = [str(row["size"]) for row in result["rows"] if row[p].get("fallback")]
        if fell:
            algorithm = result["machine"]["algorithm"]
            lines.append(
                f"# fallback ({p.replace('_', '-')}): MPICH could not run {algorithm} "
                f"and ran its own choice at sizes {', '.join(fell)}"
            )
    return [*lines, "#"]


def _first_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no message"


def render(result: dict) -> str:
    """Return the whole table as nccl-tests prints it."""
    lines = header(result) + [row_line(row) for row in result["rows"]] + footer(result)
    return "\n".join(lines) + "\n"


def parse(text: str) -> list[dict]:
    """Read the rows back from a table: {size, count, type, redop, root, out_of_place, in_place}.

    Each placement is {time_us, algbw_gbs, busbw_gbs, wrong} with None for n/a.
    """
    rows = []
    for line in text.splitlines():
        cells = line.split()
        if not cells or line.startswith("#") or len(cells) != 13:
            continue
        row = {"size": int(cells[0]), "count": int(cells[1]), "type": cells[2]}
        row.update(redop=cells[3], root=int(cells[4]))
        for placement, at in zip(PLACEMENTS, (5, 9), strict=True):
            time_us, algbw, busbw, wrong = cells[at : at + 4]
            row[placement] = {
                "time_us": None if time_us == NOT_RUN else float(time_us),
                "algbw_gbs": None if algbw == NOT_RUN else float(algbw),
                "busbw_gbs": None if busbw == NOT_RUN else float(busbw),
                "wrong": None if wrong == NOT_RUN else int(wrong),
            }
        rows.append(row)
    return rows
