"""Render a lesson's Markdown to safe HTML: anchored headings, callouts, math, code, directives.

The pipeline: normalise container fences, parse with markdown-it-py (CommonMark + tables,
heading anchors, `:::` containers, dollar math), then walk the tokens once to expand
directives and turn LaTeX into MathML (latex2mathml; Chromium draws MathML natively, so no
script and no CDN), render, and finally sanitize everything with nh3 against an explicit
allow-list. Problems are reported with the lesson file and line; `strict=False` shows them
in the page instead of raising.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from pathlib import Path

import nh3
from latex2mathml.converter import convert as latex_to_mathml
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from . import directives
from .loader import Course, Lesson

# name -> (element, default title); `solution` is a disclosure, the rest are callouts.
CONTAINERS = {
    "objectives": ("aside", "Objectives"),
    "note": ("aside", "Note"),
    "warning": ("aside", "Warning"),
    "key-points": ("aside", "Key points"),
    "challenge": ("section", "Challenge"),
    "solution": ("details", "Solution"),
    "instructor": ("aside", "Instructor note"),
}
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})")
CONTAINER_LINE = re.compile(r"^(\s*)(:{3,})(.*)$")
UNKNOWN_COMMAND = re.compile(r"<m[ion][^>]*>(\\[A-Za-z]+)")


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


# -- markdown-it setup ---------------------------------------------------------------------------


def slugify(title: str) -> str:
    """Turn a heading into an anchor id: "Two phases: 2(p-1) steps" -> "two-phases-2p-1-steps"."""
    words = re.sub(r"[^\w\s-]", "", title.lower()).split()
    return re.sub(r"-{2,}", "-", "-".join(words)).strip("-") or "section"


def _highlight(code: str, lang: str, _attrs: str) -> str:
    """Colour a fenced code block with Pygments; an unknown language stays plain."""
    try:
        lexer = get_lexer_by_name(lang.strip()) if lang.strip() else None
    except ClassNotFound:
        lexer = None
    if lexer is None:
        return ""  # markdown-it escapes and wraps it
    return pygments_highlight(code, lexer, HtmlFormatter(nowrap=True))


def _container_renderer(name: str):
    element, default_title = CONTAINERS[name]

    def render(self, tokens, idx, options, env) -> str:
        token = tokens[idx]
        if token.nesting == -1:
            return f"</{element}>\n" if element == "details" else f"</div></{element}>\n"
        title = token.info.strip()[len(name) :].strip() or default_title
        if element == "details":
            return f'<details class="solution"><summary>{escape(title)}</summary>\n'
        return (
            f'<{element} class="callout callout-{name}" {_callout_role(element, title, env)}>'
            f'<p class="callout-title">{escape(title)}</p><div class="callout-body">\n'
        )

    return render


def _callout_role(element: str, title: str, env: dict) -> str:
    """Name a callout for assistive technology without two landmarks of one name.

    An aside is a note beside the text, not a landmark of the page (a page with two
    "Note" asides would list two landmarks a screen reader cannot tell apart). A section
    (a challenge) stays a region to jump to, numbered from its second one: "Challenge 2".
    """
    if element == "aside":
        return f'role="note" aria-label="{escape(title)}"'
    seen = env.setdefault("region_labels", {})
    seen[title] = seen.get(title, 0) + 1
    label = title if seen[title] == 1 else f"{title} {seen[title]}"
    return f'aria-label="{escape(label)}"'


def _focusable_code(default_rule):
    """Wrap a code block renderer so its <pre> takes keyboard focus: a block wider than the
    column scrolls sideways, and a keyboard user must be able to scroll it too."""

    def render(self, tokens, idx, options, env) -> str:
        html = default_rule(tokens, idx, options, env)
        return html.replace("<pre>", '<pre tabindex="0">', 1) if html.startswith("<pre>") else html

    return render


@lru_cache(maxsize=1)
def markdown() -> MarkdownIt:
    """Build the one Markdown parser lessons and quiz text share."""
    md = MarkdownIt("commonmark", {"html": True, "highlight": _highlight}).enable(
        ["table", "strikethrough"]
    )
    md.use(
        anchors_plugin,
        min_level=2,
        max_level=3,
        slug_func=slugify,
        permalink=True,
        permalinkSymbol="¶",
    )
    md.use(dollarmath_plugin, allow_labels=False, double_inline=True)
    for name in CONTAINERS:
        md.use(container_plugin, name, render=_container_renderer(name))
    for rule in ("math_inline", "math_inline_double", "math_block"):
        md.add_render_rule(rule, _render_math)
    for rule in ("fence", "code_block"):
        md.add_render_rule(rule, _focusable_code(md.renderer.rules[rule]))
    return md


def _render_math(self, tokens, idx, options, env) -> str:
    token = tokens[idx]
    html = token.meta.get("mathml") if token.meta else None
    if html is None:
        return f'<code class="math-error">{escape(token.content)}</code>'
    if token.meta.get("label"):
        html = html.replace("<math ", f'<math aria-label="{escape(token.meta["label"])}" ', 1)
    return html


def to_mathml(tex: str, display: bool) -> str:
    """Convert LaTeX to MathML, keeping the source as an annotation; raise ValueError if bad."""
    try:
        mathml = latex_to_mathml(tex.strip(), display="block" if display else "inline")
    except Exception as exc:  # latex2mathml raises many types for bad input
        raise ValueError(
            f"cannot read the formula {tex.strip()!r} ({type(exc).__name__})"
        ) from None
    unknown = UNKNOWN_COMMAND.search(mathml)
    if unknown:
        raise ValueError(f"unknown LaTeX command {unknown.group(1)} in {tex.strip()!r}")
    start = mathml.index(">") + 1
    end = mathml.rindex("</math>")
    return (
        f"{mathml[:start]}<semantics><mrow>{mathml[start:end]}</mrow>"
        f'<annotation encoding="application/x-tex">{escape(tex.strip())}</annotation>'
        f"</semantics></math>"
    )


# -- containers: fence lengths and names ---------------------------------------------------------


def normalise_containers(text: str) -> tuple[str, list[tuple[int, str]]]:
    """Make nested `:::` containers parse, and list unknown container names with their lines.

    Authors may write a `::: solution` inside a `::: challenge` with three colons on every
    fence. markdown-it-container needs the outer fence longer than the inner one, so each
    container's fences are rewritten to 3 + (depth of its nesting) colons. Lines are never
    added or removed, so line numbers stay right. Fenced code blocks are left alone.
    """
    lines = text.split("\n")
    problems: list[tuple[int, str]] = []
    stack: list[list] = []  # [open line index, nested depth below it]
    pairs: list[tuple[int, int, int]] = []  # (open, close, depth below)
    fence = None
    for i, line in enumerate(lines):
        if fence:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
            continue
        opener = FENCE.match(line)
        if opener:
            fence = opener.group(2)
            continue
        match = CONTAINER_LINE.match(line)
        if not match:
            continue
        info = match.group(3).strip()
        if not info:
            if stack:
                start, below = stack.pop()
                pairs.append((start, i, below))
                if stack:
                    stack[-1][1] = max(stack[-1][1], below + 1)
            continue
        name = info.split()[0]
        if name not in CONTAINERS:
            problems.append(
                (i, f"unknown container '::: {name}'; containers: {', '.join(CONTAINERS)}")
            )
            continue
        stack.append([i, 0])
    for start, _ in stack:
        problems.append((start, "this ':::' container is never closed (a line ':::' ends it)"))
    for start, stop, below in pairs:
        colons = ":" * (3 + below)
        for i in (start, stop):
            m = CONTAINER_LINE.match(lines[i])
            lines[i] = f"{m.group(1)}{colons}{m.group(3)}"
    return "\n".join(lines), problems


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
) -> tuple[str, list[Token], list[str]]:
    """Render Markdown to unsanitized HTML; return (html, tokens, problems)."""
    md = markdown()
    text, container_problems = normalise_containers(text)
    walk = _Walk(where, first_line, ctx)
    for line, message in container_problems:
        walk.problem(line, message)
    env: dict = {}
    tokens = md.parse(text, env)
    if not instructor:
        tokens = drop_instructor_notes(tokens)
    tokens = walk.run(tokens)
    return md.renderer.render(tokens, md.options, env), tokens, walk.errors


def lesson_tokens(text: str, instructor: bool = False) -> list[Token]:
    """Parse lesson Markdown into tokens as the page has them (containers normalised, heading
    anchors set, instructor notes dropped unless asked for); directives and math untouched."""
    tokens = markdown().parse(normalise_containers(text)[0], {})
    return tokens if instructor else drop_instructor_notes(tokens)


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
) -> RenderedLesson:
    """Render a lesson's body. strict: raise LessonRenderError listing every problem."""
    ctx = directives.Context(
        slug=lesson.slug,
        course=course,
        quiz_dir=quiz_dir,
        inline=lambda text: render_fragment(text, inline=True),
    )
    html, tokens, problems = render_markdown(
        lesson.body, where=lesson.where, first_line=lesson.body_line, ctx=ctx, instructor=instructor
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
    notes = any(
        t.type == "container_instructor_open" for t in lesson_tokens(lesson.body, instructor=True)
    )
    return RenderedLesson(sanitize(html), toc, tuple(ctx.live), tuple(problems), notes)


# -- the sanitizer -------------------------------------------------------------------------------

HTML_TAGS = {
    "a", "abbr", "aside", "b", "blockquote", "br", "caption", "cite", "code", "col", "colgroup",
    "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2",
    "h3", "h4", "h5", "h6", "hr", "i", "iframe", "img", "ins", "kbd", "li", "mark", "ol", "p",
    "pre", "q", "s", "samp", "section", "small", "span", "strong", "sub", "summary", "sup",
    "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul", "var",
}  # fmt: skip
MATHML_TAGS = {
    "math", "semantics", "annotation", "menclose", "merror", "mfrac", "mi", "mmultiscripts",
    "mn", "mo", "mover", "mpadded", "mphantom", "mprescripts", "mroot", "mrow", "ms", "mspace",
    "msqrt", "mstyle", "msub", "msubsup", "msup", "mtable", "mtd", "mtext", "mtr", "munder",
    "munderover",
}  # fmt: skip
SVG_TAGS = {
    "svg", "g", "defs", "marker", "title", "desc", "circle", "ellipse", "line", "path",
    "polyline", "polygon", "rect", "text", "tspan",
}  # fmt: skip
SVG_PAINT = {
    "fill", "stroke", "stroke-width", "stroke-dasharray", "stroke-linecap", "stroke-linejoin",
    "opacity", "fill-opacity", "stroke-opacity", "marker-start", "marker-end", "transform",
    "font-size", "font-weight", "text-anchor", "dominant-baseline",
}  # fmt: skip
ATTRIBUTES: dict[str, set[str]] = {
    "*": {"class", "id", "lang", "dir", "title", "role", "aria-label", "aria-labelledby",
          "aria-describedby", "aria-hidden"},
    "a": {"href"},
    "img": {"src", "alt", "width", "height", "loading"},
    "iframe": {"src", "loading", "allowfullscreen", "referrerpolicy", "data-follows-theme",
               "data-collective-lab"},
    "td": {"colspan", "rowspan", "style"},
    "th": {"colspan", "rowspan", "scope", "style"},
    "pre": {"tabindex"},
    "ol": {"start", "type", "reversed"},
    "li": {"value"},
    "details": {"open"},
    "math": {"xmlns", "display", "alttext"},
    "annotation": {"encoding"},
    "mi": {"mathvariant"},
    "mn": {"mathvariant"},
    "mtext": {"mathvariant"},
    "mo": {"stretchy", "fence", "form", "separator", "lspace", "rspace", "accent",
           "movablelimits", "largeop", "symmetric", "minsize", "maxsize", "mathvariant"},
    "mfrac": {"linethickness"},
    "mspace": {"width", "height", "depth"},
    "mpadded": {"width", "height", "depth", "lspace", "voffset"},
    "mover": {"accent"},
    "munder": {"accentunder"},
    "munderover": {"accent", "accentunder"},
    "mstyle": {"displaystyle", "scriptlevel", "mathvariant"},
    "menclose": {"notation"},
    "mtable": {"columnalign", "rowalign", "columnspacing", "rowspacing", "displaystyle"},
    "mtr": {"columnalign", "rowalign"},
    "mtd": {"columnalign", "rowalign", "columnspan", "rowspan"},
    "svg": {"xmlns", "viewBox", "width", "height", "preserveAspectRatio"} | SVG_PAINT,
    "g": SVG_PAINT,
    "marker": {"viewBox", "refX", "refY", "markerWidth", "markerHeight", "markerUnits", "orient"},
    "circle": {"cx", "cy", "r"} | SVG_PAINT,
    "ellipse": {"cx", "cy", "rx", "ry"} | SVG_PAINT,
    "rect": {"x", "y", "width", "height", "rx", "ry"} | SVG_PAINT,
    "line": {"x1", "y1", "x2", "y2"} | SVG_PAINT,
    "path": {"d"} | SVG_PAINT,
    "polyline": {"points"} | SVG_PAINT,
    "polygon": {"points"} | SVG_PAINT,
    "text": {"x", "y", "dx", "dy"} | SVG_PAINT,
    "tspan": {"x", "y", "dx", "dy"} | SVG_PAINT,
}  # fmt: skip
LOCAL_MARKER = re.compile(r"^url\(#[A-Za-z0-9_-]+\)$")
TABLE_ALIGN = re.compile(r"^text-align:\s*(left|right|center)\s*;?$")


def _attribute_filter(element: str, attribute: str, value: str) -> str | None:
    """Keep frames on the app's own embeds, markers on local ids, styles on table alignment."""
    if element == "iframe" and attribute == "src":
        return value if value.startswith("/embed/") else None
    if attribute in ("marker-start", "marker-end"):
        return value if LOCAL_MARKER.match(value) else None
    if attribute == "style":
        return value if TABLE_ALIGN.match(value.strip()) else None
    return value


@lru_cache(maxsize=1)
def _cleaner() -> nh3.Cleaner:
    return nh3.Cleaner(
        tags=HTML_TAGS | MATHML_TAGS | SVG_TAGS,
        clean_content_tags={"script", "style"},
        attributes=ATTRIBUTES,
        attribute_filter=_attribute_filter,
        generic_attribute_prefixes={"data-"},
        url_schemes={"http", "https", "mailto"},
    )


def sanitize(html: str) -> str:
    """Remove everything the allow-list does not name: scripts, on* handlers, javascript: URLs."""
    return _cleaner().clean(html)


def allowed_tags() -> Iterable[str]:
    """List the tags lesson HTML may use (for the authoring guide and its test)."""
    return sorted(HTML_TAGS | MATHML_TAGS | SVG_TAGS)
