"""Every setting the app reads, with its default and what it is for.

Defaults are loaded first, then environment variables prefixed `COLLECTIVE_LAB_`
(e.g. `COLLECTIVE_LAB_EMBED_FRAME_ANCESTORS="https://wiki.example.com"`), then the test config.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    name: str
    default: object
    help: str


SETTINGS = (
    Setting(
        "LAB_MAX_RANKS",
        64,
        "Largest rank count the web lab simulates: ranks must be in 1..LAB_MAX_RANKS "
        "(the engine itself allows 256).",
    ),
    Setting(
        "LAB_MAX_CELLS",
        1 << 18,
        "Bound on ranks x per-rank working-buffer length for one web simulation "
        "(262,144 values). The working buffer is `elements` long, or ranks x elements for "
        "allgather, gather and all_to_all; so at 64 ranks elements <= 4096 (allreduce) or "
        "<= 64 (allgather). It keeps one run's numpy buffers at 1 MiB of float32 and its "
        "JSON trace at a few MB.",
    ),
    Setting(
        "EMBED_FRAME_ANCESTORS",
        "*",
        "Space-separated origins allowed to frame /embed/* pages (CSP frame-ancestors). "
        "Every other page denies framing.",
    ),
    Setting(
        "SOCKETIO_CORS_ORIGINS",
        "",
        "Space-separated origins allowed to open a Socket.IO connection; empty means same origin.",
    ),
    Setting("MAX_CONTENT_LENGTH", 256 * 1024, "Largest HTTP request body, in bytes."),
)


def defaults() -> dict:
    """Return the default value of every setting."""
    return {s.name: s.default for s in SETTINGS}
