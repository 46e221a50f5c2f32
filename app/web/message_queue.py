"""Several processes, one app: what `python -m app` checks before it serves behind Redis.

Flask-SocketIO's Redis manager connects lazily, in a background thread that retries forever:
a mistyped URL or a Redis that is down would give a server that starts, looks healthy, and
silently never reaches the students on the other processes. So the command line pings the
queue once, before gunicorn starts, and stops with one line naming the URL when it cannot.

The secret key must be the same in every process. With no SECRET_KEY configured, processes
that share an instance folder (one machine, one checkout) already share the key kept there
(app/web/instance_secret.py); processes on several machines do not, hence the warning.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import redis

SCHEMES = ("redis", "rediss")  # what Flask-SocketIO hands to its Redis manager
CONNECT_TIMEOUT_S = 3.0  # an address that drops packets must not hang the start-up
KEY_WARNING = (
    "MESSAGE_QUEUE is set but SECRET_KEY is not: processes on this machine share the key kept "
    "in the instance folder; for processes on several machines set COLLECTIVE_LAB_SECRET_KEY "
    "to the same long random string in every one"
)


class Unreachable(Exception):
    """The message queue did not answer; the message is one line for the person starting it."""


def check(url: str) -> None:
    """Ping the Redis at `url`; raise Unreachable saying why, with any password hidden."""
    if urlsplit(url).scheme not in SCHEMES:
        raise Unreachable(f"message queue {shown(url)!r} is not a Redis URL (redis://host:port/db)")
    try:
        client = redis.Redis.from_url(
            url, socket_connect_timeout=CONNECT_TIMEOUT_S, socket_timeout=CONNECT_TIMEOUT_S
        )
    except ValueError as exc:  # a malformed URL
        raise Unreachable(f"message queue {shown(url)!r} is not a Redis URL: {exc}") from None
    try:
        client.ping()
    except redis.RedisError as exc:
        raise Unreachable(
            f"cannot reach the message queue {shown(url)} ({_reason(exc)}); start redis-server "
            "there or correct --message-queue / COLLECTIVE_LAB_MESSAGE_QUEUE"
        ) from None
    finally:
        client.close()


def key_warning(settings) -> str | None:
    """The warning to print at start-up for these settings, or None."""
    if settings.get("MESSAGE_QUEUE") and settings.get("SECRET_KEY") in (None, ""):
        return KEY_WARNING
    return None


def shown(url: str) -> str:
    """`url` with its password replaced by ***, fit for a log line."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def _reason(exc: Exception) -> str:
    """The first line of redis-py's message, which can span several lines."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
