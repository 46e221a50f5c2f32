"""Rate limits: token buckets per client, charged by the work a request costs.

A small token bucket rather than Flask-Limiter: the same few lines serve a Socket.IO event
(keyed by the connection's sid, which Flask-Limiter cannot see) and HTTP requests (keyed by
the client address), with nothing to configure beyond a rate and a burst.

HTTP requests are charged in work units, per client address (IPv6: per /64), because a class
behind one NAT address sends many cheap requests and one script a few expensive ones:

- 1 unit: a page, an API call, a calculator answer (1-5 ms of CPU here);
- a page that answers calculators costs the page and its answers: /embed/calc/<name> 2 units,
  /calculators (every calculator) 1 + 8 = 9;
- POST /api/simulate: 1 + cells / 1024 units, cells being ranks x working-buffer length (the
  work bound LAB_MAX_CELLS caps): 2 units for the lab's default 8 x 64, 257 for the largest
  run (262,144 cells, 0.25-0.65 s of CPU here, 100-300 calculator answers);
- static files, /healthz and /favicon.ico are free; Socket.IO is not an HTTP request here.

Sizing the default per address (API_BURST 2,000 units, API_RATE_PER_S 200 units/s) for a class
of 200 behind one address. static/js/calculators.js sends a widget's request 200 ms after the
last input (DEBOUNCE_MS), so a student dragging a slider sends at most 1000 / 200 = 5 requests
a second; the whole class dragging at once ("now set 64 GPUs") is 200 x 5 = 1,000 units within
about a second, half the burst. Exploring on, a student sends about one request a second
(drag, pause to read, drag): 200 x 1 = 200 units/s, the rate. The class opening /calculators
together costs 200 x 9 = 1,800 units, inside the burst, which refills in 10 s. One script from
one address gets the same 2,000 units and then 200 units/s: 200 calculator answers a second, or
one largest simulation every 1.3 s. At 1-5 ms a unit that is at most one of this machine's two
cores, so the rest of the server stays free for everyone else.

Addresses in CLASS_NETWORKS (a school's NAT with several classes, or a room where every student
POSTs simulations) get CLASS_BURST 10,000 and CLASS_RATE_PER_S 1,000 units/s: 200 students x 5
requests/s, the debounce's maximum, every student dragging at once.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

from flask import Flask, current_app, request
from werkzeug.exceptions import TooManyRequests

from app.collectives import buffer_length
from app.costs.calculators import CALCULATORS

from .. import errors, params
from .clients import Clients

FREE_PREFIXES = ("/static/",)
FREE_PATHS = ("/healthz", "/favicon.ico")
CALCULATOR_EMBED = "/embed/calc/"  # a page and one calculator answer
CELLS_PER_UNIT = 1024  # a simulation's cells per work unit (see the module docstring)
MAX_CLIENTS = 10_000  # buckets kept at once; past it full ones, then the oldest, are dropped


class RateLimited(Exception):
    """A client asked too often; `retry_after_s` says when the next request will be taken."""

    def __init__(
        self, what: str, rate_per_s: float, retry_after_s: float, message: str | None = None
    ) -> None:
        self.retry_after_s = retry_after_s
        self.wait_s = max(1, math.ceil(retry_after_s))
        super().__init__(
            message
            or f"too many {what}: the limit is {rate_per_s:g} per second; retry in {self.wait_s} s"
        )


class TokenBuckets:
    """One bucket of `burst` tokens per key, refilled at `rate_per_s`; thread-safe."""

    def __init__(
        self,
        what: str,
        rate_per_s: float,
        burst: float,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = MAX_CLIENTS,
    ):
        if rate_per_s <= 0 or burst < 1:
            raise ValueError(f"{what}: rate must be > 0 and burst >= 1")
        self.what, self.rate, self.burst, self._clock = what, rate_per_s, burst, clock
        self.max_keys = max_keys
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, last refill time)

    def take(self, key: str, cost: float = 1) -> None:
        """Spend `cost` of `key`'s tokens, or raise RateLimited (nothing is spent then)."""
        cost = min(cost, self.burst)  # a request dearer than the burst waits for a full bucket
        now = self._clock()
        with self._lock:
            tokens, last = self._buckets.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            if tokens < cost:
                self._buckets[key] = (tokens, now)
                raise RateLimited(self.what, self.rate, (cost - tokens) / self.rate)
            self._buckets[key] = (tokens - cost, now)
            if len(self._buckets) > self.max_keys:
                self._forget(now)

    def forget(self, key: str) -> None:
        """Drop `key`'s bucket (a client that disconnected)."""
        with self._lock:
            self._buckets.pop(key, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._buckets)

    def _forget(self, now: float) -> None:
        """Drop buckets that have refilled; if too many are left, the older half of the rest."""
        full = [
            k
            for k, (t, last) in self._buckets.items()
            if t + (now - last) * self.rate >= self.burst
        ]
        for key in full:
            del self._buckets[key]
        if len(self._buckets) > self.max_keys // 2:
            for key in list(self._buckets)[: len(self._buckets) // 2]:
                del self._buckets[key]  # they start full again: generous, never wrong


class WorkLimits:
    """Per-address budgets of work units: a default one, and a class-sized one for networks."""

    def __init__(
        self,
        rate_per_s: float,
        burst: float,
        class_rate_per_s: float,
        class_burst: float,
        class_networks: str,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.clock = clock  # tests stop it
        self.clients = Clients(class_networks)
        self.default = TokenBuckets("work", rate_per_s, burst, lambda: self.clock())
        self.classes = TokenBuckets("work", class_rate_per_s, class_burst, lambda: self.clock())

    def charge(self, address: str, units: float) -> None:
        """Spend `units` of `address`'s budget, or raise RateLimited saying what was spent."""
        buckets = self.classes if self.clients.is_class(address) else self.default
        try:
            buckets.take(self.clients.key(address), units)
        except RateLimited as e:
            raise RateLimited(
                "work",
                buckets.rate,
                e.retry_after_s,
                f"too many requests from this address: the limit is {buckets.rate:g} work "
                f"units per second after a burst of {buckets.burst:g} (a page or a calculator "
                f"answer costs 1, this request {units:g}); retry in {e.wait_s} s",
            ) from None


def request_units() -> float:
    """Return the work units the current request costs (see the module docstring)."""
    path = request.path
    if path.startswith(FREE_PREFIXES) or path in FREE_PATHS:
        return 0
    if path == "/calculators":
        return 1 + len(CALCULATORS)
    if path.startswith(CALCULATOR_EMBED):
        return 2
    if path == "/api/simulate" and request.method == "POST":
        return 1 + _simulate_cells() // CELLS_PER_UNIT
    return 1


def _simulate_cells() -> int:
    """Return the cells a simulate body asks for; 0 when it is invalid (it will get a 400)."""
    try:
        body = request.get_json(force=True, silent=True)  # cached: the view reads it again
        p = params.parse(
            body,
            max_ranks=current_app.config["LAB_MAX_RANKS"],
            max_cells=current_app.config["LAB_MAX_CELLS"],
        )
    except (errors.InputError, RecursionError):
        return 0
    return p.ranks * buffer_length(p.collective, p.ranks, p.elements)


def init_app(app: Flask) -> None:
    """Charge every request's work to its client address, per the API_ and CLASS_ settings."""
    limits = WorkLimits(
        app.config["API_RATE_PER_S"],
        app.config["API_BURST"],
        app.config["CLASS_RATE_PER_S"],
        app.config["CLASS_BURST"],
        app.config["CLASS_NETWORKS"],
    )
    app.extensions["work_limits"] = limits

    @app.before_request
    def limit_work():
        units = request_units()
        if not units:
            return None
        try:
            limits.charge(request.remote_addr or "unknown", units)
        except RateLimited as e:
            # Answered here, not raised: blueprints' error handlers would drop Retry-After.
            return errors.error_response(TooManyRequests(str(e), retry_after=e.wait_s))
        return None
