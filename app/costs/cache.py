"""The cost model's cache of recently used `Terms`, bounded by their total rank count."""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock

from .terms import Terms


class TermsCache:
    """The most recently used Terms, at most `entries` of them and `ranks` per-rank values in all.

    A Terms holds one value per rank (about 40 bytes each at 65,536 ranks), so a count of
    entries alone does not bound memory: 512 of the largest would take 1.4 GB. Weighing each
    by its ranks keeps the cache under about 40 MB however the requests vary the rank count.
    The 2^20 values hold sixteen Terms at 65,536 ranks: one comparison (every algorithm of a
    collective, ranked, then drawn) must fit, or the least recently used entry is always the
    next one needed and the comparison computes every algorithm twice (2^19 held eight).
    """

    def __init__(self, entries: int = 512, ranks: int = 1 << 20) -> None:
        self.entries, self.ranks = entries, ranks
        self._items: OrderedDict[tuple, Terms] = OrderedDict()
        self._held = 0
        self._lock = Lock()

    def get(self, key: tuple, compute) -> Terms:
        """Return the cached Terms of `key`, or compute, keep and return them."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        terms = compute()
        with self._lock:
            if key not in self._items:
                self._items[key] = terms
                self._held += len(terms.bytes_per_rank)
            while len(self._items) > self.entries or self._held > self.ranks:
                _, dropped = self._items.popitem(last=False)
                self._held -= len(dropped.bytes_per_rank)
        return terms

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._items.clear()
            self._held = 0
