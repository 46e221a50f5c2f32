"""Sign what the server hands out, so answers can be graded without trusting the browser.

A numeric or predict question is an instance of a template: the server draws parameters and
sends them with `sign(...)`, an HMAC-SHA256 of the question id and the parameters under the
app's SECRET_KEY. At grading time `verify(...)` rejects any parameters the server did not draw.
Option, item and pair ids are HMACs too (`opaque_id`), so their order in the bank, where the
right option often comes first, cannot be read back from the ids.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json


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


def sign(secret: str | bytes, question_id: str, params: dict) -> str:
    """Return the token that vouches for `params` having been drawn for `question_id`."""
    digest = hmac.new(_key(secret), canonical(question_id, params), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def verify(secret: str | bytes, question_id: str, params: dict, token: str) -> bool:
    """Return True when `token` is the signature of exactly these parameters."""
    expected = sign(secret, question_id, params).encode("ascii")
    return hmac.compare_digest(expected, token.encode("utf-8", "surrogatepass"))


def opaque_id(secret: str | bytes, question_id: str, role: str, index: int) -> str:
    """Return a short id for the `index`-th option/item of a question that hides the index."""
    message = f"{role}\x00{question_id}\x00{index}".encode()
    digest = hmac.new(_key(secret), message, hashlib.sha256).digest()
    return role[0] + base64.b32encode(digest[:10]).decode("ascii").lower()
