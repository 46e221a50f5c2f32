"""Sign what the server hands out, so answers can be graded without trusting the browser.

A numeric or predict question is an instance of a template: the server draws parameters and
sends them with a token from `sign(...)`: `<drawn at>.<draw id>.<mac>`, where the mac is an
HMAC-SHA256 of the question id, the parameters, the time of the draw and a random draw id under
the app's SECRET_KEY. At grading time `verify(...)` rejects any parameters the server did not
draw. Each draw is a question of its own, graded once (`GradedDraws`): a wrong numeric answer
shows the expected value, which must not then be accepted as a right answer to the same draw.
A draw stays gradable for `LIFETIME_S`, so the record of graded draws can forget it after that.
Option, item and pair ids are HMACs too (`opaque_id`), so their order in the bank, where the
right option often comes first, cannot be read back from the ids.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

LIFETIME_S = 24 * 3600  # a drawn question is gradable for a day: long enough for an open tab
CLOCK_SKEW_S = 300  # a draw "from the future" by this much is another machine's clock
MAX_GRADED = 50_000  # graded draws remembered at once (about 5 MB); a day of a busy classroom


def _key(secret: str | bytes) -> bytes:
    if isinstance(secret, str):
        secret = secret.encode("utf-8")
    if not secret:
        raise ValueError("the quiz needs a non-empty SECRET_KEY to sign questions")
    return secret


def canonical(question_id: str, params: dict) -> bytes:
    """Return the bytes that are signed: the id and the parameters as sorted, compact JSON."""
    body = {"id": question_id, "params": params}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


@dataclass(frozen=True)
class Draw:
    """One drawing of a question's parameters: when (Unix seconds) and its random id."""

    drawn_at: int
    draw_id: int


def _mac(secret: str | bytes, question_id: str, params: dict, head: str) -> str:
    message = canonical(question_id, params) + b"\x00" + head.encode("ascii")
    digest = hmac.new(_key(secret), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def sign(
    secret: str | bytes, question_id: str, params: dict, *, drawn_at: float | None = None
) -> str:
    """Return the token of a new draw of `params` for `question_id` (now, or at `drawn_at`)."""
    when = int(time.time() if drawn_at is None else drawn_at)
    head = f"{when:x}.{secrets.token_hex(8)}"
    return f"{head}.{_mac(secret, question_id, params, head)}"


def verify(secret: str | bytes, question_id: str, params: dict, token: str) -> bool:
    """Return True when `token` is this server's signature of exactly these parameters."""
    head, _, mac = token.rpartition(".")
    if parse_draw(token) is None:
        return False
    expected = _mac(secret, question_id, params, head).encode("ascii")
    return hmac.compare_digest(expected, mac.encode("utf-8", "surrogatepass"))


def parse_draw(token: str) -> Draw | None:
    """Return the draw a token names, or None if it is not shaped like one of ours."""
    parts = token.split(".")
    if len(parts) != 3 or not all(p.isascii() and p.isalnum() for p in parts[:2]):
        return None
    try:
        return Draw(int(parts[0], 16), int(parts[1], 16))
    except ValueError:
        return None


def age_problem(draw: Draw, now: float | None = None) -> str | None:
    """Say why a draw can no longer be graded (too old, or dated ahead), or None."""
    now = time.time() if now is None else now
    if now - draw.drawn_at > LIFETIME_S:
        return f"this question was drawn more than {LIFETIME_S // 3600} hours ago"
    if draw.drawn_at - now > CLOCK_SKEW_S:
        return "this question is dated ahead of this server's clock"
    return None


class GradedDraws:
    """The draws this process has graded, each kept until it expires; bounded and thread-safe.

    Per process: with several server processes a draw could be graded once in each, until the
    classroom's shared store holds this set too (docs/quiz.md).
    """

    def __init__(self, max_draws: int = MAX_GRADED, clock: Callable[[], float] = time.time):
        self.max_draws, self._clock = max_draws, clock
        self._lock = threading.Lock()
        self._expiry: dict[int, int] = {}  # draw id -> when it stops being gradable

    def claim(self, draw: Draw) -> bool:
        """Record `draw` as graded; return False if it already was."""
        with self._lock:
            if draw.draw_id in self._expiry:
                return False
            self._expiry[draw.draw_id] = draw.drawn_at + LIFETIME_S
            if len(self._expiry) > self.max_draws:
                self._forget(self._clock())
        return True

    def __len__(self) -> int:
        with self._lock:
            return len(self._expiry)

    def _forget(self, now: float) -> None:
        """Drop expired draws; if that is not enough, the oldest tenth (they may be regraded)."""
        self._expiry = {k: t for k, t in self._expiry.items() if t >= now}
        excess = len(self._expiry) - self.max_draws * 9 // 10
        for key in list(self._expiry)[: max(0, excess)]:
            del self._expiry[key]


def opaque_id(secret: str | bytes, question_id: str, role: str, index: int) -> str:
    """Return a short id for the `index`-th option/item of a question that hides the index."""
    message = f"{role}\x00{question_id}\x00{index}".encode()
    digest = hmac.new(_key(secret), message, hashlib.sha256).digest()
    return role[0] + base64.b32encode(digest[:10]).decode("ascii").lower()
