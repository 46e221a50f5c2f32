"""Fill in the narration's templates: one table per language (en.py, zh.py), phrases built
from them.

The code that reads a trace never writes English itself, so a language is one more table
(issue 20 added Chinese): a module with `TABLE`, `PHASES`, whether its sentences start with a
capital (`CAPITALIZE`) and `tidy`, what it does to a finished sentence (Chinese puts spaces
between Chinese and Latin letters or digits). A template may be a pair (one, many) where a
language agrees with a count; `say` picks by `n`. Numbers are always digits, never words, so
every number in a sentence can be checked against the trace (tests/collectives/test_narration.py)
and a translation against the English (test_narration_zh.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

from . import en, zh

LANGUAGES: dict[str, ModuleType] = {"en": en, "zh": zh}


class Words:
    """One language's templates: `say` fills one in, the helpers build the recurring phrases."""

    def __init__(self, language: str = "en") -> None:
        words = LANGUAGES[language]
        self.table, self.phases = words.TABLE, words.PHASES
        self.capitalize = words.CAPITALIZE
        self.tidy = getattr(words, "tidy", None)
        self._sizes: dict[int, str] = {}

    def say(self, key: str, n: int | None = None, shown: str | None = None, **fields) -> str:
        """Fill template `key`; a (one, many) pair is chosen by `n` (1 means one), and `{n}`
        shows `shown` when given (a range such as "1 to 2")."""
        fields["n"] = n if shown is None else shown
        return self.fill(key, fields, n)

    def fill(self, key: str, fields: dict, n: int | None = None) -> str:
        """Fill template `key` from `fields`; `n` chooses one of a (one, many) pair."""
        template = self.table[key]
        if isinstance(template, tuple):
            template = template[0 if n == 1 else 1]
        return template.format_map(fields)

    def phase(self, kind: str, shape: str, **fields) -> str:
        """Name the part of the algorithm a step is in ("reduce up both trees", "fold-in")."""
        return self.phases.get(f"{shape} {kind}", self.phases[kind]).format(**fields)

    def sentences(self, header: str, parts: list[str]) -> str:
        """Write the header, then each part as a sentence (the first runs on after the colon)."""
        texts = parts
        if self.capitalize:
            texts = [parts[0], *(t[:1].upper() + t[1:] for t in parts[1:])]
        sentence = self.table["sentence"].format
        text = self.table["space"].join([header, *(sentence(text=t) for t in texts)])
        return self.tidy(text) if self.tidy else text

    def listing(self, items: Sequence[str]) -> str:
        """Join phrases: "a", "a and b", "a, b and c"."""
        if len(items) <= 1:
            return "".join(items)
        head = items[0]
        for item in items[1:-1]:
            head = self.say("comma", a=head, b=item)
        return self.say("and", a=head, b=items[-1])

    def ranks(self, ranks: Sequence[int], p: int, most: int = 4) -> str:
        """Name a sorted set of ranks briefly: "every rank", "ranks 0–3 and 8–11", "40 ranks"."""
        if len(ranks) == p and p > 1:
            return self.say("every rank")
        if len(ranks) == 1:
            return self.say("rank", r=ranks[0])
        if len(ranks) == p - 1 and p > 2:
            missing = next(r for i, r in enumerate([*ranks, p]) if r != i)
            return self.say("every rank but", r=missing if missing < p else p - 1)
        runs = _runs(ranks)
        if len(runs) > most:
            return self.say("n ranks", n=len(ranks))
        parts = []
        for a, b in runs:
            if b - a < 2:
                parts += [str(r) for r in range(a, b + 1)]
            else:
                parts.append(self.say("range", a=a, b=b))
        return self.say("ranks", list=self.listing(parts))

    def size(self, nbytes: int) -> str:
        """Write a byte count plainly: "48 bytes", "4.096 kB", "1.049 MB" (decimal units)."""
        text = self._sizes.get(nbytes)
        if text is None:
            text = self._sizes[nbytes] = self._size(nbytes)
        return text

    def _size(self, nbytes: int) -> str:
        for key, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
            if nbytes >= scale:
                return self.say(key, x=f"{nbytes / scale:.4g}")
        return self.say("bytes", n=nbytes)

    def sizes(self, values: Sequence[int]) -> str:
        """Write one size, or the range "8 bytes to 24 bytes" when messages differ."""
        low, high = min(values), max(values)
        if low == high:
            return self.size(low)
        return self.say("from to", a=self.size(low), b=self.size(high))

    def count(self, unit: str, values: Sequence[int]) -> str:
        """Write a count of chunks (blocks, segments): "3 chunks", "1 to 2 chunks"."""
        low, high = min(values), max(values)
        if low == high:
            return self.say(unit, n=low)
        return self.say(unit, n=high, shown=self.say("from to", a=low, b=high))


def _runs(ranks: Sequence[int]) -> list[tuple[int, int]]:
    """Group sorted ranks into runs of consecutive numbers: [0, 1, 2, 5] -> [(0, 2), (5, 5)]."""
    runs: list[tuple[int, int]] = []
    for r in ranks:
        if runs and runs[-1][1] == r - 1:
            runs[-1] = (runs[-1][0], r)
        else:
            runs.append((r, r))
    return runs
