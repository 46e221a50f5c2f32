"""What a classroom event may carry: each check names the field it refuses, in one sentence.

`ClassError(field, message)` reads "field: message"; the web layer acks it as `{ok: false,
error}`. Names are trimmed, capped at NAME_MAX characters and HTML-escaped before they are
kept, so no page that ever shows one can be made to run a student's markup.
"""

from __future__ import annotations

import html
import re
import secrets
import unicodedata

from app.collectives.parameters import shown

from . import codes

NAME_MAX = 40
MEMBER_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
POLL_ID = re.compile(r"p[0-9a-f]{12}")
# Unicode categories a display name may not hold: controls, formatting (bidi overrides, zero
# widths), surrogates, private use and unassigned code points.
REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn"}


class ClassError(ValueError):
    """A classroom event was refused; `field` names what was wrong."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


def fields(data: object, event: str, allowed: tuple[str, ...]) -> dict:
    """Return `data` if it is an object holding only `allowed` keys, else raise naming the key."""
    names = ", ".join(allowed)
    if not isinstance(data, dict):
        raise ClassError("payload", f"{event} takes one object {{{names}}}")
    for key in data:
        if key not in allowed:
            raise ClassError(shown(key), f"unknown field of {event}; allowed: {names or 'none'}")
    return data


def code(value: object) -> str:
    """Return a typed room code, normalised (see codes.normalize_code), or raise."""
    normal = codes.normalize_code(value)
    if normal is None:
        raise ClassError(
            "code",
            f"not a room code: {codes.CODE_LENGTH} characters from {codes.ALPHABET} "
            f"(got {shown(value)})",
        )
    return normal


def name(value: object) -> str:
    """Return a display name trimmed, checked and HTML-escaped ("" when none was given)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ClassError("name", f"must be text, got {shown(value)}")
    text = " ".join(value.split())
    if len(text) > NAME_MAX:
        raise ClassError("name", f"at most {NAME_MAX} characters (got {len(text)})")
    if any(unicodedata.category(ch) in REFUSED_CATEGORIES for ch in text):
        raise ClassError("name", "letters, digits, spaces and punctuation only")
    return html.escape(text)


def member_id(value: object) -> str:
    """Return the browser's member id, or a new one when it sent none."""
    if value is None:
        return secrets.token_urlsafe(12)
    if not isinstance(value, str) or not MEMBER_ID.fullmatch(value):
        raise ClassError(
            "member_id",
            f"must be the id the server gave (8-64 letters, digits, - or _), got {shown(value)}",
        )
    return value


def poll_id(value: object) -> str:
    """Return a poll id shaped like the ones polls are given, or raise."""
    if not isinstance(value, str) or not POLL_ID.fullmatch(value):
        raise ClassError("poll_id", f"must be the id of the open poll, got {shown(value)}")
    return value


def new_poll_id() -> str:
    return "p" + secrets.token_hex(6)


def teacher_token(value: object, digest: str) -> None:
    """Raise unless `value` is the teacher token whose digest is `digest`."""
    if value is None:
        raise ClassError("teacher_token", "missing: only the room's teacher may do this")
    if not codes.token_matches(value, digest):
        raise ClassError("teacher_token", "not this room's teacher")
