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
    Setting("LAB_MAX_RANKS", 64, "Largest rank count the web lab simulates (the engine allows 256)."),
    Setting(
        "LAB_MAX_CELLS",
        1 << 20,
        "Bound on ranks x per-rank working-buffer length for one web simulation "
        "(1,048,576 values, 4 MiB of float32 per run).",
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
