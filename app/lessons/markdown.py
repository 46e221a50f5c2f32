"""The Markdown dialect of lessons: markdown-it with anchors, `:::` containers and math as MathML.

One parser (`markdown()`) for lesson bodies and short fragments: CommonMark plus tables,
heading anchors, callout and solution containers, dollar math turned into MathML
(latex2mathml; Chromium draws MathML natively, so no script and no CDN), and code
highlighted with Pygments.
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape

from latex2mathml.converter import convert as latex_to_mathml
from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from app.i18n import DEFAULT, N_
from app.i18n.catalog import translate

# name -> (element, default title); `solution` and `answer` are disclosures, the rest callouts.
# A `predict` box asks the reader something before a live element; its `answer` is revealed on
# request. `instructor` notes are for teachers only (the ?instructor=1 view).
CONTAINERS = {
    "objectives": ("aside", N_("Objectives")),
    "note": ("aside", N_("Note")),
    "warning": ("aside", N_("Warning")),
    "key-points": ("aside", N_("Key points")),
    "challenge": ("section", N_("Challenge")),
    "solution": ("details", N_("Solution")),
    "predict": ("section", N_("Predict")),
    "answer": ("details", N_("Show the answer")),
    "instructor": ("aside", N_("Instructor note")),
}
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})")
CONTAINER_LINE = re.compile(r"^(\s*)(:{3,})(.*)$")
UNKNOWN_COMMAND = re.compile(r"<m[ion][^>]*>(\\[A-Za-z]+)")


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
        title = token.info.strip()[len(name) :].strip()
        title = title or translate(env.get("language", DEFAULT), default_title)
        if element == "details":
            return f'<details class="{name}"><summary>{escape(title)}</summary>\n'
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
