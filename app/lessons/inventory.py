"""What a lesson asks its reader to do, read from the learner's view of its source.

Its live elements (each directive with its parameters and file line), its challenges and
predict boxes, and whether it has notes for teachers. The pacing (`pacing.py`) and the caption
rule (`caption_problems`) read lessons through here, so the page, the practice time and the
checks count the same things. Nothing is rendered: this is cheap enough for the index page.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from app.course import Lesson

from . import directives
from .render import has_instructor_notes, lesson_tokens

RING_EMBEDS_IN_COURSE = 3  # the ring allreduce animation belongs in its lesson, not everywhere


@dataclass(frozen=True)
class Embed:
    """One directive as written: @lab, @calc, @diagram or @quiz, at a line of the file."""

    name: str
    target: str
    params: dict[str, str]
    line: int

    @property
    def caption(self) -> str:
        return self.params.get("caption", "")

    def place(self, lesson: Lesson) -> str:
        return f"{lesson.where}:{self.line}"


@dataclass(frozen=True)
class Inventory:
    embeds: tuple[Embed, ...]
    containers: Counter  # container name -> how many the learner meets
    has_instructor_notes: bool

    def count(self, name: str) -> int:
        """How many @<name> directives (lab, calc, ...) the learner meets."""
        return sum(1 for e in self.embeds if e.name == name)


def take_inventory(lesson: Lesson) -> Inventory:
    """List what the learner's page of `lesson` holds; a malformed directive is skipped (the
    renderer reports it)."""
    tokens = lesson_tokens(lesson.body)
    embeds = []
    for i, token in enumerate(tokens[:-1]):
        content = tokens[i + 1].content.split("\n")[0]
        if token.type != "paragraph_open" or not content.startswith("@"):
            continue
        try:
            d = directives.parse(content)
        except directives.DirectiveError:
            continue
        embeds.append(Embed(d.name, d.target, d.params, lesson.body_line + token.map[0]))
    return Inventory(tuple(embeds), _containers(tokens), has_instructor_notes(lesson.body))


def _containers(tokens) -> Counter:
    return Counter(
        t.type.removeprefix("container_").removesuffix("_open")
        for t in tokens
        if t.type.startswith("container_") and t.type.endswith("_open")
    )


def lab_identity(embed: Embed) -> tuple[str, str]:
    """What makes two @labs the same animation: collective/algorithm and the rank count."""
    return embed.target, embed.params.get("ranks", str(directives.LAB_DEFAULT_RANKS))


def caption_problems(lessons: list[Lesson]) -> list[str]:
    """Every embed that breaks the caption rule of issue 16, one line each.

    Each @lab and @calc has a caption asking the reader something (a question mark); a lesson
    embeds one animation (collective/algorithm, ranks) once; the course embeds allreduce/ring
    at most RING_EMBEDS_IN_COURSE times. A check, not a render error: lessons keep rendering.
    """
    problems, rings = [], []
    for lesson in lessons:
        seen: dict[tuple[str, str], Embed] = {}
        for embed in take_inventory(lesson).embeds:
            if embed.name not in ("lab", "calc"):
                continue
            if "?" not in embed.caption and "？" not in embed.caption:  # Chinese: full-width
                problems.append(
                    f"{embed.place(lesson)}: @{embed.name} {embed.target}: the caption must ask "
                    f"the reader something (a '?'); got {embed.caption!r}"
                )
            if embed.name != "lab":
                continue
            key = lab_identity(embed)
            if key in seen:
                problems.append(
                    f"{embed.place(lesson)}: @lab {key[0]} ranks={key[1]} again (first at line "
                    f"{seen[key].line}): show a different view or none"
                )
            seen.setdefault(key, embed)
            if embed.target == "allreduce/ring":
                rings.append(embed.place(lesson))
    if len(rings) > RING_EMBEDS_IN_COURSE:
        problems.append(
            f"the course embeds allreduce/ring {len(rings)} times (at most "
            f"{RING_EMBEDS_IN_COURSE}): {', '.join(rings)}"
        )
    return problems
