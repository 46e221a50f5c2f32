"""The engine's phase names ("exchange k=2", "broadcast down trees 0 and 1") in the reader's
language.

Each algorithm names its steps' phases in English, numbers written in (`Step.phase`,
app/collectives). A name is read back here as one of the templates below: its numbers are taken
out, in order, as %(a)s and %(b)s, and put back into the catalog's translation of the template.
A name that fits no template stays English; tests/web/test_phase_names.py runs every algorithm
of the catalog and checks that each phase it names fits one.
"""

from __future__ import annotations

import re
from functools import cache

from . import DEFAULT, N_
from .catalog import translate

TEMPLATES = frozenset(
    (
        N_("PAT allgather, distance %(a)s"),
        N_("PAT reduce-scatter, distance %(a)s"),
        N_("all at once"),
        N_("all to the root"),
        N_("allgather"),
        N_("allgather (both directions)"),
        N_("allgather around the ring"),
        N_("broadcast"),
        N_("broadcast along the chain (pipeline draining)"),
        N_("broadcast along the chain (pipeline filling)"),
        N_("broadcast along the chain (pipeline full)"),
        N_("broadcast down (pipeline draining)"),
        N_("broadcast down the binomial tree"),
        N_("broadcast down the tree"),
        N_("broadcast down trees %(a)s and %(b)s"),
        N_("chain broadcast, draining"),
        N_("chain reduce, filling"),
        N_("column allreduce (allgather)"),
        N_("column allreduce (reduce-scatter)"),
        N_("direct"),
        N_("distance %(a)s"),
        N_("drain: micro-batch %(a)s reaches the last stage"),
        N_("each block to its rank"),
        N_("everyone sends to the root"),
        N_("exchange k=%(a)s"),
        N_("fill: micro-batch %(a)s enters"),
        N_("fold-in"),
        N_("fold-out"),
        N_("halving k=%(a)s"),
        N_("inter-node allreduce (allgather)"),
        N_("inter-node allreduce (reduce-scatter)"),
        N_("into the switch (multimem.ld_reduce)"),
        N_("into the switch (multimem.st)"),
        N_("intra-node allgather"),
        N_("intra-node reduce-scatter"),
        N_("multicast out (multimem.st)"),
        N_("multicast to every GPU"),
        N_("pipeline: into the switch, multicast out"),
        N_("reduce"),
        N_("reduce along the chain (pipeline draining)"),
        N_("reduce along the chain (pipeline filling)"),
        N_("reduce along the chain (pipeline full)"),
        N_("reduce up (pipeline filling)"),
        N_("reduce up and broadcast down (pipelined)"),
        N_("reduce up the binomial tree"),
        N_("reduce up the tree"),
        N_("reduce up trees %(a)s and %(b)s"),
        N_("reduce-scatter"),
        N_("reduce-scatter (both directions)"),
        N_("root sends to everyone"),
        N_("root to all"),
        N_("row allgather"),
        N_("row reduce-scatter"),
        N_("scatter down the binomial tree"),
        N_("shift %(a)s"),
        N_("steady: micro-batch %(a)s enters"),
        N_("subtrees of %(a)s send up"),
        N_("subtrees of %(a)s sent down"),
        N_("through the SHARP switch"),
    )
)

_NUMBER = re.compile(r"\d+")
_NAMES = "ab"


def template(phase: str) -> tuple[str, dict[str, str]]:
    """Return `phase` with its numbers replaced by %(a)s, %(b)s, and those numbers."""
    numbers = _NUMBER.findall(phase)
    if len(numbers) > len(_NAMES):
        return phase, {}
    names = iter(_NAMES)
    message = _NUMBER.sub(lambda _: f"%({next(names)})s", phase)
    return message, dict(zip(_NAMES[: len(numbers)], numbers, strict=True))


@cache
def phase_name(phase: str, lang: str = DEFAULT) -> str:
    """`phase` in `lang`: its template's translation with its numbers, or `phase` itself."""
    if lang == DEFAULT:
        return phase
    message, numbers = template(phase)
    return translate(lang, message, **numbers) if message in TEMPLATES else phase
