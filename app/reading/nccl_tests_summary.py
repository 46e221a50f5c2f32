"""The sentence that says what an nccl-tests output held, in the reader's language.

Pure Python: the words go through the catalog (`app.i18n.catalog.translate`), so the page and
the API say the same sentence in English or Chinese.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.i18n import N_
from app.i18n.catalog import translate

if TYPE_CHECKING:
    from .nccl_tests import Reading


def summary(reading: Reading, lang: str = "en") -> str:
    """Say in one sentence (in `lang`) what was read: collective, ranks, sizes and the peak."""
    what = reading.collective or translate(lang, "an unnamed collective")
    if reading.ranks:
        source = translate(lang, reading.ranks_from)
        on = translate(lang, "%(n)s ranks (%(source)s)", n=reading.ranks, source=source)
    else:
        on = translate(lang, "unknown ranks")
    if reading.nodes:
        node = N_(" on %(n)s nodes") if reading.nodes > 1 else N_(" on %(n)s node")
        on += translate(lang, node, n=reading.nodes)
    sizes = len(reading.rows)
    counted = N_("%(what)s on %(on)s: %(n)s sizes")
    if sizes == 1:
        counted = N_("%(what)s on %(on)s: %(n)s size")
    text = translate(lang, counted, what=what, on=on, n=sizes)
    peak = reading.peak()
    if peak:
        text += translate(
            lang,
            "; peak busbw %(busbw)s GB/s at %(size)s B (%(placement)s)",
            busbw=f"{peak['busbw_gbs']:g}",
            size=f"{peak['size_bytes']:,}",
            placement=translate(lang, peak["placement"].replace("_", "-")),
        )
    bad = len(reading.inconsistent())
    if bad:
        failing = (
            N_("; %(n)s measurements fail the busbw check")
            if bad > 1
            else N_("; %(n)s measurement fails the busbw check")
        )
        text += translate(lang, failing, n=bad)
    return text + translate(lang, ".")
