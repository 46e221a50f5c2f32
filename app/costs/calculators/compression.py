"""Gradient compression: what quantization, top-k and PowerSGD save on the wire, and when.

- Quantization sends FP16/BF16 (2 B), INT8 (1 B) or 1 bit per element instead of FP32 (4 B).
- Top-k: workers keep different indices, so the sparse gradients cannot be summed by a ring
  allreduce; they need an allgather of (value, index) pairs, O(p·k) per rank (REFERENCE § 6
  Q19, [DGC]).
- PowerSGD (rank r, one power-iteration step per training step): allreduce P = M·Q (m×r),
  orthogonalize, Q = Mᵀ·P (n×r), allreduce Q: r(m+n) numbers instead of m·n
  (REFERENCE § 6 Q20, [VKJ], [PSG]).
"""

from __future__ import annotations

from typing import NamedTuple

from app.i18n import N_, sentences

from .. import units
from ..model import Cost, cost
from ..nccl_tests import MAX_RANKS
from .fields import FLOAT, INT, Field, link_fields, link_inputs, within_one_message
from .registry import calculator
from .result import BYTES, RATIO, TEXT, TIME, Output, Result, stacked_chart, table

ERROR_FEEDBACK = N_(
    "Error feedback: each worker keeps what the compressor dropped, e = g − C(g), and adds it to "
    "the next step's gradient before compressing, so no part of the gradient is lost, only "
    "delayed. Top-k (DGC's residual accumulation) and PowerSGD need it to converge like "
    "uncompressed SGD; 1-bit Adam uses the same error compensation (Tang et al., ICML 2021)."
)

QUANTIZATIONS = ((N_("FP32 dense"), 4.0), ("FP16 / BF16", 2.0), ("INT8", 1.0), ("1-bit", 1 / 8))
COLUMNS = [
    (N_("scheme"), TEXT),
    (N_("collective"), TEXT),
    (N_("bytes sent per rank"), BYTES),
    (N_("× fewer bytes"), RATIO),
    (N_("time"), TIME),
    (N_("× faster"), RATIO),
]
NOTES = (
    N_(
        "INT8 and 1-bit values cannot be summed in place in 8 or 1 bits; compressed "
        "allreduces (1-bit Adam's, for one) exchange chunks with an all-to-all and an "
        "allgather, the same volume per rank as a ring allreduce of the compressed size. "
        "Per-chunk scales are left out."
    ),
    N_(
        "1-bit Adam compresses the momentum after a full-precision warm-up, not the raw "
        "gradient (Tang et al., ICML 2021)."
    ),
    N_("Compression costs compute (top-k selection, orthogonalization) that is not counted."),
)

FIELDS = (
    Field("params", N_("Gradient elements"), FLOAT, 1.3e9, low=1, high=1e13, scale="log2"),
    Field(
        "rows",
        N_("Matrix rows m (PowerSGD)"),
        INT,
        4096,
        low=1,
        high=1 << 24,
        scale="log2",
        help=N_("Shape of a typical weight matrix; the gradient is N / (m·n) such matrices."),
    ),
    Field("cols", N_("Matrix columns n (PowerSGD)"), INT, 4096, low=1, high=1 << 24, scale="log2"),
    Field(
        "powersgd_rank",
        N_("PowerSGD rank r"),
        INT,
        4,
        low=1,
        high=1 << 16,
        help=N_("PyTorch's default is 1; 1-4 is typical."),
    ),
    Field(
        "topk_density",
        N_("Top-k density k/N"),
        FLOAT,
        0.001,
        low=1e-12,  # above 0, so "× fewer bytes" stays a finite number
        high=1,
        help=N_("DGC reports 270-600× compression, a density near 0.1-0.4%."),
    ),
    Field("value_bytes", N_("Bytes per top-k value"), INT, 4, low=1, high=8),
    Field(
        "index_bytes",
        N_("Bytes per top-k index"),
        INT,
        4,
        low=1,
        high=8,
        help=N_("4 for int32 indices, 8 for int64."),
    ),
    Field("ranks", N_("GPUs (ranks)"), INT, 64, low=1, high=MAX_RANKS, scale="log2"),
    *link_fields(),
)


class Scheme(NamedTuple):
    """One way to exchange the gradient: its collectives and what they send."""

    name: str
    costs: list[Cost]
    how: str

    @property
    def sent(self) -> float:
        """Bytes the busiest rank sends over all the scheme's collectives."""
        return sum(max(c.bytes_per_rank, default=0.0) for c in self.costs)

    @property
    def time_s(self) -> float:
        """The scheme's time, its collectives one after another."""
        return sum(c.time_s for c in self.costs)

    def row(self, dense: Scheme) -> list:
        """Return the table row: bytes and time, and how many times fewer than dense FP32."""
        sent, time_s = self.sent, self.time_s
        dense_sent = max(dense.costs[0].bytes_per_rank, default=0.0)
        return [
            self.name,
            self.how,
            sent,
            dense_sent / sent if sent else None,
            time_s,
            dense.costs[0].time_s / time_s if time_s else None,
        ]


class BreakEven(NamedTuple):
    """Where top-k and PowerSGD stop sending fewer bytes than dense FP32."""

    topk_density: float  # (p−1)·d·N·(v+i) = 2(p−1)/p·4N
    powersgd_rank: float  # r(m+n) = mn
    powersgd_ratio: float  # m·n numbers ÷ r(m+n)


@calculator(
    "compression",
    N_("Gradient compression: what does it save?"),
    N_("FP16/BF16, INT8, 1-bit, top-k and PowerSGD against a dense FP32 allreduce."),
    FIELDS,
    sizes=units.DECIMAL,
)
def compression(**values) -> Result:
    """Compare the bytes and time of each compression scheme with dense FP32, and break-evens."""
    p, m, n, r = values["ranks"], values["rows"], values["cols"], values["powersgd_rank"]
    pair_bytes = values["value_bytes"] + values["index_bytes"]
    _check_sizes(values)
    schemes = _schemes(values)
    dense, topk, powersgd = schemes[0], schemes[4], schemes[5]
    even = BreakEven(2 * 4 / (p * pair_bytes), m * n / (m + n), m * n / (r * (m + n)))
    rows = [scheme.row(dense) for scheme in schemes]
    return Result(
        calculator="compression",
        inputs=values,
        outputs=(
            Output("dense_time_s", N_("Dense FP32 allreduce"), dense.costs[0].time_s, TIME),
            Output("fastest", N_("Fastest scheme"), min(rows, key=lambda row: row[4])[0], TEXT),
            Output("topk_time_s", N_("Top-k allgather"), topk.costs[0].time_s, TIME),
            Output("powersgd_time_s", N_("PowerSGD (two allreduces)"), powersgd.time_s, TIME),
            Output(
                "topk_break_even_density", N_("Top-k break-even density"), even.topk_density, RATIO
            ),
            Output(
                "powersgd_break_even_rank",
                N_("PowerSGD break-even rank"),
                even.powersgd_rank,
                RATIO,
            ),
            Output("dense_bytes_per_rank", N_("Dense bytes sent per rank"), dense.sent, BYTES),
        ),
        formula=(
            "dense: 2(p−1)/p·4N per rank; top-k: allgather, (p−1)·k·(v+i) per rank, break-even "
            "k/N = 8/(p·(v+i)); PowerSGD: 2(p−1)/p·4·(N/(mn))·r(m+n), break-even r = mn/(m+n)"
        ),
        substituted=(
            f"break-even k/N = 8/({p}·{pair_bytes}) = {even.topk_density:.4g}; "
            f"break-even r = {m}·{n}/({m}+{n}) = {even.powersgd_rank:.4g}; "
            f"dense: {dense.costs[0].formula_substituted}"
        ),
        interpretation=_sentence(values, even, topk.sent, dense.sent),
        table=table(COLUMNS, rows),
        charts=(_chart(schemes),),
        notes=NOTES,
    )


def _check_sizes(values: dict) -> None:
    """Refuse inputs whose messages one collective could not carry, naming the inputs."""
    n_elems, p = values["params"], values["ranks"]
    pair_bytes = values["value_bytes"] + values["index_bytes"]
    within_one_message(4 * n_elems, "the dense FP32 gradient, params × 4 B")
    within_one_message(
        p * values["topk_density"] * n_elems * pair_bytes,
        "the top-k allgather, ranks × topk_density × params × (value_bytes + index_bytes)",
    )
    within_one_message(
        n_elems / min(values["rows"], values["cols"]) * values["powersgd_rank"] * 4,
        "PowerSGD's P or Q, params ÷ min(rows, cols) × powersgd_rank × 4 B",
    )


def _schemes(values: dict) -> list[Scheme]:
    """Price dense FP32, three quantizations, top-k and PowerSGD: seven collectives."""
    n_elems, p = values["params"], values["ranks"]
    m, n, r = values["rows"], values["cols"], values["powersgd_rank"]
    pair_bytes = values["value_bytes"] + values["index_bytes"]
    link = link_inputs(values)

    def allreduce(size: float) -> Cost:
        return cost("allreduce", "ring", ranks=p, message_bytes=size, **link)

    schemes = [
        Scheme(name, [allreduce(n_elems * bytes_per_element)], N_("ring allreduce"))
        for name, bytes_per_element in QUANTIZATIONS
    ]
    k = values["topk_density"] * n_elems
    topk = cost("allgather", "ring", ranks=p, message_bytes=p * k * pair_bytes, **link)
    schemes.append(Scheme("top-k", [topk], N_("ring allgather of (value, index)")))
    matrices = n_elems / (m * n)
    powersgd = [allreduce(matrices * m * r * 4), allreduce(matrices * n * r * 4)]
    schemes.append(Scheme(f"PowerSGD r={r}", powersgd, N_("ring allreduce of P, then of Q (FP32)")))
    return schemes


def _sentence(values: dict, even: BreakEven, topk_sent: float, dense_sent: float) -> str:
    """Say when top-k and PowerSGD pay off, and that both need error feedback."""
    p, m, n, r = values["ranks"], values["rows"], values["cols"], values["powersgd_rank"]
    topk = N_(
        "On %(ranks)s ranks, top-k at density %(density)s sends %(topk)s per rank against "
        "%(dense)s dense: it pays off only below density %(even)s, because every rank receives "
        "every other rank's (value, index) pairs and the allgather grows with p.",
        ranks=p,
        density=f"{values['topk_density']:g}",
        topk=units.size(topk_sent),
        dense=units.size(dense_sent),
        even=f"{even.topk_density:.3g}",
    )
    powersgd = N_(
        "PowerSGD r=%(r)s on %(m)s×%(n)s matrices sends r(m+n) instead of m·n numbers "
        "(%(ratio)s× fewer) and stops paying off at r = m·n/(m+n) = %(even)s; PyTorch only "
        "compresses a matrix when the ratio is at least 2 (min_compression_rate).",
        r=r,
        m=m,
        n=n,
        ratio=f"{even.powersgd_ratio:.3g}",
        even=f"{even.powersgd_rank:.4g}",
    )
    return sentences(topk, powersgd, ERROR_FEEDBACK)


def _chart(schemes: list[Scheme]) -> dict:
    """Describe the stacked bars of each scheme's latency and bandwidth time."""
    return stacked_chart(
        N_("Time per step's gradient exchange"),
        [s.name for s in schemes],
        {
            N_("latency"): [sum(c.latency_s for c in s.costs) for s in schemes],
            N_("bandwidth"): [sum(c.bandwidth_s for c in s.costs) for s in schemes],
        },
    )
