"""Errors outside any view: JSON under /api/, a calm HTML page elsewhere, never a traceback.

Routing errors (no such URL, wrong method) happen before a blueprint is chosen, so its own
error handlers never see them; these app-level handlers do.
"""

from __future__ import annotations

import logging

from flask import Flask, current_app, jsonify, render_template, request
from flask_babel import gettext as _
from werkzeug.exceptions import BadRequest, HTTPException, InternalServerError

from app.i18n import N_
from app.i18n.errors import translate_error

log = logging.getLogger(__name__)

# An error page's title in the reader's language (the JSON under /api/ keeps HTTP's English).
PAGE_TITLES = {
    400: N_("Bad Request"),
    403: N_("Forbidden"),
    404: N_("Not Found"),
    405: N_("Method Not Allowed"),
    413: N_("Request Entity Too Large"),
    429: N_("Too Many Requests"),
    500: N_("Internal Server Error"),
    503: N_("Service Unavailable"),
}


class InputError(ValueError):
    """A request's input is wrong; the message names the field and what is allowed.

    Raised by the web layer's parsers (a simulate's parameters, a quiz query); a view that
    lets it through answers 400 with the message (JSON under /api/, a page elsewhere).
    """


def init_app(app: Flask) -> None:
    """Answer every HTTP error of `app` as JSON for /api/ paths and as a page for the rest."""
    app.register_error_handler(HTTPException, error_response)
    app.register_error_handler(InputError, lambda e: error_response(BadRequest(str(e))))
    app.register_error_handler(Exception, _unexpected)


def error_response(e: HTTPException):
    """Answer `e` as JSON under /api/ and as a page elsewhere, keeping Allow and Retry-After."""
    message = e.description or e.name
    if e.code == 405 and e.valid_methods:
        allowed = ", ".join(m for m in e.valid_methods if m not in ("HEAD", "OPTIONS"))
        message = f"{request.method} is not allowed on {request.path}; use {allowed}"
    elif e.code == 404:
        message = f"no such page: {request.path}"
    elif e.code == 413:  # past MAX_CONTENT_LENGTH, for every endpoint that reads a body
        message = f"body: at most {current_app.config['MAX_CONTENT_LENGTH']} bytes"
    if request.path.startswith("/api/"):
        response = jsonify(error=message)
    else:
        title = _(PAGE_TITLES[e.code]) if e.code in PAGE_TITLES else e.name
        response = render_template(
            "pages/error.html", code=e.code, title=title, message=error_text(message)
        )
    headers = e.get_response().headers  # keeps Allow on 405 and Retry-After where set
    return response, e.code, [(k, v) for k, v in headers.items() if k in ("Allow", "Retry-After")]


def error_text(message: str) -> str:
    """`message` in the page's language (the checks' shapes; others as written)."""
    from .i18n import page_language  # i18n imports this module's InputError

    return translate_error(page_language(), message)


def _unexpected(e: Exception):
    log.exception("unhandled error on %s %s", request.method, request.path)
    failed = InternalServerError("the server failed unexpectedly; the error was logged")
    return error_response(failed)
