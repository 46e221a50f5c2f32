"""The app's languages, and the rules a translation must keep to be the same text.

`LANGUAGES` lists what the app speaks (English first: the default and the source of every
translation). `twins` holds the checks a translated lesson, question or glossary entry must pass
against its English original: the same numbers, formulas, placeholders and live elements.
Pure Python; the web layer's language choice (Flask-Babel) is in `app.web.i18n`.
"""

LANGUAGES = ("en", "zh")
DEFAULT = "en"
NAMES = {"en": "English", "zh": "中文"}
HTML_LANG = {"en": "en", "zh": "zh-Hans"}


def known_language(tag: str) -> str | None:
    """The app's language for a language tag ("zh", "zh-CN", "zh_Hans", "EN"...), or None."""
    base = tag.replace("_", "-").split("-")[0].lower()
    return base if base in LANGUAGES else None


class Phrase(str):
    """English text marked for translation (`N_`): equal to the English, and remembering its
    message and values ("The terms at %(size)s", {"size": "1 MiB"}) so the web layer can say
    the same in the page's language (`catalog.translate_text`). Unmarked text (identifiers,
    algorithm names) is plain `str` and is never translated by accident."""

    message: str
    values: dict


def N_(message: str, **values: object) -> str:
    """Mark a UI string in a module that has no request (the catalog of algorithms, a
    calculator's labels) so `make messages` extracts it; the page translates it where it is
    shown, with `_(text)` in the web layer or `catalog.translate(lang, text)`.

    Return the English (filled in with `values`, if any) as a `Phrase`, a `str` that
    remembers the message and the values, so the page can say the same in its language."""
    phrase = Phrase(message % values if values else message)
    phrase.message, phrase.values = message, values
    return phrase


def sentences(first: str, *then: str) -> str:
    """Marked sentences one after another: a space between them in English, as the
    translation of "%(first)s %(then)s" says in another language."""
    if not then:
        return first
    return N_("%(first)s %(then)s", first=first, then=sentences(*then))


def listing(first: str, *rest: str) -> str:
    """Marked items as a comma list ("a, b, c"), in the page's language's punctuation."""
    if not rest:
        return first
    return N_("%(head)s, %(tail)s", head=first, tail=listing(*rest))
