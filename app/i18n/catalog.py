"""The UI strings' catalogs, app/translations/<lang>/LC_MESSAGES/messages.po, for code that has
no Flask request: lesson directives and other pure modules write `translate(lang, "Open in the
lab")`. Flask-Babel reads the same compiled catalogs for templates and views (app/web/i18n.py).

The .po files are compiled to .mo here, when first needed and whenever a .po is newer, so there
is no build step and no binary in git.
"""

from __future__ import annotations

import gettext
import os
import tempfile
import threading
from functools import lru_cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from . import DEFAULT, Phrase

TRANSLATIONS = Path(__file__).resolve().parents[1] / "translations"
DOMAIN = "messages"
_compiling = threading.Lock()


def compile_catalogs(directory: Path = TRANSLATIONS) -> None:
    """Write each messages.mo beside its .po when missing or older; atomically, as several
    processes may start at once."""
    with _compiling:
        for po in directory.glob(f"*/LC_MESSAGES/{DOMAIN}.po"):
            mo = po.with_suffix(".mo")
            if mo.exists() and mo.stat().st_mtime_ns >= po.stat().st_mtime_ns:
                continue
            with po.open("rb") as f:
                catalog = read_po(f)
            fd, tmp = tempfile.mkstemp(dir=po.parent, suffix=".mo.tmp")
            with os.fdopen(fd, "wb") as out:
                write_mo(out, catalog)
            os.replace(tmp, mo)


@lru_cache(maxsize=8)
def _translations(lang: str) -> gettext.NullTranslations:
    compile_catalogs()
    return gettext.translation(DOMAIN, TRANSLATIONS, languages=[lang], fallback=True)


def translate(lang: str, message: str, **values) -> str:
    """`message` in `lang` (English when it has no translation), with %(name)s filled in."""
    text = message if lang == DEFAULT else _translations(lang).gettext(message)
    return text % values if values else text


def translate_text(lang: str, text: object) -> object:
    """`text` in `lang` if it is marked (a `Phrase` from `N_`: its message translated, filled
    in with its values, marked ones translated too); anything else unchanged, so identifiers
    stay as they are."""
    if isinstance(text, Phrase):
        values = {k: translate_text(lang, v) for k, v in text.values.items()}
        return translate(lang, text.message, **values)
    return text
