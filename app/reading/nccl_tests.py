"""Parse nccl-tests output (all_reduce_perf, all_gather_perf, ...) into rows a chart can draw.

nccl-tests prints one row per size: size (B), count (elements), type, redop, root, then for
out-of-place and in-place each time (µs), algbw, busbw (GB/s) and #wrong (src/util.cu,
`writeBenchmarkLine*`, read at nccl-tests a0b82b2). Older versions (before 2022) printed no
root, or no redop, per collective, and an `error` column (the largest difference) instead of
#wrong; newer ones can add per-iteration columns (i_min, i_max, i_p99, i_cv%) after each
placement and a timestamp; `-J` writes the same rows as JSON (`nccl_tests_json`). Launchers
put prefixes such as `[1,0]<stdout>:` or `[0]` on lines, even in the middle of a row. Pure
Python; no web imports.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field

from app.costs.nccl_tests import bus_factor
from app.i18n import N_

MAX_TEXT_CHARS = 1_000_000
MAX_ROWS = 2_000
MAX_RANKS = 1 << 16

# The binary's name (src/*.cu) -> the cost model's collective name (REFERENCE § 1).
BINARIES = {
    "all_reduce": "allreduce",
    "all_gather": "allgather",
    "reduce_scatter": "reduce_scatter",
    "broadcast": "broadcast",
    "reduce": "reduce",
    "alltoall": "all_to_all",
    "sendrecv": "sendrecv",
    "gather": "gather",
    "scatter": "scatter",
    "hypercube": "hypercube",
}
COLLECTIVES = tuple(dict.fromkeys(BINARIES.values()))
# nccl-tests' type names, new (common.cu test_typenames) and before NCCL 2.x types were renamed.
TYPES = (
    "int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 f8e4m3 f8e5m2 char int"
).split()
NOT_A_NUMBER = "N/A"

PREFIX = re.compile(r"\[\d+(?:,\d+)?\](?:<std(?:out|err)>:)?")
BINARY = re.compile(r"\b(" + "|".join(sorted(BINARIES, key=len, reverse=True)) + r")_perf\b")
RANK_LINE = re.compile(r"Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)")
ROW = re.compile(r"(?<![\w.\-])(\d+)\s+(\d+)\s+(" + "|".join(TYPES) + r")\s+(.*)$")
AVG = re.compile(r"Avg bus bandwidth\s*:\s*([-+0-9.eE]+|nan|inf)")
VERSION = re.compile(r"nccl-tests version (\S+)")
NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


class NcclTestsError(ValueError):
    """The text is not nccl-tests output, or too large; the message says what was expected."""


@dataclass(frozen=True)
class Placement:
    """One placement's (out-of-place or in-place) measurement of one size."""

    time_us: float | None
    algbw_gbs: float | None
    busbw_gbs: float | None
    wrong: float | None  # None where nccl-tests printed N/A (no check, -c 0)
    # Whether algbw = S/t and busbw = algbw × factor within what the printed digits allow;
    # None when it cannot be checked (ranks unknown, a number missing).
    consistent: bool | None = None
    problem: str = ""


@dataclass(frozen=True)
class Row:
    """One size of the sweep."""

    size_bytes: int
    count: int
    type: str
    redop: str | None
    root: int | None
    out_of_place: Placement | None
    in_place: Placement | None


@dataclass
class Reading:
    """Everything read from one nccl-tests output."""

    collective: str | None
    collective_from: str  # "header", "caller" or ""
    ranks: int | None
    ranks_from: str  # "rank lines", "caller", "busbw/algbw" or ""
    nodes: int | None
    rows: list[Row]
    avg_busbw_gbs: float | None = None
    wrong_column: str = "#wrong"  # "error" in layouts before 2022 (the largest difference)
    version: str = ""
    truncated: bool = False
    notes: list[str] = field(default_factory=list)

    def peak(self) -> dict | None:
        """Return the highest busbw of any placement, with its size and placement."""
        best = None
        for row in self.rows:
            for name in ("out_of_place", "in_place"):
                p = getattr(row, name)
                if p and p.busbw_gbs is not None and (best is None or p.busbw_gbs > best[0]):
                    best = (p.busbw_gbs, row.size_bytes, name)
        if best is None:
            return None
        return {"busbw_gbs": best[0], "size_bytes": best[1], "placement": best[2]}

    def inconsistent(self) -> list[dict]:
        """Return the (size, placement, problem) of every row that fails the busbw check."""
        return [
            {"size_bytes": row.size_bytes, "placement": name, "problem": p.problem}
            for row in self.rows
            for name in ("out_of_place", "in_place")
            if (p := getattr(row, name)) and p.consistent is False
        ]

    def summary(self, lang: str = "en") -> str:
        """Say in one sentence (in `lang`) what was read: collective, ranks, sizes and the peak."""
        from .nccl_tests_summary import summary

        return summary(self, lang)

    def as_dict(self) -> dict:
        """Return JSON-ready data (non-finite numbers are already None)."""
        data = asdict(self)
        data["summary"] = self.summary()
        data["peak"] = self.peak()
        data["inconsistent"] = self.inconsistent()
        return data


def parse_number(token: str) -> float | None:
    """Return the number nccl-tests printed, or None for N/A, nan and inf."""
    if token == NOT_A_NUMBER:
        return None
    value = float(token)
    return value if math.isfinite(value) else None


def _half_unit(token: str) -> float:
    """Half the unit of the last printed digit: how far a printed number may be from its value."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (-decimals + (int(exponent) if exponent else 0))


def _is_number(token: str) -> bool:
    return (
        token == NOT_A_NUMBER
        or token.lower() in ("nan", "inf", "-inf")
        or bool(NUMBER.match(token))
    )


class _Table:
    """What the `#  size  count  type ...` header says about the columns, when present."""

    def __init__(self) -> None:
        self.seen = False
        self.has_redop: bool | None = None
        self.has_root: bool | None = None
        self.per_iteration = False
        self.wrong_column = "#wrong"

    def read_header(self, line: str) -> bool:
        words = line.replace("#", " ").split()
        words = words[words.index("size") :] if "size" in words else words  # after a prefix
        if words[:3] != ["size", "count", "type"]:
            return False
        self.seen = True
        self.has_redop = "redop" in words
        self.has_root = "root" in words
        self.per_iteration = "i_min" in words
        self.wrong_column = "error" if "error" in words and "#wrong" not in words else "#wrong"
        return True


def _split_row(rest: list[str], table: _Table) -> tuple[str | None, int | None, list[str]]:
    """Take the redop and root off the front of the columns after the type."""
    redop = root = None
    if rest and not _is_number(rest[0]):
        redop = rest.pop(0)
    numbers = []
    for token in rest:  # drop a trailing timestamp (report_timestamps)
        if not _is_number(token):
            break
        numbers.append(token)
    has_root = table.has_root
    if has_root is None:  # no header: a leading integer beyond whole groups of 4 is the root
        has_root = len(numbers) % 4 == 1 and re.fullmatch(r"-?\d+", numbers[0] or "") is not None
    if has_root and numbers:
        root = int(float(numbers.pop(0)))
    return redop, root, numbers


def _placements(numbers: list[str], table: _Table) -> tuple[list | None, list | None, bool]:
    """Cut the measured columns into (out-of-place, in-place) groups of 4 (8 per-iteration), and
    say whether the row was cut short. One whole group alone is in-place (nccl-tests leaves the
    out-of-place columns blank in trace replay); one whole group and a part is a cut row."""
    width = 8 if table.per_iteration or len(numbers) == 16 else 4
    groups = [numbers[i : i + width][:4] for i in range(0, len(numbers), width)]
    whole = [g for g in groups if len(g) == 4][:2]
    cut = len(numbers) not in (width, 2 * width)
    if len(whole) == 2:
        return whole[0], whole[1], cut
    if len(whole) == 1:
        return (whole[0], None, True) if cut else (None, whole[0], False)
    return None, None, True


def parse(text: str, *, collective: str | None = None, ranks: int | None = None) -> Reading:
    """Read nccl-tests text output; `collective` and `ranks` override what the text says."""
    if not isinstance(text, str):
        raise NcclTestsError("the output must be text")
    if len(text) > MAX_TEXT_CHARS:
        raise NcclTestsError(f"the output is {len(text):,} characters; at most {MAX_TEXT_CHARS:,}")
    table, rows = _Table(), []
    hosts: dict[int, str] = {}
    binary = version = None
    avg = None
    truncated = False
    for raw in text.splitlines():
        line = PREFIX.sub(" ", raw).strip()
        if not line:
            continue
        if binary is None and (m := BINARY.search(line)):
            binary = m.group(1)
        if m := VERSION.search(line):
            version = m.group(1)
        if m := RANK_LINE.search(line):
            hosts[int(m.group(1))] = m.group(2)
            continue
        if m := AVG.search(line):
            avg = parse_number(m.group(1))
            continue
        if line.startswith("#") or ("size" in line and "count" in line):
            table.read_header(line)
            continue
        m = ROW.search(line)
        if not m:
            # A line that starts like a row but is not one was cut off (a paste's first or last).
            truncated = truncated or bool(rows or table.seen) and line[0].isdigit()
            continue
        if len(rows) >= MAX_ROWS:
            raise NcclTestsError(f"more than {MAX_ROWS} rows; paste one sweep at a time")
        redop, root, numbers = _split_row(m.group(4).split(), table)
        out_of_place, in_place, cut = _placements(numbers, table)
        truncated = truncated or cut  # a row cut mid-way keeps only its whole placements
        if out_of_place or in_place:
            groups = [out_of_place, in_place]
            rows.append((int(m.group(1)), int(m.group(2)), m.group(3), redop, root, groups))
    if not rows:
        raise NcclTestsError(
            "no nccl-tests rows found: expected lines such as "
            "'  1048576  262144  float  sum  -1  27.76  37.78  66.11  0 ...' "
            "(size, count, type, [redop], [root], time, algbw, busbw, #wrong)"
        )
    return _reading(rows, hosts, binary, version, avg, table, truncated, collective, ranks)


def _reading(rows, hosts, binary, version, avg, table, truncated, collective, ranks) -> Reading:
    """Decide the collective and ranks, then check every placement's numbers."""
    name, named_from = _collective(binary, collective)
    count, counted_from = _ranks(hosts, ranks, name, rows)
    reading = Reading(
        collective=name,
        collective_from=named_from,
        ranks=count,
        ranks_from=counted_from,
        nodes=len(set(hosts.values())) if hosts else None,
        rows=[],
        avg_busbw_gbs=avg,
        wrong_column=table.wrong_column,
        version=version or "",
        truncated=truncated,
    )
    for size, elements, dtype, redop, root, groups in rows:
        out_of_place, in_place = (g and _placement(g, size, name, count) for g in groups)
        reading.rows.append(Row(size, elements, dtype, redop, root, out_of_place, in_place))
    if truncated:
        reading.notes.append(
            N_("the paste ends or breaks mid-row: only whole placements were kept")
        )
    if name is None:
        reading.notes.append(N_("collective unknown: no *_perf name in the text; choose one"))
    if count is None:
        reading.notes.append(N_("ranks unknown: no '#  Rank' lines; give the number of ranks"))
    return reading


def _collective(binary: str | None, given: str | None) -> tuple[str | None, str]:
    if given is not None:
        if given not in COLLECTIVES:
            raise NcclTestsError(
                f"collective must be one of {', '.join(COLLECTIVES)}; got {given!r}"
            )
        return given, N_("caller")
    return (BINARIES[binary], "header") if binary else (None, "")


def _ranks(hosts: dict, given, collective: str | None, rows) -> tuple[int | None, str]:
    if given is not None:
        if isinstance(given, bool) or not isinstance(given, int) or not 1 <= given <= MAX_RANKS:
            raise NcclTestsError(f"ranks must be an integer in 1..{MAX_RANKS}; got {given!r}")
        return given, N_("caller")
    if hosts:
        return len(hosts), N_("rank lines")
    inferred = _ranks_from_factor(collective, rows)
    return (inferred, N_("busbw/algbw")) if inferred else (None, "")


def _ranks_from_factor(collective: str | None, rows) -> int | None:
    """Solve busbw/algbw = factor(n) for n on the row with the largest algbw, if it is exact."""
    if collective not in (
        "allreduce",
        "allgather",
        "reduce_scatter",
        "all_to_all",
        "gather",
        "scatter",
    ):
        return None
    placed = [g for *_, groups in rows for g in groups if g]
    best = max(placed, key=lambda g: _float(g[1]) or 0.0)
    alg, bus = _float(best[1]), _float(best[2])
    if not alg or not bus or alg < 1.0:
        return None
    top = 2.0 if collective == "allreduce" else 1.0
    if bus / alg >= top:
        return None
    n = round(top / (top - bus / alg))
    ok = (
        1 < n <= MAX_RANKS
        and abs(alg * bus_factor(collective, n) - bus)
        <= _half_unit(best[2]) + _half_unit(best[1]) * top
    )
    return n if ok else None


def _float(token: str) -> float | None:
    try:
        return parse_number(token)
    except ValueError:
        return None


def _placement(
    tokens: list[str], size: int, collective: str | None, ranks: int | None
) -> Placement:
    """Read time, algbw, busbw and #wrong, and check them against each other (REFERENCE § 2)."""
    time_us, alg, bus, wrong = (_float(t) for t in tokens)
    consistent, problem = _check(tokens, size, collective, ranks, (time_us, alg, bus))
    return Placement(time_us, alg, bus, wrong, consistent, problem)


def _bytes_counted(collective: str, size: int, ranks: int) -> float:
    """S in algbw = S/t: the size column, except hypercube's (n-1)/n of it (hypercube.cu)."""
    return size * (ranks - 1) / ranks if collective == "hypercube" else float(size)


def _check(tokens, size, collective, ranks, values) -> tuple[bool | None, str]:
    time_us, alg, bus = values
    if None in values or collective is None or ranks is None or time_us <= 0:
        return None, ""
    expected_alg = _bytes_counted(collective, size, ranks) / (time_us * 1e-6) / 1e9
    slack = _half_unit(tokens[1]) + expected_alg * _half_unit(tokens[0]) / time_us
    if abs(alg - expected_alg) > slack * 1.01 + 1e-12:
        return False, f"algbw {tokens[1]} ≠ {size} B / {tokens[0]} µs = {expected_alg:.2f} GB/s"
    factor = 1.0 if collective == "hypercube" else bus_factor(collective, ranks)
    slack = _half_unit(tokens[2]) + factor * _half_unit(tokens[1])
    if abs(bus - alg * factor) > slack * 1.01 + 1e-12:
        return (
            False,
            f"busbw {tokens[2]} ≠ algbw {tokens[1]} × {factor:.4g} = {alg * factor:.2f} GB/s",
        )
    return True, ""
