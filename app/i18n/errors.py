"""Error messages in the reader's language, read back from the English the checks write.

Every check in the engine, the cost model and the web layer says what is wrong in one of a few
shapes: "ranks must be an integer in 2..64; got 65", "topology is required: one of flat, ...".
Each shape is a template below, marked for the catalog; a message that fits one is translated
by the catalog's translation of its template, with its parts (what is allowed, the context)
translated the same way, and the field names, values and identifiers kept as written. A
message that fits none stays English: it still names the field and the allowed values.
"""

from __future__ import annotations

import re
from functools import cache

from . import DEFAULT, N_
from .catalog import translate

# Whole messages, most specific first.
MESSAGES = (
    N_("%(field)s is required: %(allowed)s"),
    N_("%(field)s is required"),
    N_("%(field)s must be one of %(choices)s; got %(got)s"),
    N_("%(field)s must be %(allowed)s; got %(got)s"),
    N_("%(field)s must be %(allowed)s, got %(got)s"),
    N_("unknown parameter %(name)s; allowed: %(choices)s"),
    N_("unknown field %(name)s; the fields are %(choices)s"),
    N_("%(field)s is given more than once"),
    N_("no such page: %(path)s"),
    N_("%(method)s is not allowed on %(path)s; use %(allowed)s"),
    N_("body: at most %(count)s bytes"),
    N_("%(field)s: this question's answer was already graded; draw a new question to try again"),
    # The measure page's checks (app/web/live/measure.py, app/measure/config.py).
    N_("%(field)s: %(got)s is not a whole number in %(low)s..%(high)s"),
    N_("%(field)s: %(got)s is not a whole number (%(low)s..%(high)s)"),
    N_("%(field)s: %(got)s is not a number (%(low)s..%(high)s)"),
    N_("%(field)s: %(got)s is outside %(low)s..%(high)s"),
    N_("%(field)s: %(got)s is not one of %(choices)s"),
    N_("%(field)s: not a field; the fields are %(choices)s"),
    N_("%(field)s: missing; the fields are %(choices)s"),
    N_("parameters: send one JSON object with %(choices)s"),
)
# The parts a message's %(allowed)s is made of.
PARTS = (
    N_("%(allowed)s for %(what)s"),
    N_("an integer in %(low)s..%(high)s"),
    N_("an integer >= %(low)s"),
    N_("a number in %(range)s"),
    N_("one of %(choices)s"),
    N_("a power of two"),
    N_("true or false"),
)
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


@cache
def _pattern(template: str) -> re.Pattern:
    parts = PLACEHOLDER.split(template)  # text, name, text, name, ..., text
    regex = "".join(
        re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts)
    )
    return re.compile(regex, re.S)


def translate_error(lang: str, message: str) -> str:
    """`message` in `lang` if it has one of the checks' shapes, else as it is."""
    if lang == DEFAULT:
        return message
    return _translated(lang, message, MESSAGES)


def _translated(lang: str, text: str, templates: tuple[str, ...]) -> str:
    for template in templates:
        match = _pattern(template).fullmatch(text)
        if match is None:
            continue
        values = match.groupdict()
        for name in ("allowed", "what"):
            if name in values:
                values[name] = _translated(lang, values[name], PARTS)
        return translate(lang, template, **values)
    return text
