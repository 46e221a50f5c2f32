"""Alpha (latency) and beta (seconds per byte) from measured times, on the cost model's terms.

The model of one algorithm is t(S) = A·α + B·S·β, with A its step count and B its per-byte
factor, both read from app.costs (the same terms the calculators use). As the issue says, the
large-size end fixes β (a least-squares line through the largest sizes: its slope is B·β,
where α barely shows), then the small-size end fixes α (least squares of t − B·S·β = A·α,
where β barely shows). Each comes with its fit error: the RMS of (model − measured) / measured
over that end's points, in percent.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from app.costs import cost

PROBE_BYTES = 1e6
# The cost model's algorithm for each collective when MPICH chooses its own: the textbook
# large-message algorithm (ring-like where there is a ring, a tree where the collective is one).
DEFAULT_MODEL = {
    "allreduce": "ring",
    "allgather": "ring",
    "reduce_scatter": "ring",
    "broadcast": "binomial_tree",
    "reduce": "binomial_tree",
    "all_to_all": "pairwise",
    "sendrecv": "shift",
}
# nccl-tests' SendRecv is a shift (each rank sends S to the next while receiving S from the
# previous): one step, S bytes, which the catalog's pipelined chain is not.
SHIFT_TERMS = (1.0, 1.0)


class FitError(ValueError):
    """Too few sizes, or times that no positive alpha and beta explain."""


@dataclass(frozen=True)
class Fit:
    """The fitted link: what a calculator needs, and how well it fits."""

    collective: str
    algorithm: str  # the cost model's algorithm whose terms were fitted
    ranks: int
    steps: float  # A
    per_byte: float  # B
    alpha_us: float
    beta_s_per_byte: float
    bandwidth_gbs: float  # 1 / β in GB/s
    alpha_error_pct: float
    beta_error_pct: float
    points: int

    def as_dict(self) -> dict:
        """Return the fit as plain JSON-ready data."""
        return asdict(self)


def model_terms(collective: str, algorithm: str, ranks: int) -> tuple[float, float]:
    """Return (A, B): the model's alpha count and per-byte factor for this algorithm."""
    if (collective, algorithm) == ("sendrecv", "shift"):
        return SHIFT_TERMS
    probe = cost(
        collective,
        algorithm,
        ranks=ranks,
        message_bytes=PROBE_BYTES,
        latency_us=1.0,
        bandwidth_gbs=1.0,
    )
    # latency_us=1: latency_s = A × 1e-6; bandwidth 1 GB/s: bandwidth_s = B × M / 1e9.
    return probe.latency_s * 1e6, probe.bandwidth_s * 1e9 / PROBE_BYTES


def _line(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Return (intercept, slope) of the least-squares line through the points."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    return my - slope * mx, slope


def _error_pct(points: list[tuple[float, float]], predict) -> float:
    squares = [((predict(s) - t) / t) ** 2 for s, t in points]
    return 100 * math.sqrt(sum(squares) / len(squares))


def fit_times(
    sizes: list[float], times_s: list[float], collective: str, algorithm: str, ranks: int
) -> Fit:
    """Fit alpha and beta to (size in bytes, seconds) pairs; FitError when they cannot be."""
    points = sorted((float(s), float(t)) for s, t in zip(sizes, times_s, strict=True) if t > 0)
    if len({s for s, _ in points}) < 4:
        raise FitError(f"sizes: need at least 4 distinct sizes with times, got {len(points)}")
    a, b = model_terms(collective, algorithm, ranks)
    if a <= 0 or b <= 0:
        raise FitError(f"{collective}/{algorithm} on {ranks} ranks has no alpha or beta term")
    end = max(2, len(points) // 3)
    small, large = points[:end], points[-end:]
    _, slope = _line([s for s, _ in large], [t for _, t in large])
    if slope <= 0:
        raise FitError("times: they do not grow with size at the large end, so beta is not fitted")
    beta = slope / b
    alpha = sum(t - b * s * beta for s, t in small) / (a * len(small))
    alpha = max(alpha, 0.0)  # a negative latency is noise: the large sizes hide it

    def predict(s: float) -> float:
        return a * alpha + b * s * beta

    return Fit(
        collective=collective,
        algorithm=algorithm,
        ranks=ranks,
        steps=a,
        per_byte=b,
        alpha_us=alpha * 1e6,
        beta_s_per_byte=beta,
        bandwidth_gbs=1 / beta / 1e9,
        alpha_error_pct=_error_pct(small, predict),
        beta_error_pct=_error_pct(large, predict),
        points=len(points),
    )


def fit_result(result: dict, algorithm: str | None = None) -> Fit:
    """Fit a sweep's out-of-place times, on the terms of `algorithm` (default: see above)."""
    config = result["config"]
    collective = config["collective"]
    rows = [r for r in result["rows"] if r["out_of_place"]["time_us"] is not None]
    return fit_times(
        [r["size"] for r in rows],
        [r["out_of_place"]["time_us"] / 1e6 for r in rows],
        collective,
        algorithm or DEFAULT_MODEL[collective],
        config["ranks"],
    )
