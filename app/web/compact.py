"""The socket form of the lab's step payloads: the same content as serialize's, in fewer bytes.

A 64-rank ring allreduce sent 2.2 MB of JSON over the websocket, most of it the same key names
in every transfer and cell and every holders list spelled out rank by rank (bench/wire.py,
issue 17). On the socket, and only there (`POST /api/simulate` keeps the full form):

- a transfer is four numbers in one flat list per step: `transfers: [src, dst, chunk, op, ...]`
  with op 0 for "copy" and 1 for "reduce"; its `elements` is its chunk's length, from
  `layout.chunks`;
- a cell (`initial_state`, `state`) is an array `[rank, chunk, holders, value, ...]`: `holders`
  is a string of ascending rank ranges, "0-3,60-63" ("" when none), and the values follow.

static/js/lab-client.js expands both back into the very objects serialize writes, so every view
reads the same fields as before; tests/web/compact_form.py does the same for the tests.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from app.collectives import Step, Trace
from app.i18n import DEFAULT
from app.i18n.phases import phase_name

from . import serialize
from .topology_svg import topology_svg

OPS = {"copy": 0, "reduce": 1}


@functools.lru_cache(maxsize=1 << 16)
def holders(mask: int) -> str:
    """Spell the ranks whose bits are set in `mask` as ascending ranges: "0-3,7,60-63".

    Cached: a run's cells repeat the same few thousand masks."""
    parts = []
    while mask:
        low = (mask & -mask).bit_length() - 1
        shifted = mask >> low
        run = (~shifted & (shifted + 1)).bit_length() - 1  # how many ranks in a row from `low`
        parts.append(str(low) if run == 1 else f"{low}-{low + run - 1}")
        mask &= ~(((1 << run) - 1) << low)
    return ",".join(parts)


def cells(entries: Iterable[tuple[int, int, int, Sequence]], dtype: str) -> list[list]:
    """Write (rank, chunk, holders mask, values) cells as `[rank, chunk, holders, value, ...]`.

    The values of all the cells go through `serialize.numbers` in one call: called once per
    cell, its fixed cost was two thirds of the time a 64-rank run took to encode."""
    entries = list(entries)
    values = serialize.numbers([v for *_, preview in entries for v in preview], dtype)
    out, i = [], 0
    for rank, chunk, mask, preview in entries:
        j = i + len(preview)
        out.append([rank, chunk, holders(mask), *values[i:j]])
        i = j
    return out


def initial_state(trace: Trace) -> list[list]:
    """Every non-empty cell before the first step, in rank, chunk order (as serialize's)."""
    entries = ((r, c, m, v.tolist()) for r, c, m, v in serialize.initial_cells(trace))
    return cells(entries, trace.dtype)


def start(trace: Trace, lang: str = DEFAULT) -> dict:
    """`sim_start`: serialize's, with the initial cells in the compact form, and the topology's
    picture as markup (`layout.topology_svg`, app/web/topology_svg.py) with its words in
    `lang`: the view the browser animates, drawn once, here."""
    out = serialize.start(trace, cells=initial_state)
    out["layout"]["topology_svg"] = topology_svg(trace, lang)
    out["phases"] = [phase_name(phase, lang) for phase in out["phases"]]
    return out


def step(trace: Trace, s: Step, narration: str, lang: str = DEFAULT) -> dict:
    """`sim_step`: index, phase (in `lang`, app/i18n/phases.py) and narration as serialize's;
    transfers and cells compact."""
    flat = []
    for src, dst, chunk, op in s.moves:
        flat += (src, dst, chunk, OPS[op])
    return dict(
        index=s.index,
        phase=phase_name(s.phase, lang),
        narration=narration,
        transfers=flat,
        state=cells(s.updates, trace.dtype),
    )
