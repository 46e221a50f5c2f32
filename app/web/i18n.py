"""The page's language: chosen, remembered, and handed to templates and scripts.

A request's language is, in order: `?lang=` on the URL (a page remembers it in the `lang`
cookie; an embed does not, so a wiki's iframe never changes the reader's own choice), the
cookie, then the browser's Accept-Language; English otherwise. An unknown `?lang=` is refused
with the allowed values, like every other parameter.

UI strings go through Flask-Babel: `_()` in templates and Python, `_()` in static/js (from
static/js/i18n.js) for the same catalog, app/translations/<lang>/LC_MESSAGES/messages.po. The
.po is compiled to .mo when the app starts (and whenever the .po is newer), so there is no
build step and no binary in git. Scripts get the messages their files use as JSON: inline in
every page (`#messages-data`) and at /i18n/<lang>.json.
"""

from __future__ import annotations

import json
from functools import lru_cache
from urllib.parse import parse_qsl, urlencode

from babel.messages.pofile import read_po
from flask import Blueprint, Flask, Request, Response, g, jsonify, request
from flask_babel import Babel
from werkzeug.utils import cached_property

from app.collectives.names import algorithm_name
from app.i18n import DEFAULT, HTML_LANG, LANGUAGES, NAMES, known_language
from app.i18n.catalog import TRANSLATIONS, compile_catalogs, translate
from app.i18n.errors import translate_error

from .errors import InputError, error_text

COOKIE = "lang"
COOKIE_MAX_AGE_S = 365 * 24 * 3600
# Messages scripts use: their .po locations start with one of these (the algorithms' names
# are the server's, looked up by scripts at run time: static/js/i18n.js algorithmName).
SCRIPT_SOURCES = ("static/js/", "app/collectives/names.py")

bp = Blueprint("i18n", __name__)
babel = Babel()


class LanguageRequest(Request):
    """A request whose `args` leave `lang=` out: the language belongs to the request, not to
    the fields of what it asks for, so every page, embed and API takes ?lang= and no parser of
    fields needs to know it. `lang_arg` is its value (None when absent)."""

    @cached_property
    def _query_pairs(self) -> list[tuple[str, str]]:
        return parse_qsl(self.query_string.decode("utf-8", "replace"), keep_blank_values=True)

    @cached_property
    def args(self):
        return self.parameter_storage_class([(k, v) for k, v in self._query_pairs if k != "lang"])

    @cached_property
    def lang_arg(self) -> str | None:
        return next((v for k, v in self._query_pairs if k == "lang"), None)


def init_app(app: Flask) -> None:
    """Compile the catalogs, choose each request's language, remember a chosen one."""
    compile_catalogs()
    app.request_class = LanguageRequest
    babel.init_app(
        app, locale_selector=page_language, default_translation_directories=str(TRANSLATIONS)
    )
    app.register_blueprint(bp)
    app.before_request(choose_language)
    app.jinja_env.globals.update(
        languages=[(code, NAMES[code]) for code in LANGUAGES],
        page_language=page_language,
        html_lang=lambda: HTML_LANG[page_language()],
        language_url=language_url,
        script_messages=lambda: script_messages(page_language()),
        error_text=error_text,
    )
    app.jinja_env.filters["algorithm_name"] = lambda algorithm: translate(
        page_language(), algorithm_name(algorithm)
    )

    @app.after_request
    def localize(response: Response) -> Response:
        if response.is_json and 400 <= response.status_code < 500:
            _translate_json_error(response)
        chosen = g.get("chosen_language")
        if chosen and not request.path.startswith(("/embed/", "/api/", "/i18n/")):
            response.set_cookie(COOKIE, chosen, max_age=COOKIE_MAX_AGE_S, samesite="Lax")
        if response.mimetype == "text/html":
            response.vary.update(("Cookie", "Accept-Language"))
        return response


def _translate_json_error(response: Response) -> None:
    """Put an API's {"error": ...} in the request's language (app/i18n/errors.py)."""
    lang = page_language()
    data = response.get_json(silent=True) if lang != DEFAULT else None
    if isinstance(data, dict) and isinstance(data.get("error"), str):
        data["error"] = translate_error(lang, data["error"])
        response.set_data(json.dumps(data, ensure_ascii=False))


def page_language() -> str:
    """The language of this request, as `choose_language` set it (English outside a request)."""
    return g.get("language", DEFAULT)


def choose_language() -> None:
    """Set g.language: ?lang=, the remembered choice, the browser's, English."""
    g.language = DEFAULT  # what the error page for a bad ?lang= is written in
    g.language = language_of(request)
    if request.lang_arg is not None:
        g.chosen_language = g.language


def language_of(req: LanguageRequest) -> str:
    """The language `req` asks for: ?lang= (InputError if the app does not speak it), the
    `lang` cookie, the browser's Accept-Language, English."""
    asked = req.lang_arg
    if asked is not None:
        if asked not in LANGUAGES:
            raise InputError(f"lang: must be one of {', '.join(LANGUAGES)}, got {asked[:40]!r}")
        return asked
    if req.cookies.get(COOKIE) in LANGUAGES:
        return req.cookies[COOKIE]
    return browser_language(req.accept_languages)


def connection_language(environ: dict) -> str:
    """The language of a Socket.IO connection, read from its handshake request as a page's is:
    `lang` in the handshake's query (the lab's client sends its page's), the cookie, the
    browser's; InputError for a `lang` the app does not speak."""
    return language_of(LanguageRequest(environ))


def browser_language(accepted) -> str:
    """The first of the browser's languages (by quality) that the app speaks, else English."""
    known = (known_language(value) for value, _quality in accepted)
    return next((lang for lang in known if lang), DEFAULT)


def language_url(lang: str) -> str:
    """This page's URL in `lang`: the same path and query, with lang= set."""
    args = list(request.args.items(multi=True))
    return request.path + "?" + urlencode([*args, ("lang", lang)])


@bp.get("/i18n/<lang>.json")
def messages_json(lang: str):
    """The translations the scripts use, {English: translated}; {} for English."""
    if lang not in LANGUAGES:
        raise InputError(f"lang: must be one of {', '.join(LANGUAGES)}, got {lang[:40]!r}")
    response = jsonify(script_messages(lang))
    response.cache_control.max_age = 300
    return response


@lru_cache(maxsize=len(LANGUAGES))
def script_messages(lang: str) -> dict[str, str]:
    """The messages of static/js/ in `lang`, {msgid: translation}, for static/js/i18n.js."""
    path = TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po"
    if lang == DEFAULT or not path.exists():
        return {}
    with path.open("rb") as f:
        catalog = read_po(f)
    return {
        m.id: m.string
        for m in catalog
        if m.id
        and m.string
        and isinstance(m.id, str)
        and any(file.startswith(SCRIPT_SOURCES) for file, _line in m.locations)
    }
