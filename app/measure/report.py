"""Text for a fit and for a comparison, in the `#`-commented style of the nccl-tests table."""

from __future__ import annotations

from app.i18n import N_

from .compare import win_ranges
from .fit import Fit


def human_bytes(size: int) -> str:
    """Return 8 B, 4 KiB, 1 MiB: the sizes as a reader says them."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def fit_sentences(fit: Fit) -> list[str]:
    """Return the fit in three sentences, marked for translation: the model, alpha, beta."""
    return [
        N_(
            "Fit on the %(model)s model: t = %(steps)s·α + %(per_byte)s·S·β over %(points)s sizes",
            model=f"{fit.collective}/{fit.algorithm}",
            steps=f"{fit.steps:g}",
            per_byte=f"{fit.per_byte:g}",
            points=fit.points,
        ),
        N_(
            "alpha = %(alpha)s us (small sizes: fit error %(error)s%%)",
            alpha=f"{fit.alpha_us:.3f}",
            error=f"{fit.alpha_error_pct:.1f}",
        ),
        N_(
            "beta = %(beta)s ns/B = %(bandwidth)s GB/s (large sizes: fit error %(error)s%%)",
            beta=f"{fit.beta_s_per_byte * 1e9:.4f}",
            bandwidth=f"{fit.bandwidth_gbs:.3f}",
            error=f"{fit.beta_error_pct:.1f}",
        ),
    ]


def fit_lines(fit: Fit) -> list[str]:
    """Return the fit as commented lines: the model, then alpha and beta, each with its error."""
    model, alpha, beta = fit_sentences(fit)
    return [f"# {model}", f"#   {alpha}", f"#   {beta}"]


def _cell(value: float | None) -> str:
    return f"{value:>12.2f}" if value is not None else f"{'n/a':>12}"


def compare_lines(summary: dict) -> list[str]:
    """Return the comparison: measured and predicted µs per algorithm and size, then the wins."""
    config, entries = summary["config"], summary["algorithms"]
    lines = [
        f"# compare {config['collective']} on {config['ranks']} ranks, sizes "
        f"{human_bytes(config['min_bytes'])}..{human_bytes(config['max_bytes'])}: "
        "out-of-place time (us) per MPICH algorithm",
        "#",
        "#      MPICH algorithm                       catalog algorithm   engine steps  status",
    ]
    for i, e in enumerate(entries):
        steps = "" if e["steps"] is None else str(e["steps"])
        lines.append(
            f"#  [{i}] {e['name']:<37} {e['catalog'] or '-':<19} {steps:>12}  {e['status']}"
        )
        if e["status"] != "done":
            lines.append(f"#     {_last_line(e['error'])}")
        if e["fallback_sizes"]:
            sizes = ", ".join(human_bytes(s) for s in e["fallback_sizes"])
            lines.append(f"#     MPICH could not run it (ran its own choice, n/a) at: {sizes}")
    for title, column, winners in (
        ("measured (us)", "times_us", summary["winners"]),
        ("cost model with the fitted alpha, beta (us)", "predicted_us", summary["model_winners"]),
    ):
        lines += ["#", f"# {title}", _heading(entries)]
        for size in summary["sizes"]:
            cells = "".join(_cell(e[column].get(size)) for e in entries)
            lines.append(f"{size:>12}{cells}  {winners.get(size) or '-'}")
    lines += ["#", "# Fastest measured (MPICH's own choice, auto, left out):"]
    for name, first, last in win_ranges(summary["winners"]):
        lines.append(f"#   {name or 'none'}: {human_bytes(first)} .. {human_bytes(last)}")
    if summary["fit"]:
        lines.append("# " + _fit_summary(summary["fit"]))
    else:
        lines.append(f"# no fit: {summary['fit_error']}")
    return lines


def _heading(entries: list[dict]) -> str:
    names = "".join(f"{f'[{i}]':>12}" for i in range(len(entries)))
    return f"#{'size (B)':>11}{names}  winner"


def _fit_summary(fit: dict) -> str:
    return (
        f"fit (auto run, {fit['algorithm']} terms): alpha {fit['alpha_us']:.3f} us "
        f"(±{fit['alpha_error_pct']:.1f}%), {fit['bandwidth_gbs']:.3f} GB/s "
        f"(±{fit['beta_error_pct']:.1f}%)"
    )


def _last_line(text: str) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    useful = [line for line in lines if "not usable" in line] or lines
    return useful[-1] if useful else "no message"
