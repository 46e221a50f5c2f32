"""The toolkit's texts in other languages: the `zh:` block beside each English entry.

A drill, a step, a cause of the hang, a line of the cheat sheet... holds its English text fields
and, as its last key, a `zh:` mapping with the same fields translated. A field's `Spec` says its
shape: TEXT (a string), LINES (a list of strings, as many as the English) or `each(key)` (the
English is a list of mappings; the translation lists that key of each, in order). The
translation must keep every number and {placeholder} of the English field
(`app.i18n.twins.differences`), so it cannot teach a different figure; formulas, answers, ids
and numbers that code uses are never in a block. A problem names the entry and the field, e.g.
"drills.yaml: drill 'ring-allreduce' step 3: zh.explain: numbers differ from the English: ...".
An entry with no block reads in English (tests/toolkit/test_translations.py wants every block).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.i18n import DEFAULT, LANGUAGES, twins

TEXT = "a string"
LINES = "a list of strings"
EACH = "each "


def each(key: str) -> str:
    """The spec of a list of mappings whose `key` is translated: the block lists those texts."""
    return EACH + key


class TranslationError(ValueError):
    """A translation block does not match its English entry; the message names both."""


@dataclass(frozen=True)
class Entry:
    """One translatable entry of a toolkit file: where it is, its mapping, its text fields."""

    where: str  # e.g. "drills.yaml: drill 'ring-allreduce' step 3"
    raw: dict
    spec: dict[str, str]  # field -> TEXT, LINES or each(key)


def check_entries(entries: list[Entry]) -> None:
    """Raise TranslationError at the first language block that differs from its English."""
    for entry in entries:
        for lang in LANGUAGES:
            if lang != DEFAULT and entry.raw.get(lang) is not None:
                _fields(entry, lang)


def missing(entries: list[Entry]) -> list[str]:
    """Where each entry without a block for some language is, e.g. "... : no zh block"."""
    return [
        f"{e.where}: no {lang} block"
        for e in entries
        for lang in LANGUAGES
        if lang != DEFAULT and e.raw.get(lang) is None
    ]


def in_language(entry: Entry, lang: str) -> dict:
    """The entry as a reader of `lang` gets it: its text fields translated (the English where
    there is no block), every other key as written; no language blocks."""
    out = {k: v for k, v in entry.raw.items() if k not in LANGUAGES}
    if lang == DEFAULT or entry.raw.get(lang) is None:
        return out
    for name, value in _fields(entry, lang).items():
        kind = entry.spec[name]
        if kind in (TEXT, LINES):
            out[name] = value
        else:  # a list of mappings: translate one key of each
            key = kind.removeprefix(EACH)
            out[name] = [{**item, key: v} for item, v in zip(out[name], value, strict=True)]
    return out


def _fields(entry: Entry, lang: str) -> dict:
    """The block's fields, checked: exactly the entry's text fields, same shapes and numbers."""
    block = entry.raw[lang]

    def fail(field: str, problem: str) -> TranslationError:
        return TranslationError(f"{entry.where}: {field}: {problem}")

    if not isinstance(block, dict):
        raise fail(lang, "must be a mapping of the entry's translated fields")
    wanted = {name for name in entry.spec if entry.raw.get(name)}
    if set(block) - wanted:
        raise fail(lang, f"{sorted(set(block) - wanted)} are not text fields of this entry")
    if wanted - set(block):
        raise fail(lang, f"misses {sorted(wanted - set(block))}")
    out = {}
    for name in sorted(wanted):
        kind, english, value = entry.spec[name], entry.raw[name], block[name]
        if kind == TEXT:
            out[name] = _same(english, value, lambda p, n=name: fail(f"{lang}.{n}", p))
            continue
        if kind != LINES:
            english = [item[kind.removeprefix(EACH)] for item in english]
        if not isinstance(value, list) or len(value) != len(english):
            raise fail(f"{lang}.{name}", f"must list {len(english)} entries, as the English does")
        out[name] = [
            _same(en, v, lambda p, n=f"{name}[{i}]": fail(f"{lang}.{n}", p))
            for i, (en, v) in enumerate(zip(english, value, strict=True), start=1)
        ]
    return out


def _same(english: str, value: object, fail) -> str:
    if not isinstance(value, str) or not value.strip():
        raise fail("must be non-empty text")
    problems = twins.differences(str(english), value)
    if problems:
        raise fail("; ".join(problems))
    return value
