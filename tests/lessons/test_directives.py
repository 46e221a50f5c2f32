"""Directives: @lab and @calc frames, @diagram figures, @quiz self-checks, and their errors."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
import yaml

from app.collectives import catalog
from app.lessons import directives
from app.lessons.directives import DirectiveError, parse
from app.lessons.render import render_fragment, render_markdown

from .conftest import FIXTURES
from .htmltools import parse as parse_html


def make_ctx(course, quiz_dir=FIXTURES / "quizzes", **context):
    return directives.Context(
        slug="ring-basics",
        course=course,
        quiz_dir=quiz_dir,
        inline=lambda text: render_fragment(text, inline=True),
        **context,
    )


def render(course, text, quiz_dir=FIXTURES / "quizzes", **context):
    ctx = make_ctx(course, quiz_dir, **context)
    html, _, problems = render_markdown(
        text, where="lessons/ring-basics.md", first_line=20, ctx=ctx
    )
    return parse_html(html), problems, ctx


# -- parsing -------------------------------------------------------------------------------------


def test_parse_splits_target_and_parameters_with_quotes():
    d = parse('@lab allreduce/ring ranks=8 caption="Two phases, one ring"')
    assert (d.name, d.target) == ("lab", "allreduce/ring")
    assert d.params == {"ranks": "8", "caption": "Two phases, one ring"}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "@labs allreduce/ring",
            "unknown directive @labs; directives: @lab, @calc, @diagram, @quiz",
        ),
        ("@lab", "@lab needs <collective>/<algorithm> first"),
        ("@lab ranks=8", "@lab needs <collective>/<algorithm> first"),
        ("@diagram ring ranks", "@diagram: expected key=value, got 'ranks'"),
        ("@diagram ring ranks=4 ranks=5", "@diagram: ranks is given twice"),
        ('@calc x caption="open', "@calc: No closing quotation (check the quotes)"),
    ],
)
def test_parse_errors_say_what_is_wrong(line, message):
    with pytest.raises(DirectiveError) as info:
        parse(line)
    assert str(info.value) == message


def test_a_directive_must_be_a_paragraph_of_its_own(course):
    _, problems, _ = render(course, "@lab allreduce/ring\nand more text\n")
    assert problems == [
        "lessons/ring-basics.md:20: @lab must be a paragraph of its own (a blank line after it)"
    ]


def test_an_ordinary_paragraph_starting_with_at_is_left_alone(course):
    tree, problems, _ = render(course, "@ 5 GB/s it is fast.\n")
    assert problems == [] and tree.find("p").text == "@ 5 GB/s it is fast."


# -- @lab ----------------------------------------------------------------------------------------


def test_lab_embeds_the_animation_with_a_caption_and_a_lab_link(course):
    text = "@lab allreduce/ring ranks=8 elements=16 autoplay=1 loop=0 speed=1\n"
    tree, problems, ctx = render(course, text)
    assert problems == []
    figure = tree.find("figure", class_="live-lab")
    src = urlsplit(figure.find("iframe").attrs["src"])
    assert src.path == "/embed/allreduce/ring"
    assert parse_qs(src.query) == {
        "ranks": ["8"],
        "elements": ["16"],
        "autoplay": ["1"],
        "loop": ["0"],
        "speed": ["1"],
    }
    assert figure.find("iframe").attrs["title"] == "Live animation: AllReduce, ring, 8 ranks"
    assert figure.find("iframe").attrs["loading"] == "lazy"
    # the page sizes it to its content and tells it the theme (embed-resize.js, theme.js)
    assert {"data-collective-lab", "data-follows-theme"} <= set(figure.find("iframe").attrs)
    link = urlsplit(figure.find("a", class_="live-open").attrs["href"])
    assert link.path == "/lab"
    assert parse_qs(link.query) == {
        "collective": ["allreduce"],
        "algorithm": ["ring"],
        "ranks": ["8"],
        "elements": ["16"],
    }
    assert "AllReduce, ring on 8 ranks" in figure.find("figcaption").text
    assert ctx.live == ["lab:allreduce/ring"]


def test_a_lab_in_predict_mode_opens_the_lab_in_predict_mode_too(course):
    tree, problems, _ = render(course, "@lab allgather/ring ranks=4 predict=1\n")
    assert problems == []
    figure = tree.find("figure", class_="live-lab")
    assert parse_qs(urlsplit(figure.find("iframe").attrs["src"]).query)["predict"] == ["1"]
    link = urlsplit(figure.find("a", class_="live-open").attrs["href"])
    assert parse_qs(link.query)["predict"] == ["1"]


def test_every_catalog_entry_is_accepted(course):
    for entry in catalog():
        target = f"{entry['collective']}/{entry['algorithm']}"
        extra = " ranks_per_node=4" if entry["needs_ranks_per_node"] else ""
        _, problems, _ = render(course, f"@lab {target} ranks=8 elements=16{extra}\n")
        assert problems == [], target


def test_a_custom_caption_replaces_the_default(course):
    tree, _, _ = render(course, '@lab allreduce/ring caption="Watch chunk **A**"\n')
    caption = tree.find("figcaption")
    assert caption.find("strong").text == "A" and "Watch chunk" in caption.text


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("@lab allreduce/nope", "@lab: unknown collective/algorithm 'allreduce/nope'; known: "),
        ("@lab allreduce", "@lab: unknown collective/algorithm 'allreduce'"),
        ("@lab allreduce/ring ranks=1", "@lab allreduce/ring: ranks must be an integer in 2..256"),
        ("@lab allreduce/ring speed=3", "@lab: speed must be 0.25, 0.5, 1, 2, 4, 8, got '3'"),
        ("@lab allreduce/ring autoplay=yes", "@lab: autoplay must be 0 or 1, got 'yes'"),
        ("@lab allreduce/ring predict=2", "@lab: predict must be 0 or 1, got '2'"),
        (
            "@lab allreduce/ring colour=red",
            "@lab: unknown parameter 'colour'; allowed: caption, ranks",
        ),
        ("@lab reduce_scatter/ring ranks=4 elements=6", "@lab reduce_scatter/ring: elements"),
    ],
)
def test_lab_errors_name_the_lesson_and_line(course, line, message):
    _, problems, _ = render(course, f"Intro.\n\n{line}\n")
    assert len(problems) == 1
    assert problems[0].startswith(f"lessons/ring-basics.md:22: {message}")


def test_lab_limits_are_the_running_sites_settings(course):
    from app import create_app
    from app.web import params
    from app.web.pages import lessons

    for max_ranks, refused in ((64, 65), (16, 32)):
        app = create_app({"TESTING": True, "LAB_MAX_RANKS": max_ranks})
        with app.app_context():  # the site hands its settings to the lessons it renders
            limits = lessons.library().lab_limits
        assert limits == params.page_limits(app.config)
        _, problems, _ = render(
            course, f"@lab allreduce/ring ranks={max_ranks}\n", lab_limits=limits
        )
        assert problems == []
        _, problems, _ = render(course, f"@lab allreduce/ring ranks={refused}\n", lab_limits=limits)
        assert problems == [
            f"lessons/ring-basics.md:20: @lab allreduce/ring: ranks must be an integer in "
            f"2..{max_ranks}; got {refused}"
        ]


def test_lab_elements_are_bounded_as_the_embed_bounds_them(course):
    from app.collectives import Limits

    site = {"lab_limits": Limits.drawn(64, 1 << 18)}  # the default LAB_MAX_CELLS: 2^18 cells
    _, problems, _ = render(course, "@lab allreduce/ring ranks=64 elements=4096\n", **site)
    assert problems == []
    _, problems, _ = render(course, "@lab allreduce/ring ranks=64 elements=4097\n", **site)
    assert "elements must be an integer in 1..4096 for allreduce on 64 ranks" in problems[0]
    _, problems, _ = render(course, "@lab allgather/ring ranks=64\n", **site)  # 64 blocks of 64
    assert problems == []


# -- @calc ---------------------------------------------------------------------------------------


def test_calc_embeds_the_widget_with_its_inputs(course):
    tree, problems, ctx = render(course, "@calc ddp_overlap params=300000000 bucket_mib=25\n")
    assert problems == []
    figure = tree.find("figure", class_="live-calc")
    frame = figure.find("iframe")
    src = urlsplit(frame.attrs["src"])
    assert src.path == "/embed/calc/ddp_overlap"
    assert parse_qs(src.query) == {"params": ["300000000"], "bucket_mib": ["25"]}
    assert frame.attrs["title"] == "Calculator: DDP: how much gradient sync hides behind backward?"
    assert {"data-collective-lab", "data-follows-theme"} <= set(frame.attrs)
    assert figure.find("a", class_="live-open").attrs["href"] == frame.attrs["src"]
    assert figure.find("figcaption").text.startswith("DDP: how much gradient sync hides")
    assert ctx.live == ["calc:ddp_overlap"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("@calc DDP-Overlap", "@calc: calculator names are [a-z0-9_]+, got 'DDP-Overlap'"),
        ("@calc nosuch", "@calc: no calculator 'nosuch'; there are compare, "),
        (
            "@calc ddp_overlap model_mb=500",
            "@calc ddp_overlap: unknown input 'model_mb' for ddp_overlap; allowed: ",
        ),
        ("@calc zero stage=5", "@calc zero: stage must be an integer in 0..3, got 5"),
        ("@calc zero stage=three", "@calc zero: stage must be an integer in 0..3, got 'three'"),
        ("@calc zero qwz=maybe", "@calc zero: qwz must be true or false, got 'maybe'"),
    ],
)
def test_calc_names_and_inputs_are_checked_against_the_calculators(course, line, message):
    _, problems, _ = render(course, f"{line}\n")
    assert len(problems) == 1
    assert problems[0].startswith(f"lessons/ring-basics.md:20: {message}")


# -- @diagram ------------------------------------------------------------------------------------


def test_diagram_is_an_accessible_inline_svg_with_a_caption(course):
    tree, problems, _ = render(course, "@diagram tree shape=binomial ranks=8\n\n@diagram ring\n")
    assert problems == []
    first, second = tree.find_all("figure", class_="diagram-figure")
    svg = first.find("svg")
    assert svg.attrs["role"] == "img"
    title_id, desc_id = svg.attrs["aria-labelledby"].split()
    assert svg.find("title", id=title_id).text == "Binomial tree on 8 ranks, root r0"
    assert "Parent to children" in svg.find("desc", id=desc_id).text
    assert "depth 3" in first.find("figcaption").text
    # Two diagrams on one page never share element ids.
    assert second.find("svg").attrs["aria-labelledby"] != svg.attrs["aria-labelledby"]


def test_diagram_errors_say_what_is_allowed(course):
    _, problems, _ = render(course, "@diagram hypercube ranks=6\n\n@diagram ring colour=red\n")
    assert problems == [
        "lessons/ring-basics.md:20: @diagram: hypercube: ranks must be a power of two "
        "(2, 4, 8 or 16), got 6",
        "lessons/ring-basics.md:22: @diagram: ring: unknown parameter(s) colour; "
        "allowed: phase, ranks",
    ]


# -- @quiz ---------------------------------------------------------------------------------------


def test_quiz_places_a_graded_self_check_without_questions_or_answers(course):
    tree, problems, _ = render(course, "@quiz ring-basics\n")
    assert problems == []
    section = tree.find("section", class_="self-check")
    assert section.attrs["data-quiz-lesson"] == "ring-basics"
    assert section.attrs["data-quiz-count"] == "2"
    link = section.find("a")
    assert link.attrs["href"] == "/quiz?topics=ring-basics"  # works without JavaScript
    text = section.text
    # The answers are graded on the server: nothing from the quiz file reaches the page.
    assert "That is recursive doubling." not in text and "How many steps" not in text
    assert section.find("details") is None and section.find("li") is None


def test_quiz_count_limits_the_questions(course):
    tree, _, _ = render(course, "@quiz ring-basics count=1\n")
    assert tree.find("section", class_="self-check").attrs["data-quiz-count"] == "1"


def _quiz(**changes) -> str:
    """A one-question quiz file for tree-basics, with `changes` to a good question."""
    question = {
        "id": "a",
        "kind": "single",
        "difficulty": "warm-up",
        "tags": ["trees"],
        "prompt": "P",
        "options": [
            {"text": "x", "correct": True, "why": "Because."},
            {"text": "y", "correct": False, "why": "Not."},
        ],
        **changes,
    }
    return yaml.safe_dump([question])


@pytest.mark.parametrize(
    ("quiz", "message"),
    [
        (None, "no such quiz file"),
        ("[]\n", "expected a non-empty list of questions"),
        (
            _quiz(options=[{"text": t, "correct": True, "why": "w"} for t in "xy"]),
            "question a: field 'options': a single-choice question needs exactly one correct "
            "option, has 2",
        ),
        (_quiz(kind="pick"), "question a: field 'kind': must be one of single, multiple, numeric"),
        (
            _quiz(options=[{"text": "x", "correct": True, "why": "w"}]),
            "question a: field 'options': must list 2 to 8 options",
        ),
        (_quiz(tags=["nope"]), "question a: field 'tags': ['nope'] not in course.yaml"),
        (_quiz(difficulty="hard"), "question a: field 'difficulty': must be one of warm-up"),
        (_quiz(explanation="$\\frac{1}{$"), "question a: field 'explanation'"),
        (_quiz(id="a b"), "question 1: field 'id': must be letters, digits"),
    ],
)
def test_quiz_file_problems_are_errors(course, tmp_path, quiz, message):
    if quiz is not None:
        (tmp_path / "tree-basics.yaml").write_text(quiz, encoding="utf-8")
    _, problems, _ = render(course, "@quiz tree-basics\n", quiz_dir=tmp_path)
    assert len(problems) == 1 and problems[0].startswith("lessons/ring-basics.md:20: @quiz: ")
    assert message in problems[0]


def test_quiz_needs_a_course_slug(course):
    _, problems, _ = render(course, "@quiz nowhere\n")
    assert problems == [
        "lessons/ring-basics.md:20: @quiz: 'nowhere' is not a lesson slug in course.yaml"
    ]
