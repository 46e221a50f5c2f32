"""The secret key when none is configured: made once, kept in the instance folder, shared.

The quiz signs what it hands out with SECRET_KEY (app/quiz/tokens.py). A key made anew by every
process would orphan every open question at a restart, and two processes behind one address
would refuse each other's questions. So with no COLLECTIVE_LAB_SECRET_KEY the first process to
start writes a random key to `<instance folder>/secret_key` (mode 0600) and every later or
concurrent process reads that same file.
"""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path

FILE_NAME = "secret_key"
KEY_BYTES = 32

log = logging.getLogger(__name__)


def load_or_create(instance: Path | str) -> str:
    """Return the key kept in `instance`/secret_key, writing a new random one if there is none."""
    folder = Path(instance)
    path = folder / FILE_NAME
    kept = _read(path)
    if kept:
        return kept
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    _publish(path, secrets.token_hex(KEY_BYTES), replace=kept is not None)
    return _read(path) or ""


def resolve(configured, instance: Path | str) -> str:
    """Return the configured key as text, else the instance folder's (unwritable: a new one)."""
    if configured not in (None, ""):
        # from_prefixed_env parses values as JSON: a key of digits arrives as an int.
        return str(configured)
    try:
        return load_or_create(instance)
    except OSError as exc:
        log.warning(
            "could not keep a secret key in %s (%s): quiz questions will not survive a restart; "
            "set COLLECTIVE_LAB_SECRET_KEY",
            instance,
            exc.strerror or exc,
        )
        return secrets.token_hex(KEY_BYTES)


def _read(path: Path) -> str | None:
    """Return the stripped key text, "" for an empty file, None when there is no file."""
    try:
        return path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return None


def _publish(path: Path, key: str, *, replace: bool) -> None:
    """Write `key` to a private temporary file, then move it into place in one step.

    A reader never sees a half-written key. Two processes starting at once both write; os.link
    lets only the first one's file become the key, and the other reads it.
    """
    temporary = path.with_name(f".{FILE_NAME}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="ascii") as out:
            out.write(key + "\n")
        if replace:  # an empty file (a crash mid-write by an older version): start over
            os.replace(temporary, path)
            return
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another process got there first: its key is the key
    finally:
        temporary.unlink(missing_ok=True)
