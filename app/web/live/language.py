"""The language a lab connection's runs are narrated in (issue 20).

It is read from the Socket.IO handshake as a page's is from its request (app/web/i18n.py):
`lang` in the handshake's query (the lab's client sends its page's, so an embed's `?lang=zh`
reaches its runs without the cookie an embed never sets), then the `lang` cookie, then the
browser's Accept-Language. A connection asking for a language the lab does not speak is
refused, with an error naming `lang` and the allowed values, as `?lang=` on a page is.
"""

from __future__ import annotations

import socketio

from ..errors import InputError
from ..i18n import connection_language


def check(sid: str, environ: dict, auth: object = None) -> None:
    """The `connect` handler: refuse a handshake whose `lang` the lab does not speak."""
    try:
        connection_language(environ)
    except InputError as e:
        raise socketio.exceptions.ConnectionRefusedError(str(e)) from None


def of(server: socketio.Server, sid: str, namespace: str) -> str:
    """The language of client `sid`'s connection (checked by `check` when it connected)."""
    return connection_language(server.get_environ(sid, namespace) or {})
