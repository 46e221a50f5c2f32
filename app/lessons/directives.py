"""The directives that make a lesson alive: @lab, @calc, @diagram and @quiz.

A directive is a paragraph of its own, one line:

    @lab allreduce/ring ranks=8 elements=16 autoplay=1 loop=0 speed=1
    @calc ddp_overlap model_mb=500 bucket_mb=25
    @diagram tree shape=binomial ranks=8 root=0
    @quiz ring-allreduce

Values may be quoted (`caption="Two phases"`). Each directive is checked when the lesson is
rendered; a problem raises `DirectiveError` and the renderer names the lesson and the line.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from urllib.parse import urlencode

from app.collectives import MAX_RANKS, Limits
from app.collectives.parameters import MAX_BUFFER_CELLS
from app.i18n.catalog import translate

from .diagrams import DiagramError, render_diagram
from .loader import Course, LessonError
from .selfcheck import load_quiz, render_self_check

NAMES = ("lab", "calc", "diagram", "quiz")
DIRECTIVE_LINE = re.compile(r"^@([a-z][a-z0-9_-]*)(?:\s+(.*))?$")
CALC_NAME = re.compile(r"^[a-z0-9_]+$")
KEY = re.compile(r"^[a-z][a-z0-9_]*$")


class DirectiveError(ValueError):
    """A directive is malformed or names something that does not exist."""


@dataclass(frozen=True)
class Directive:
    name: str
    target: str
    params: dict[str, str]


# What a @lab may ask for outside a site (a lesson check from the command line): the engine's.
LESSON_LAB_LIMITS = Limits.drawn(MAX_RANKS, MAX_BUFFER_CELLS)


@dataclass
class Context:
    """What directives need from the lesson being rendered."""

    slug: str
    course: Course
    quiz_dir: Path
    inline: Callable[[str], str]  # render one line of Markdown to HTML
    lab_limits: Limits = LESSON_LAB_LIMITS  # the site's (its settings) when it renders
    language: str = "en"  # the page's: the UI words around a live element are in it
    counter: int = 0
    live: list[str] = field(default_factory=list)  # "lab:allreduce/ring", "calc:ddp", ...

    def uid(self) -> str:
        self.counter += 1
        return f"{self.slug}-fig{self.counter}"


def parse(line: str) -> Directive:
    """Split `@name target key=value ...` into its parts, or raise DirectiveError."""
    match = DIRECTIVE_LINE.match(line.strip())
    if not match:
        raise DirectiveError(f"not a directive: {line!r}")
    name, rest = match.group(1), match.group(2) or ""
    if name not in NAMES:
        raise DirectiveError(f"unknown directive @{name}; directives: @{', @'.join(NAMES)}")
    try:
        words = shlex.split(rest)
    except ValueError as exc:
        raise DirectiveError(f"@{name}: {exc} (check the quotes)") from None
    if not words or "=" in words[0]:
        what = {"lab": "<collective>/<algorithm>", "calc": "<name>", "diagram": "<kind>"}
        raise DirectiveError(f"@{name} needs {what.get(name, '<lesson-slug>')} first")
    params: dict[str, str] = {}
    for word in words[1:]:
        key, eq, value = word.partition("=")
        if not eq or not KEY.match(key):
            raise DirectiveError(f"@{name}: expected key=value, got {word!r}")
        if key in params:
            raise DirectiveError(f"@{name}: {key} is given twice")
        params[key] = value
    return Directive(name, words[0], params)


def render(directive: Directive, ctx: Context) -> str:
    """Render one directive to HTML (sanitized later with the rest of the lesson)."""
    return RENDERERS[directive.name](directive, ctx)


# -- @lab ----------------------------------------------------------------------------------------

LAB_SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)  # the embed's speed choices
LAB_RUN = ("ranks", "elements", "op", "root", "ranks_per_node")  # checked by the engine's gate
LAB_VIEW = {
    # name: (check, what is allowed): how the embed shows the run
    "autoplay": (lambda v: v in ("0", "1"), "0 or 1"),
    "loop": (lambda v: v in ("0", "1"), "0 or 1"),
    "predict": (lambda v: v in ("0", "1"), "0 or 1"),  # ask the reader to predict each step
    "speed": (lambda v: _float_in(v, LAB_SPEEDS), ", ".join(f"{s:g}" for s in LAB_SPEEDS)),
    "theme": (lambda v: v in ("light", "dark"), "light or dark"),
}
LAB_PARAMS = (*LAB_RUN, *LAB_VIEW)  # every key a @lab takes, besides caption
LAB_DEFAULT_RANKS = 8


def render_lab(d: Directive, ctx: Context) -> str:
    """An <iframe> of the lab's embed view, a caption, and a link to open it in the lab."""
    from app.collectives import COLLECTIVES, catalog
    from app.collectives.names import algorithm_name

    collective, slash, algorithm = d.target.partition("/")
    entries = {(c["collective"], c["algorithm"]): c for c in catalog()}
    if not slash or (collective, algorithm) not in entries:
        known = ", ".join(f"{c}/{a}" for c, a in entries)
        raise DirectiveError(f"@lab: unknown collective/algorithm {d.target!r}; known: {known}")
    params = dict(d.params)
    caption = params.pop("caption", None)
    ranks = _check_lab(d.target, params, ctx.lab_limits)
    engine = {k: v for k, v in params.items() if k in LAB_RUN}
    query = urlencode(params)
    src = f"/embed/{collective}/{algorithm}" + (f"?{query}" if query else "")
    mode = {"predict": "1"} if params.get("predict") == "1" else {}  # the lab opens predicting too
    lab = urlencode({"collective": collective, "algorithm": algorithm, **engine, **mode})
    _ = functools.partial(translate, ctx.language)
    name = f"{COLLECTIVES[collective].title}, {_(algorithm_name(algorithm))}"
    title = _("Live animation: %(name)s, %(ranks)s ranks", name=name, ranks=ranks)
    text = caption or _(
        "%(name)s on %(ranks)s ranks. %(description)s",
        name=name,
        ranks=ranks,
        description=_(entries[(collective, algorithm)]["description"]),
    )
    open_lab = _("Open in the lab")
    ctx.live.append(f"lab:{collective}/{algorithm}")
    return (
        f'<figure class="live live-lab" data-live="lab">'
        f'<div class="live-frame"><iframe src="{escape(src)}" title="{escape(title)}" '
        f'loading="lazy" data-follows-theme data-collective-lab></iframe></div>'
        f"{_still(d.target, ranks, ctx)}"
        f"<figcaption>{ctx.inline(text)} "
        f'<a class="live-open" href="/lab?{escape(lab)}">{open_lab}</a></figcaption>'
        f"</figure>"
    )


STILL_RANKS = 4  # a larger ring's strip is the same pattern, drawn on 4 ranks


def _still(target: str, ranks: int, ctx: Context) -> str:
    """The animation as still frames, for print and for readers without JavaScript (CSS shows
    it there in place of the frame); only the ring allreduce has a strip (`ring-steps`).

    A larger ring is drawn on STILL_RANKS ranks, and says so: 8 ranks make 15 frames of 64
    cells, a quarter of a megabyte of SVG in every page that embeds the ring.
    """
    if target != "allreduce/ring":
        return ""
    drawn = min(ranks, STILL_RANKS)
    strip = render_diagram("ring-steps", {"ranks": str(drawn)}, ctx.uid(), ctx.language)
    _ = functools.partial(translate, ctx.language)
    if drawn == ranks:
        note = _("The animation, frame by frame: %(caption)s", caption=escape(strip.caption))
    else:
        note = _(
            "The same algorithm on %(ranks)s ranks, frame by frame: %(caption)s",
            ranks=drawn,
            caption=escape(strip.caption),
        )
    return f'<div class="live-still">{strip.svg}<p class="live-still-note">{note}</p></div>'


def _check_lab(target: str, params: dict[str, str], limits: Limits) -> int:
    """Check a @lab's parameters as its embed page will, so a lesson never embeds a run that
    cannot start; return the rank count. The run's go through the engine's gate with the lab's
    limits, the view's (autoplay, speed, ...) here."""
    from app.collectives import CollectiveError, check, from_text, max_elements

    for key, value in params.items():
        if key in LAB_RUN:
            continue
        if key not in LAB_VIEW:
            allowed = ", ".join(("caption", *LAB_PARAMS))
            raise DirectiveError(f"@lab: unknown parameter {key!r}; allowed: {allowed}")
        ok, allowed = LAB_VIEW[key]
        if not ok(value):
            raise DirectiveError(f"@lab: {key} must be {allowed}, got {value!r}")
    collective, _, algorithm = target.partition("/")
    given = {"collective": collective, "algorithm": algorithm, "ranks": LAB_DEFAULT_RANKS}
    given.update(from_text({k: v for k, v in params.items() if k in LAB_RUN}))
    if isinstance(given["ranks"], int) and given["ranks"] >= 1:  # else the gate says why
        cap = max_elements(collective, given["ranks"], limits.max_cells)
        given.setdefault("elements", min(4 * given["ranks"], cap))
    try:
        return check(given, limits)["ranks"]
    except CollectiveError as exc:
        raise DirectiveError(f"@lab {target}: {exc}") from None


# -- @calc ---------------------------------------------------------------------------------------


def render_calc(d: Directive, ctx: Context) -> str:
    """An <iframe> of a calculator widget with its inputs preset."""
    name = d.target
    if not CALC_NAME.match(name):
        raise DirectiveError(f"@calc: calculator names are [a-z0-9_]+, got {name!r}")
    params = dict(d.params)
    caption = params.pop("caption", None)
    label = _check_calculator(name, {k: v for k, v in params.items() if k != "theme"})
    query = urlencode(params)
    src = f"/embed/calc/{name}" + (f"?{query}" if query else "")
    _ = functools.partial(translate, ctx.language)
    label = _(label)
    sentence = label if label.endswith(("?", ".", "!", "？", "。")) else f"{label}."
    text = caption or _(
        "%(sentence)s Change the inputs; the numbers come from the cost model.", sentence=sentence
    )
    frame_title = _("Calculator: %(name)s", name=label)
    open_calc = _("Open the calculator")
    ctx.live.append(f"calc:{name}")
    return (
        f'<figure class="live live-calc" data-live="calc">'
        f'<div class="live-frame"><iframe src="{escape(src)}" title="{escape(frame_title)}" '
        f'loading="lazy" data-follows-theme data-collective-lab></iframe></div>'
        f"<figcaption>{ctx.inline(text)} "
        f'<a class="live-open" href="{escape(src)}">{open_calc}</a></figcaption>'
        f"</figure>"
    )


def _check_calculator(name: str, params: dict[str, str]) -> str:
    """Run the calculator once on these inputs, as its widget will; return its title."""
    from app.costs import CostError
    from app.costs.calculators import CALCULATORS
    from app.costs.calculators.query import run_calculator

    if name not in CALCULATORS:
        raise DirectiveError(f"@calc: no calculator {name!r}; there are {', '.join(CALCULATORS)}")
    try:
        run_calculator(name, params)
    except CostError as exc:
        raise DirectiveError(f"@calc {name}: {exc}") from None
    return CALCULATORS[name].title


# -- @diagram ------------------------------------------------------------------------------------


def render_diagram_directive(d: Directive, ctx: Context) -> str:
    """An inline SVG drawn from data, with its caption."""
    params = dict(d.params)
    caption = params.pop("caption", None)
    try:
        diagram = render_diagram(d.target, params, ctx.uid(), ctx.language)
    except DiagramError as exc:
        raise DirectiveError(f"@diagram: {exc}") from None
    return (
        f'<figure class="diagram-figure">{diagram.svg}'
        f"<figcaption>{ctx.inline(caption or diagram.caption)}</figcaption></figure>"
    )


# -- @quiz ---------------------------------------------------------------------------------------


def render_quiz(d: Directive, ctx: Context) -> str:
    """The lesson's self-check questions from lessons/quizzes/<slug>.yaml."""
    slug = d.target
    if slug not in ctx.course.entries:
        raise DirectiveError(f"@quiz: {slug!r} is not a lesson slug in course.yaml")
    params = dict(d.params)
    count = params.pop("count", None)
    if params:
        raise DirectiveError(f"@quiz: unknown parameter(s) {sorted(params)}; allowed: count")
    if count is not None and not _int_in(count, 1, 50):
        raise DirectiveError(f"@quiz: count must be an integer in 1..50, got {count!r}")
    try:
        questions = load_quiz(ctx.quiz_dir / f"{slug}.yaml", ctx.course)
    except LessonError as exc:
        raise DirectiveError(f"@quiz: {exc}") from None
    if count is not None:
        questions = questions[: int(count)]
    return render_self_check(slug, questions, ctx.language)


RENDERERS: dict[str, Callable[[Directive, Context], str]] = {
    "lab": render_lab,
    "calc": render_calc,
    "diagram": render_diagram_directive,
    "quiz": render_quiz,
}


def _int_in(value: str, low: int, high: int) -> bool:
    return bool(re.fullmatch(r"-?[0-9]+", value)) and low <= int(value) <= high


def _float_in(value: str, allowed: tuple[float, ...]) -> bool:
    try:
        return float(value) in allowed
    except ValueError:
        return False
