"""Room codes and teacher tokens: short codes a room can read aloud, secrets it cannot guess.

A code is 6 characters from an alphabet without look-alikes: no 0/O, 1/I/L, 2/Z, 5/S or 8/B,
so a code read off a projector or said aloud is typed right. 25 characters give 25^6 ≈ 244
million codes; a new room draws until it finds a free one. Students may type a code in lower
case, with spaces or a dash ("ack-3d7"): `normalize_code` reads it back.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
CODE_LENGTH = 6
TOKEN_BYTES = 24  # 192 bits: the teacher token is the only proof of being the teacher


def new_code() -> str:
    """Return a random room code (the caller checks it is free)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(text: object) -> str | None:
    """Return `text` as a room code (upper case, spaces and dashes dropped), or None if not one."""
    if not isinstance(text, str) or len(text) > 3 * CODE_LENGTH:
        return None
    code = "".join(ch for ch in text.upper() if ch not in " -")
    if len(code) != CODE_LENGTH or any(ch not in ALPHABET for ch in code):
        return None
    return code


def new_teacher_token() -> str:
    """Return a fresh secret for a room's teacher (URL-safe text)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_digest(token: str) -> str:
    """Return what the store keeps of a teacher token: its SHA-256, never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: object, digest: str) -> bool:
    """Say whether `token` is the teacher token whose digest is `digest`, in constant time."""
    if not isinstance(token, str) or not token or len(token) > 200:
        return False
    return hmac.compare_digest(token_digest(token), digest)
