"""Rate limits: a token bucket per client, for Socket.IO `simulate` and the HTTP APIs.

A small token bucket rather than Flask-Limiter: the same few lines serve a Socket.IO event
(keyed by the connection's sid, which Flask-Limiter cannot see) and HTTP requests (keyed by
the client address), with nothing to configure beyond a rate and a burst.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from flask import Flask, jsonify, request


class RateLimited(Exception):
    """A client asked too often; `retry_after_s` says when the next request will be taken."""

    def __init__(self, what: str, rate_per_s: float, retry_after_s: float) -> None:
        self.retry_after_s = retry_after_s
        wait = max(1, math.ceil(retry_after_s))
        super().__init__(
            f"too many {what}: the limit is {rate_per_s:g} per second; retry in {wait} s"
        )


class TokenBuckets:
    """One bucket of `burst` tokens per key, refilled at `rate_per_s`; thread-safe."""

    def __init__(self, what: str, rate_per_s: float, burst: int, clock: Callable = time.monotonic):
        if rate_per_s <= 0 or burst < 1:
            raise ValueError(f"{what}: rate must be > 0 and burst >= 1")
        self.what, self.rate, self.burst, self._clock = what, rate_per_s, burst, clock
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, last refill time)

    def take(self, key: str) -> None:
        """Spend one of `key`'s tokens, or raise RateLimited."""
        now = self._clock()
        with self._lock:
            tokens, last = self._buckets.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            if tokens < 1:
                self._buckets[key] = (tokens, now)
                raise RateLimited(self.what, self.rate, (1 - tokens) / self.rate)
            self._buckets[key] = (tokens - 1, now)
            if len(self._buckets) > 10_000:
                self._forget_full(now)

    def forget(self, key: str) -> None:
        """Drop `key`'s bucket (a client that disconnected)."""
        with self._lock:
            self._buckets.pop(key, None)

    def _forget_full(self, now: float) -> None:
        """Drop buckets that have refilled: they hold no state worth keeping."""
        full = [
            k
            for k, (t, last) in self._buckets.items()
            if t + (now - last) * self.rate >= self.burst
        ]
        for key in full:
            del self._buckets[key]


def init_app(app: Flask) -> None:
    """Limit every /api/ request per client address, per the API_RATE settings."""
    buckets = TokenBuckets("API requests", app.config["API_RATE_PER_S"], app.config["API_BURST"])
    app.extensions["api_rate"] = buckets

    @app.before_request
    def limit_api():
        if not request.path.startswith("/api/"):
            return None
        try:
            buckets.take(request.remote_addr or "unknown")
        except RateLimited as e:
            response = jsonify(error=str(e))
            response.status_code = 429
            response.headers["Retry-After"] = str(max(1, math.ceil(e.retry_after_s)))
            return response
        return None
