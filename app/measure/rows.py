"""A worker's raw row made into nccl-tests' row: algbw and busbw beside each time."""

from __future__ import annotations

from app.costs.nccl_tests import algbw_gbs, busbw_gbs

PLACEMENTS = ("out_of_place", "in_place")


def with_bandwidths(raw: dict, collective: str, ranks: int) -> dict:
    """Return the row with algbw_gbs and busbw_gbs (nccl-tests' definitions) per placement."""
    row = {key: raw[key] for key in ("size", "count", "type", "redop", "root")}
    for placement in PLACEMENTS:
        timing = raw[placement]
        if timing.get("time_s") is None:  # MPICH refused the forced algorithm for this call
            row[placement] = {"time_us": None, "algbw_gbs": None, "busbw_gbs": None}
            row[placement].update(wrong=None, error=timing.get("error", "not run"))
            continue
        seconds = float(timing["time_s"])
        row[placement] = {
            "time_us": seconds * 1e6,
            "algbw_gbs": algbw_gbs(row["size"], seconds) or 0.0,
            "busbw_gbs": busbw_gbs(collective, ranks, row["size"], seconds) or 0.0,
            "wrong": int(timing["wrong"]),
            "fallback": bool(timing.get("fallback", False)),
        }
    return row


def average_busbw(rows: list[dict]) -> float:
    """Return nccl-tests' "Avg bus bandwidth": the mean busbw over every row and placement."""
    values = [row[p]["busbw_gbs"] for row in rows for p in PLACEMENTS]
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else 0.0
