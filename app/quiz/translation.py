"""A question's translations: the `zh:` block beside the English in a quiz file.

A translation has exactly the text fields of its English question, in the same shape (as many
options, items, pairs and checklist points, in the same order) and with the same numbers and
{placeholders} in each field (`app.i18n.twins`), so it is graded by the English question's
rules and cannot teach a different figure. A problem names the field, e.g. "zh.options[2].why".
"""

from __future__ import annotations

from collections.abc import Callable

from app.i18n import LANGUAGES, twins

from .questions import Question, Translation

TEXT_FIELDS = {
    "single": ("options",),
    "multiple": ("options",),
    "numeric": (),
    "predict": (),
    "order": ("items",),
    "match": ("pairs", "distractors"),
    "explain": ("model_answer", "checklist"),
}


def read_translations(q: Question, raw: dict, text: Callable, fail: Callable) -> dict:
    """Read every translation block of one question (`text`/`fail` are the schema's own)."""
    out = {}
    for lang in LANGUAGES[1:]:
        block = raw.get(lang)
        if block is not None:
            out[lang] = _translation(q, block, lang, text, fail)
    return out


def _translation(q: Question, block, lang: str, text: Callable, fail: Callable) -> Translation:
    if not isinstance(block, dict):
        fail(lang, "must be a mapping of the question's translated fields")
    # Exactly the text fields this question has: a match without distractors takes none.
    allowed = {"prompt"} | {f for f in ("explanation", *TEXT_FIELDS[q.kind]) if getattr(q, f)}
    unknown = set(block) - allowed
    if unknown:
        fail(lang, f"{sorted(unknown)} not translatable fields of this {q.kind} question")
    missing = allowed - set(block)
    if missing:
        fail(lang, f"misses {sorted(missing)}")

    def same(name: str, english: str, value) -> str:
        value = text(f"{lang}.{name}", raw=value)
        problems = twins.differences(english, value)
        if problems:
            fail(f"{lang}.{name}", "; ".join(problems))
        return value

    def each(name: str, english: tuple, read: Callable) -> tuple:
        value = block.get(name)
        if not isinstance(value, list) or len(value) != len(english):
            fail(f"{lang}.{name}", f"must list {len(english)} entries, as the English does")
        return tuple(
            read(f"{name}[{i}]", v, en)
            for i, (v, en) in enumerate(zip(value, english, strict=True), start=1)
        )

    def option(name: str, value, en) -> tuple[str, ...]:
        return _entry(name, value, {"text": en.text, "why": en.why}, same, fail, lang)

    def pair(name: str, value, en) -> tuple[str, ...]:
        return _entry(
            name, value, {"left": en.left, "right": en.right, "why": en.why}, same, fail, lang
        )

    def line(name: str, value, en: str) -> str:
        return same(name, en, value)

    fields = {"prompt": same("prompt", q.prompt, block.get("prompt"))}
    if q.explanation:
        fields["explanation"] = same("explanation", q.explanation, block.get("explanation"))
    if q.model_answer:
        fields["model_answer"] = same("model_answer", q.model_answer, block.get("model_answer"))
    for name, read in (
        ("options", option),
        ("items", line),
        ("pairs", pair),
        ("distractors", line),
        ("checklist", line),
    ):
        if getattr(q, name):
            fields[name] = each(name, getattr(q, name), read)
    return Translation(**fields)


def _entry(name, value, english: dict, same, fail, lang) -> tuple[str, ...]:
    """One option or pair: the same keys as the English, each with the same numbers."""
    wanted = {k for k, en in english.items() if en}
    if not isinstance(value, dict) or set(value) != wanted:
        fail(f"{lang}.{name}", f"must be a mapping with exactly the keys {sorted(wanted)}")
    return tuple(same(f"{name}.{k}", en, value[k]) if en else "" for k, en in english.items())
