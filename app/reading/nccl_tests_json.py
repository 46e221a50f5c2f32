"""Read nccl-tests' JSON report (`-J file`, nccl-tests 2.17+) into the same `Reading` as its text.

The report (src/util.cu `jsonOutputInit` ... `writeResultFooter`) is one object: `args` (the
command line, so the binary's name), `config.devices` (one entry per rank with its hostname),
`results` (size, count, type, redop, root and `out_of_place`/`in_place` objects with `time` or
`cpu_time`, `alg_bw`, `bus_bw`, `nwrong`) and `average_bus_bandwidth`. A run that failed
leaves the object unclosed, which is reported as such.
"""

from __future__ import annotations

import json

from .nccl_tests import BINARY, MAX_ROWS, MAX_TEXT_CHARS, NcclTestsError, Reading, _reading, _Table
from .nccl_tests import parse as parse_text


def read_output(text: str, *, collective: str | None = None, ranks: int | None = None) -> Reading:
    """Read nccl-tests output, its text table or its JSON report (text starting with '{')."""
    if isinstance(text, str) and text.lstrip().startswith("{"):
        if len(text) > MAX_TEXT_CHARS:
            raise NcclTestsError(
                f"the output is {len(text):,} characters; at most {MAX_TEXT_CHARS:,}"
            )
        try:
            data = json.loads(text)
        except ValueError as error:
            raise NcclTestsError(
                f"the output starts with '{{' but is not whole JSON ({error.msg} at character "
                f"{error.pos}); an nccl-tests run that failed leaves its -J report unclosed"
            ) from None
        return parse_json(data, collective=collective, ranks=ranks)
    return parse_text(text, collective=collective, ranks=ranks)


def _token(value) -> str:
    """Write a JSON number as the text table's parser reads it (None and "nan" become N/A)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "N/A"
    return f"{value:f}"


def _group(placement) -> list[str] | None:
    if not isinstance(placement, dict):
        return None
    time = placement.get("time", placement.get("cpu_time"))
    keys = (time, placement.get("alg_bw"), placement.get("bus_bw"), placement.get("nwrong"))
    return [_token(v) for v in keys]


def _rows(results) -> list[tuple]:
    if not isinstance(results, list) or not results:
        raise NcclTestsError("the JSON has no 'results' list: expected nccl-tests' -J report")
    if len(results) > MAX_ROWS:
        raise NcclTestsError(f"more than {MAX_ROWS} rows; paste one sweep at a time")
    rows = []
    for i, r in enumerate(results):
        size, count = (r.get(k) if isinstance(r, dict) else None for k in ("size", "count"))
        if not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (size, count)
        ):
            raise NcclTestsError(f"results[{i}] needs whole numbers 'size' and 'count'")
        groups = [_group(r.get("out_of_place")), _group(r.get("in_place"))]
        if not any(groups):
            raise NcclTestsError(f"results[{i}] has neither 'out_of_place' nor 'in_place'")
        root = str(r.get("root", "")).strip()
        rows.append(
            (
                size,
                count,
                str(r.get("type", "")),
                str(r.get("redop", "")) or None,
                int(root) if root.lstrip("-").isdigit() else None,
                groups,
            )
        )
    return rows


def parse_json(data, *, collective: str | None = None, ranks: int | None = None) -> Reading:
    """Read an nccl-tests JSON report already decoded."""
    if not isinstance(data, dict):
        raise NcclTestsError("the JSON must be an object: nccl-tests' -J report")
    rows = _rows(data.get("results"))
    args = data.get("args") if isinstance(data.get("args"), list) else []
    binary = next(
        (m.group(1) for a in args if isinstance(a, str) and (m := BINARY.search(a))), None
    )
    config = data.get("config") if isinstance(data.get("config"), dict) else {}
    devices = config.get("devices") if isinstance(config.get("devices"), list) else []
    hosts = {
        d["rank"]: str(d.get("hostname", ""))
        for d in devices
        if isinstance(d, dict) and isinstance(d.get("rank"), int)
    }
    average = data.get("average_bus_bandwidth")
    avg = average.get("bandwidth") if isinstance(average, dict) else None
    avg = avg if isinstance(avg, int | float) and not isinstance(avg, bool) else None
    version = str(data.get("nccl_version", ""))
    return _reading(rows, hosts, binary, version, avg, _Table(), False, collective, ranks)
