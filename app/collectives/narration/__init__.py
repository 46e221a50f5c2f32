"""Narration: one or two plain sentences per step, written from the trace with its real numbers.

`narrate(trace)` returns one string per step: "Step 3 of 14, reduce-scatter: every rank sends
1 chunk (32 bytes) to its right neighbour, which adds it to its own copy, so each partial chunk
gains one contribution per hop. Rank 1's chunk G now holds 4 of 8 contributions; after step 7,
each rank owns one fully reduced chunk." The first step also says what the run starts from, the
last what it ends with.

Everything quoted is read off the trace: the messages of each step (facts.py), the shape of the
topology (shapes.py, trees.py) and the holdings replayed step by step; only the why and the goal
of each part of an algorithm come from a table (en.py), as every other word does, so that a
language is one more table. Nothing here knows about the web. Cost: one pass over each step's
transfers and changed cells, the same lists the lab's serializer reads anyway.
"""

from __future__ import annotations

from ..trace import Trace
from .compose import Narrator


def narrate(trace: Trace, language: str = "en") -> list[str]:
    """Return one narration per step of `trace`, in step order (none for a run of no steps)."""
    if not trace.steps:
        return []
    return Narrator(trace, language).sentences()


__all__ = ["narrate"]
