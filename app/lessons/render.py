"""Render a lesson's Markdown to safe HTML: anchored headings, callouts, math, code, directives.

The pipeline: normalise container fences and parse with the lessons' Markdown dialect
(`markdown`), then walk the tokens once to expand directives and turn LaTeX into MathML,
render, and finally sanitize everything against an explicit allow-list (`sanitize`).
Problems are reported with the lesson file and line; `strict=False` shows them in the page
instead of raising.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from pathlib import Path

from markdown_it.token import Token

from app.collectives import Limits
from app.i18n import DEFAULT

from . import directives
from .loader import Course, Lesson
from .markdown import markdown, normalise_containers, to_mathml
from .sanitizer import sanitize


class LessonRenderError(ValueError):
    """A lesson's body cannot be rendered; the message lists each problem with its line."""


@dataclass(frozen=True)
class Heading:
    level: int
    id: str
    text: str


@dataclass(frozen=True)
class RenderedLesson:
    html: str
    toc: tuple[Heading, ...]
    live: tuple[str, ...]  # the live elements, e.g. ("lab:allreduce/ring", "calc:ddp_overlap")
    errors: tuple[str, ...]
    has_instructor_notes: bool = False  # in the source, whichever view this is


# -- the token walk ------------------------------------------------------------------------------


def drop_instructor_notes(tokens: list[Token]) -> list[Token]:
    out, skip_level = [], None
    for token in tokens:
        if skip_level is not None:
            if token.type == "container_instructor_close" and token.level == skip_level:
                skip_level = None
            continue
        if token.type == "container_instructor_open":
            skip_level = token.level
            continue
        out.append(token)
    return out


def inline_text(token: Token) -> str:
    """Return a heading's text without markup or the permalink symbol."""
    parts = []
    for child in token.children or []:
        if child.type in ("text", "code_inline", "math_inline", "math_inline_double"):
            parts.append(child.content)
    return "".join(parts).strip()


def _make_data_cell(tokens: list[Token], i: int) -> None:
    """Turn the empty header cell at tokens[i] (a table's top-left corner, usually) into a
    data cell: a header with no text names nothing for a screen reader."""
    tokens[i].tag = "td"
    close = next(j for j in range(i + 1, len(tokens)) if tokens[j].type == "th_close")
    tokens[close].tag = "td"


def _name_a_formula_header(inline: Token) -> None:
    """Label the formula of a header cell that holds nothing else with its TeX source.

    A header must have text a checker can read, and axe-core reads none inside MathML; a
    formula beside words needs no label (the words name the column)."""
    parts = [c for c in inline.children or [] if c.type != "text" or c.content.strip()]
    if len(parts) == 1 and parts[0].type in ("math_inline", "math_inline_double"):
        parts[0].meta = {**(parts[0].meta or {}), "label": parts[0].content.strip()}


class _Walk:
    """Expand directives and convert math in one pass over the tokens, collecting problems."""

    def __init__(self, where: str, first_line: int, ctx: directives.Context | None) -> None:
        self.where = where
        self.first_line = first_line
        self.ctx = ctx
        self.errors: list[str] = []

    def problem(self, line: int | None, message: str) -> str:
        place = f"{self.where}:{self.first_line + line}" if line is not None else self.where
        text = f"{place}: {message}" if self.where else message
        self.errors.append(text)
        return f'<div class="render-error" role="alert">{escape(text)}</div>'

    def run(self, tokens: list[Token]) -> list[Token]:
        out: list[Token] = []
        i = 0
        while i < len(tokens):
            token = tokens[i]
            line = token.map[0] if token.map else None
            if (
                self.ctx is not None
                and token.type == "paragraph_open"
                and i + 2 < len(tokens)
                and tokens[i + 1].content.startswith("@")
                and directives.DIRECTIVE_LINE.match(tokens[i + 1].content.split("\n")[0])
            ):
                html_token = Token("html_block", "", 0, map=token.map)
                html_token.content = self.directive(tokens[i + 1].content, line) + "\n"
                out.append(html_token)
                i += 3
                continue
            if token.type == "th_open" and not tokens[i + 1].content.strip():
                _make_data_cell(tokens, i)
            elif token.type == "th_open":
                _name_a_formula_header(tokens[i + 1])
            if token.type == "math_block":
                self.math(token, True, line)
            elif token.type == "inline":
                for child in token.children or []:
                    if child.type in ("math_inline", "math_inline_double"):
                        self.math(child, child.type == "math_inline_double", line)
            out.append(token)
            i += 1
        return out

    def directive(self, content: str, line: int | None) -> str:
        first = content.split("\n")[0]
        name = first[1:].split()[0] if first[1:].split() else ""
        if "\n" in content.strip():
            return self.problem(
                line, f"@{name} must be a paragraph of its own (a blank line after it)"
            )
        try:
            return directives.render(directives.parse(content), self.ctx)
        except (directives.DirectiveError, ValueError) as exc:
            return self.problem(line, str(exc))

    def math(self, token: Token, display: bool, line: int | None) -> None:
        try:
            token.meta = {**(token.meta or {}), "mathml": to_mathml(token.content, display)}
        except ValueError as exc:
            self.problem(line, str(exc))


def render_markdown(
    text: str,
    *,
    where: str = "",
    first_line: int = 1,
    ctx: directives.Context | None = None,
    instructor: bool = False,
    anchors: Sequence[str] | None = None,
) -> tuple[str, list[Token], list[str]]:
    """Render Markdown to unsanitized HTML; return (html, tokens, problems).

    anchors: the heading ids to use, in order (a translation takes its English twin's, so a
    link to /lessons/<slug>#<anchor> lands on the same section in every language).
    """
    md = markdown()
    text, container_problems = normalise_containers(text)
    walk = _Walk(where, first_line, ctx)
    for line, message in container_problems:
        walk.problem(line, message)
    env: dict = {"language": ctx.language if ctx else DEFAULT}  # default callout titles
    tokens = md.parse(text, env)
    if anchors is not None:
        _set_anchors(tokens, anchors)
    if not instructor:
        tokens = drop_instructor_notes(tokens)
    tokens = walk.run(tokens)
    return md.renderer.render(tokens, md.options, env), tokens, walk.errors


def heading_anchors(text: str) -> list[str]:
    """The ids of a lesson's h2 and h3 headings in order, instructor notes included."""
    return [
        t.attrs.get("id", "")
        for t in lesson_tokens(text, instructor=True)
        if t.type == "heading_open" and t.tag in ("h2", "h3")
    ]


def _set_anchors(tokens: list[Token], anchors: Sequence[str]) -> None:
    """Give the h2/h3 headings the ids `anchors` lists, in order, and their ¶ links too."""
    headings = [
        i for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag in ("h2", "h3")
    ]
    for i, anchor in zip(headings, anchors, strict=False):
        old = tokens[i].attrs.get("id")
        tokens[i].attrs["id"] = anchor
        for child in tokens[i + 1].children or []:
            if child.type == "link_open" and child.attrs.get("href") == f"#{old}":
                child.attrs["href"] = f"#{anchor}"


def lesson_tokens(text: str, instructor: bool = False) -> list[Token]:
    """Parse lesson Markdown into tokens as the page has them (containers normalised, heading
    anchors set, instructor notes dropped unless asked for); directives and math untouched."""
    tokens = markdown().parse(normalise_containers(text)[0], {})
    return tokens if instructor else drop_instructor_notes(tokens)


def has_instructor_notes(text: str) -> bool:
    """Does the lesson hold notes for teachers (an `::: instructor` block)?"""
    return any(t.type == "container_instructor_open" for t in lesson_tokens(text, instructor=True))


@lru_cache(maxsize=4096)
def render_fragment(text: str, inline: bool = False) -> str:
    """Render a short piece of trusted-format Markdown (quiz text, captions) to safe HTML."""
    html, _, problems = render_markdown(text, where="")
    if problems:
        raise ValueError("; ".join(problems))
    html = html.strip()
    if inline and html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
        html = html[3:-4]
    return sanitize(html)


def render_lesson(
    lesson: Lesson,
    course: Course,
    *,
    quiz_dir: Path,
    instructor: bool = False,
    strict: bool = True,
    lab_limits: Limits = directives.LESSON_LAB_LIMITS,
    anchors: Sequence[str] | None = None,
    language: str = "en",
) -> RenderedLesson:
    """Render a lesson's body. strict: raise LessonRenderError listing every problem.

    lab_limits: the largest run a @lab may draw (the site's settings when it renders).
    """
    ctx = directives.Context(
        slug=lesson.slug,
        course=course,
        quiz_dir=quiz_dir,
        inline=lambda text: render_fragment(text, inline=True),
        lab_limits=lab_limits,
        language=language,
    )
    html, tokens, problems = render_markdown(
        lesson.body,
        where=lesson.where,
        first_line=lesson.body_line,
        ctx=ctx,
        instructor=instructor,
        anchors=anchors,
    )
    # Objectives and key points are Markdown too (the page renders them); check their math.
    for name in ("objectives", "key_points"):
        for item in getattr(lesson, name):
            try:
                render_fragment(item, inline=True)
            except ValueError as exc:
                problems.append(f"{lesson.where}: field '{name}': {exc}")
    if strict and problems:
        raise LessonRenderError("\n".join(problems))
    toc = tuple(
        Heading(int(tokens[i].tag[1]), tokens[i].attrs.get("id", ""), inline_text(tokens[i + 1]))
        for i in range(len(tokens) - 1)
        if tokens[i].type == "heading_open" and tokens[i].tag in ("h2", "h3")
    )
    notes = has_instructor_notes(lesson.body)
    return RenderedLesson(sanitize(html), toc, tuple(ctx.live), tuple(problems), notes)
