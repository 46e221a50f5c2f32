"""Recent runs' payloads, already encoded: an identical `simulate` skips the engine.

The engine is deterministic: the same validated parameters (seed included) give the same
trace, so the same `sim_start`, `sim_step`s and `sim_done`, apart from the run's id and the
language of the steps' narration. A run whose
payloads were all encoded (`encode_run`, in the socket's compact form, app/web/compact.py)
leaves them here as JSON text without `run_id`
(`socket_json.Encoded` puts each run's own id in front when it is sent). The cache is keyed by
every simulate parameter but `interval_ms`, which only paces the stream, and by the language
the run is narrated in (the connection's, app/web/i18n.py), and bounded by the
total length of the text it holds (`LAB_RUN_CACHE_BYTES`), least recently used first out.
It holds only strings, which nobody can change, and is safe to use from many threads.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Callable

from app.collectives import Trace
from app.i18n import DEFAULT as DEFAULT_LANGUAGE

from .. import compact, serialize
from ..params import SimParams
from .socket_json import encode

# A str of ASCII JSON costs its length plus this much (CPython's compact str header).
STR_OVERHEAD = 49


@dataclasses.dataclass(frozen=True)
class EncodedRun:
    """One run's payloads as JSON objects without `run_id`: sim_start, each sim_step, sim_done."""

    start: str
    steps: tuple[str, ...]
    done: str

    @property
    def nbytes(self) -> int:
        texts = (self.start, self.done, *self.steps)
        return sum(len(t) for t in texts) + STR_OVERHEAD * len(texts)


def encode_run(
    trace: Trace,
    first: Callable[[str, str], object] | None = None,
    cancelled: Callable[[], bool] = lambda: False,
    lang: str = DEFAULT_LANGUAGE,
) -> EncodedRun | None:
    """Encode a trace's payloads: sim_start, every sim_step (narrated in `lang`), sim_done.

    `first(event, body)` is called with sim_start and then with the first sim_step as soon as
    each is encoded, so a stream can send them while the rest are being encoded. Encoding
    stops, and None is returned, once `cancelled()` says so: at 64 ranks it costs several
    times the engine's run, and a run replaced at once (a double click) needs none of it.
    """
    start = encode(compact.start(trace, lang))
    if first is not None:
        first("sim_start", start)
    steps = []
    texts = serialize.narrations(trace, lang)
    for s, narration in zip(trace.steps, texts, strict=True):
        if cancelled():
            return None
        steps.append(encode(compact.step(trace, s, narration, lang)))
        if first is not None and len(steps) == 1:
            first("sim_step", steps[0])
    return EncodedRun(start, tuple(steps), encode(serialize.done(trace)))


def key(p: SimParams, lang: str = DEFAULT_LANGUAGE) -> tuple[SimParams, str]:
    """Return the cache key of a run: its parameters with the stream's pace left out, and the
    language of its narration."""
    return (dataclasses.replace(p, interval_ms=0) if p.interval_ms else p), lang


class RunCache:
    """A bounded, thread-safe LRU of `EncodedRun`s; `max_bytes` 0 disables it."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max(0, int(max_bytes))
        self._lock = threading.Lock()
        self._runs: OrderedDict[tuple[SimParams, str], tuple[EncodedRun, int]] = OrderedDict()
        self._bytes = 0
        self.hits = 0
        self.misses = 0

    @property
    def enabled(self) -> bool:
        return self.max_bytes > 0

    def get(self, p: SimParams, lang: str = DEFAULT_LANGUAGE) -> EncodedRun | None:
        """Return the encoded run for parameters `p` in `lang`, or None (counted as a miss)."""
        if not self.max_bytes:
            return None
        k = key(p, lang)
        with self._lock:
            entry = self._runs.get(k)
            if entry is None:
                self.misses += 1
                return None
            self._runs.move_to_end(k)
            self.hits += 1
            return entry[0]

    def holds(self, p: SimParams, lang: str = DEFAULT_LANGUAGE) -> bool:
        """Say whether the run for parameters `p` in `lang` is kept (neither a hit nor a miss)."""
        with self._lock:
            return key(p, lang) in self._runs

    def put(self, p: SimParams, run: EncodedRun, lang: str = DEFAULT_LANGUAGE) -> bool:
        """Keep `run` for parameters `p` in `lang`, evicting the least recently used; say if it
        was kept.

        A run larger than a quarter of the budget is not kept: it would evict many others.
        """
        size = run.nbytes
        if not self.max_bytes or size > self.max_bytes // 4:
            return False
        k = key(p, lang)
        with self._lock:
            old = self._runs.pop(k, None)
            if old is not None:
                self._bytes -= old[1]
            self._runs[k] = (run, size)
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, (_, evicted) = self._runs.popitem(last=False)
                self._bytes -= evicted
        return True

    def clear(self) -> None:
        with self._lock:
            self._runs.clear()
            self._bytes = 0

    def stats(self) -> dict:
        """Return entries, bytes held, the budget, hits and misses."""
        with self._lock:
            return {
                "entries": len(self._runs),
                "bytes": self._bytes,
                "max_bytes": self.max_bytes,
                "hits": self.hits,
                "misses": self.misses,
            }
