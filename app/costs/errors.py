"""The one exception the cost model raises for impossible or malformed inputs."""

from __future__ import annotations


class CostError(ValueError):
    """An input to the cost model is missing, malformed or out of range; the message names it."""
