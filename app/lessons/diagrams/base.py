"""What every diagram kind shares: the drawn result, its error, and its typed parameters."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from app.i18n.catalog import translate


class DiagramError(ValueError):
    """A diagram's kind or parameters are wrong; the message says what is allowed."""


@dataclass(frozen=True)
class Diagram:
    svg: str
    caption: str


class Params:
    """The key=value parameters of one diagram, read with types and bounds."""

    def __init__(self, kind: str, raw: dict[str, str], language: str = "en") -> None:
        self.kind = kind
        self.raw = dict(raw)
        self.used: set[str] = set()
        # The words of the picture (title, description, caption, labels) in the page's language.
        self.translate = functools.partial(translate, language)

    def integer(self, name: str, default: int, low: int, high: int) -> int:
        self.used.add(name)
        value = self.raw.get(name)
        if value is None:
            return default
        try:
            number = int(value)
        except ValueError:
            number = None
        if number is None or not low <= number <= high:
            raise DiagramError(
                f"{self.kind}: {name} must be an integer in {low}..{high}, got {value!r}"
            )
        return number

    def choice(self, name: str, default: str | None, choices: tuple[str, ...]) -> str | None:
        self.used.add(name)
        value = self.raw.get(name, default)
        if value is not None and value not in choices:
            raise DiagramError(
                f"{self.kind}: {name} must be one of {', '.join(choices)}, got {value!r}"
            )
        return value

    def flag(self, name: str, default: bool) -> bool:
        value = self.choice(
            name, "yes" if default else "no", ("yes", "no", "1", "0", "true", "false")
        )
        return value in ("yes", "1", "true")

    def finish(self) -> None:
        """Reject parameters the kind does not read (a typo must not pass silently)."""
        unknown = sorted(set(self.raw) - self.used)
        if unknown:
            raise DiagramError(
                f"{self.kind}: unknown parameter(s) {', '.join(unknown)}; "
                f"allowed: {', '.join(sorted(self.used))}"
            )
