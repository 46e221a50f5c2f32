"""What a classroom event may carry: each check names the field it refuses, in one sentence.

`ClassError(field, message, **values)` reads "field: message" (message % values); the web layer
acks it as `{ok: false, error}`, the message in the member's language (`N_` marks it for the
catalog, the field name stays as the event spells it). Names are trimmed, capped at NAME_MAX
characters and HTML-escaped before they are kept, so no page that ever shows one can be made
to run a student's markup.
"""

from __future__ import annotations

import html
import re
import secrets
import unicodedata

from app.collectives.parameters import shown
from app.i18n import DEFAULT, LANGUAGES, N_

from . import codes

NAME_MAX = 40
MEMBER_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
POLL_ID = re.compile(r"p[0-9a-f]{12}")
# Unicode categories a display name may not hold: controls, formatting (bidi overrides, zero
# widths), surrogates, private use and unassigned code points.
REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn"}


class ClassError(ValueError):
    """A classroom event was refused; `field` names what was wrong."""

    def __init__(self, field: str, message: str, **values: object) -> None:
        self.field = field
        self.message = message  # the catalog's message: %(name)s placeholders filled from values
        self.values = values
        super().__init__(f"{field}: {english(said(message, **values))}")


def said(message: str, **values: object) -> dict:
    """A sentence for a member, kept as its catalog message and values (JSON, so a store keeps
    it) for the web layer to put in each reader's language."""
    return {"message": message, "values": values}


def english(words: dict) -> str:
    """`said` words in English, the catalog's own language."""
    return words["message"] % words["values"] if words["values"] else words["message"]


def fields(data: object, event: str, allowed: tuple[str, ...]) -> dict:
    """Return `data` if it is an object holding only `allowed` keys, else raise naming the key."""
    names = ", ".join(allowed)
    if not isinstance(data, dict):
        raise ClassError(
            "payload", N_("%(event)s takes one object {%(names)s}"), event=event, names=names
        )
    for key in data:
        if key not in allowed:
            raise ClassError(
                shown(key),
                N_("unknown field of %(event)s; allowed: %(names)s"),
                event=event,
                names=names or "none",
            )
    return data


def code(value: object) -> str:
    """Return a typed room code, normalised (see codes.normalize_code), or raise."""
    normal = codes.normalize_code(value)
    if normal is None:
        raise ClassError(
            "code",
            N_("not a room code: %(length)s characters from %(alphabet)s (got %(got)s)"),
            length=codes.CODE_LENGTH,
            alphabet=codes.ALPHABET,
            got=shown(value),
        )
    return normal


def name(value: object) -> str:
    """Return a display name trimmed, checked and HTML-escaped ("" when none was given)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ClassError("name", N_("must be text, got %(got)s"), got=shown(value))
    text = " ".join(value.split())
    if len(text) > NAME_MAX:
        raise ClassError(
            "name", N_("at most %(max)s characters (got %(got)s)"), max=NAME_MAX, got=len(text)
        )
    if any(unicodedata.category(ch) in REFUSED_CATEGORIES for ch in text):
        raise ClassError("name", N_("letters, digits, spaces and punctuation only"))
    return html.escape(text)


def member_id(value: object) -> str:
    """Return the browser's member id, or a new one when it sent none."""
    if value is None:
        return secrets.token_urlsafe(12)
    if not isinstance(value, str) or not MEMBER_ID.fullmatch(value):
        raise ClassError(
            "member_id",
            N_("must be the id the server gave (8-64 letters, digits, - or _), got %(got)s"),
            got=shown(value),
        )
    return value


def poll_id(value: object) -> str:
    """Return a poll id shaped like the ones polls are given, or raise."""
    if not isinstance(value, str) or not POLL_ID.fullmatch(value):
        raise ClassError(
            "poll_id", N_("must be the id of the open poll, got %(got)s"), got=shown(value)
        )
    return value


def new_poll_id() -> str:
    return "p" + secrets.token_hex(6)


def teacher_token(value: object, digest: str) -> None:
    """Raise unless `value` is the teacher token whose digest is `digest`."""
    if value is None:
        raise ClassError("teacher_token", N_("missing: only the room's teacher may do this"))
    if not codes.token_matches(value, digest):
        raise ClassError("teacher_token", N_("not this room's teacher"))


def language(value: object) -> str:
    """Return the language a member reads (`lang` of room_join; English when absent), or raise."""
    if value is None:
        return DEFAULT
    if not isinstance(value, str) or value not in LANGUAGES:
        raise ClassError(
            "lang", N_("must be one of %(allowed)s; got %(got)s"), allowed=", ".join(LANGUAGES),
            got=shown(value),
        )  # fmt: skip
    return value
