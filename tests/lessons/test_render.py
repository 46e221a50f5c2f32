"""The renderer: anchored headings, containers, math as MathML, highlighted code, and errors."""

from __future__ import annotations

import pytest

from app.lessons import LessonRenderError, load_lessons, render_lesson
from app.lessons.markdown import normalise_containers, to_mathml
from app.lessons.render import render_fragment, render_markdown
from app.lessons.sanitizer import sanitize

from .conftest import FIXTURES
from .htmltools import parse


def render(text: str, **kwargs) -> tuple:
    html, _, problems = render_markdown(text, where="lessons/x.md", first_line=10, **kwargs)
    return parse(html), problems


@pytest.fixture
def fixture_lessons(course):
    return load_lessons(FIXTURES, course)


def test_h2_and_h3_get_anchors_and_make_the_table_of_contents(fixture_lessons, course):
    page = render_lesson(fixture_lessons["ring-basics"], course, quiz_dir=FIXTURES / "quizzes")
    assert [(h.level, h.id, h.text) for h in page.toc] == [
        (2, "two-phases", "Two phases"),
        (3, "reduce-scatter", "Reduce-scatter"),
        (2, "in-code", "In code"),
        (2, "check-yourself", "Check yourself"),
    ]
    tree = parse(page.html)
    for h in page.toc:
        heading = tree.find(f"h{h.level}", id=h.id)
        assert heading is not None and h.text in heading.text
        assert heading.find("a", class_="header-anchor").attrs["href"] == f"#{h.id}"


def test_duplicate_headings_get_distinct_anchors():
    tree, _ = render("## Cost\n\n## Cost\n\n### Cost: $p$ ranks\n")
    assert [h.attrs["id"] for h in tree.find_all("h2")] == ["cost", "cost-1"]
    assert tree.find("h3").attrs["id"] == "cost-ranks"  # math stays out of anchors


@pytest.mark.parametrize(
    ("tex", "element", "text"),
    [
        (r"\alpha + \beta + \gamma", "mi", "α"),
        (r"\alpha + \beta + \gamma", "mi", "γ"),
        (r"\lceil \log_2 p \rceil", "mi", "⌈"),
        (r"\lceil \log_2 p \rceil", "msub", "log2"),
        (r"\frac{p-1}{p}", "mfrac", "p−1p"),
        (r"a \cdot b", "mo", "·"),
        (r"x_{i}^{2}", "msubsup", "xi2"),
        (r"\lfloor p/2 \rfloor \le q \ge r \approx s \times t", "mo", "×"),
        (r"\sum_{i=0}^{p-1} x_i", "msubsup", "∑i=0p−1"),
        (r"\text{busbw} = \mathrm{algbw}", "mtext", "busbw"),
        (r"\min(a, b)\,\max(c)", "mo", "min"),
        (r"\left( \frac{1}{2} \right)", "mfrac", "12"),
    ],
)
def test_math_becomes_mathml(tex, element, text):
    tree = parse(to_mathml(tex, display=False))
    math = tree.find("math")
    assert math.attrs["display"] == "inline"
    assert any(e.text == text for e in math.find_all(element)), [
        e.text for e in math.find_all(element)
    ]
    assert math.find("annotation", encoding="application/x-tex").text == tex


def test_dollar_math_inline_and_display_in_lessons():
    tree, problems = render("Cost $\\alpha$ here.\n\n$$\nT = 2(p-1)\\alpha\n$$\n\nPrice \\$5.\n")
    assert problems == []
    maths = tree.find_all("math")
    assert [m.attrs["display"] for m in maths] == ["inline", "block"]
    assert "Price $5." in tree.find_all("p")[-1].text


def test_an_unknown_latex_command_is_an_error_with_its_line():
    _, problems = render("Fine.\n\nBad $\\alpah$ here.\n")
    assert problems == [r"lessons/x.md:12: unknown LaTeX command \alpah in '\\alpah'"]


def test_unreadable_math_is_an_error():
    _, problems = render("$$\n\\frac{a}{\n$$\n")
    assert len(problems) == 1 and "cannot read the formula" in problems[0]


def test_code_is_highlighted_on_the_server():
    tree, _ = render("```python\ndef f(x):\n    return x\n```\n\n```nosuchlang\n<b>\n```\n")
    python, plain = tree.find_all("pre")
    assert python.find("code", class_="language-python")
    assert python.find("span", class_="k").text == "def"
    assert python.find("span", class_="nf").text == "f"
    assert plain.find("span") is None and plain.text == "<b>\n"


@pytest.mark.parametrize("name", ["objectives", "note", "warning", "key-points", "challenge"])
def test_each_callout_container_renders_with_its_title(name):
    tree, problems = render(f"::: {name}\nInside **it**.\n:::\n")
    assert problems == []
    box = tree.find(class_=f"callout-{name}")
    assert box is not None and box.tag in ("aside", "section")
    assert box.find("strong").text == "it"
    assert box.find("p", class_="callout-title").text


def test_a_container_may_carry_its_own_title():
    tree, _ = render("::: note Why not a tree?\nBecause.\n:::\n")
    assert tree.find(class_="callout-note").find(class_="callout-title").text == "Why not a tree?"


@pytest.mark.parametrize("outer", [":::", "::::"])
def test_a_solution_nested_in_a_challenge_becomes_details(outer):
    text = f"{outer} challenge\nHow many?\n\n::: solution\nFourteen.\n:::\n{outer}\n\nAfter.\n"
    tree, problems = render(text)
    assert problems == []
    challenge = tree.find("section", class_="callout-challenge")
    details = challenge.find("details", class_="solution")
    assert details.find("summary").text == "Solution"
    assert "Fourteen." in details.text
    assert "After." not in challenge.text


def test_container_fences_are_rewritten_without_moving_lines():
    text = "::: challenge\n::: solution\nx\n:::\n:::\n```\n::: note\n```\n"
    out, problems = normalise_containers(text)
    assert out.split("\n")[:5] == [":::: challenge", "::: solution", "x", ":::", "::::"]
    assert out.split("\n")[6] == "::: note"  # inside a code fence: untouched
    assert problems == []
    assert out.count("\n") == text.count("\n")


def test_unknown_and_unclosed_containers_are_errors_with_lines():
    _, problems = render("::: tip\nx\n:::\n\n::: note\nnever closed\n")
    assert problems[0].startswith("lessons/x.md:10: unknown container '::: tip'")
    assert problems[1] == (
        "lessons/x.md:14: this ':::' container is never closed (a line ':::' ends it)"
    )


def test_instructor_notes_are_left_out_unless_asked_for():
    text = "Before.\n\n::: instructor\nAsk the room.\n:::\n\nAfter.\n"
    learner, _ = render(text)
    instructor, _ = render(text, instructor=True)
    assert "Ask the room." not in learner.text and "After." in learner.text
    assert "Ask the room." in instructor.find(class_="callout-instructor").text


def test_tables_render_with_alignment():
    tree, _ = render("| a | b |\n|--:|---|\n| 1 | 2 |\n")
    assert tree.find("th").attrs["style"] == "text-align:right"
    assert [td.text for td in tree.find_all("td")] == ["1", "2"]


def test_strict_rendering_lists_every_problem_with_file_and_line(write_lesson, course, lesson_dir):
    lesson = write_lesson("Intro.\n\n::: tip\nx\n:::\n\n@lab allreduce/nope\n\n$\\badcmd$\n")
    with pytest.raises(LessonRenderError) as info:
        render_lesson(lesson, course, quiz_dir=lesson_dir / "quizzes")
    lines = str(info.value).splitlines()
    first = lesson.body_line
    assert lines[0].startswith(f"lessons/ring-basics.md:{first + 2}: unknown container")
    assert lines[1].startswith(
        f"lessons/ring-basics.md:{first + 6}: @lab: unknown collective/algorithm"
    )
    assert lines[2].startswith(
        f"lessons/ring-basics.md:{first + 8}: unknown LaTeX command \\badcmd"
    )


def test_lenient_rendering_shows_problems_in_the_page(write_lesson, course, lesson_dir):
    lesson = write_lesson("@diagram nosuchkind\n")
    page = render_lesson(lesson, course, quiz_dir=lesson_dir / "quizzes", strict=False)
    box = parse(page.html).find("div", class_="render-error")
    assert "unknown diagram kind 'nosuchkind'" in box.text
    assert page.errors and page.errors[0].startswith("lessons/ring-basics.md:")


def test_bad_math_in_front_matter_objectives_is_reported(write_lesson, course, lesson_dir):
    lesson = write_lesson(objectives=["Derive $\\alpah$."])
    with pytest.raises(LessonRenderError, match="field 'objectives': unknown LaTeX command"):
        render_lesson(lesson, course, quiz_dir=lesson_dir / "quizzes")


def test_inline_fragments_drop_the_paragraph():
    assert render_fragment("Sends $M$ **bytes**", inline=True).startswith("Sends <math")
    assert render_fragment("Two\n\nparagraphs", inline=True).count("<p>") == 2


# -- accessibility: what axe-core checks (tests/browser/test_a11y.py runs axe itself) ----------


def landmark_names(tree) -> list[tuple[str, str]]:
    """List (role, name) of the landmarks in rendered HTML, as a screen reader lists them."""
    out = []
    for element in tree.find_all():
        role = element.attrs.get("role")
        name = element.attrs.get("aria-label") or element.attrs.get("aria-labelledby")
        if element.tag == "aside" and role in (None, "complementary"):
            out.append(("complementary", name or ""))
        elif element.tag == "section" and name and role in (None, "region"):
            out.append(("region", name))
    return out


def render_safe(text: str, **kwargs):
    """Render as a page shows it: sanitized."""
    html, _, problems = render_markdown(text, where="lessons/x.md", **kwargs)
    return parse(sanitize(html)), problems


def test_no_two_callouts_make_landmarks_of_the_same_name():
    text = (
        "".join(f"::: {name}\nText {i}.\n:::\n\n" for i in range(2) for name in ("note", "warning"))
        + "::: challenge\nOne?\n:::\n\n::: challenge\nTwo?\n:::\n"
    )
    tree, problems = render_safe(text, instructor=True)
    assert problems == []
    landmarks = landmark_names(tree)
    assert len(landmarks) == len(set(landmarks)), landmarks
    notes = tree.find_all(class_="callout-note")
    assert [n.attrs.get("aria-label") for n in notes] == ["Note", "Note"]  # still named
    assert all(n.attrs.get("role") == "note" for n in notes)


def test_an_empty_table_header_cell_is_not_a_header():
    tree, _ = render_safe("|   | time |\n|---|-----:|\n| ring | 2 |\n")
    assert [th.text for th in tree.find_all("th")] == ["time"]
    assert [td.text for td in tree.find_all("td")] == ["", "ring", "2"]


def test_code_blocks_that_scroll_can_be_reached_by_keyboard():
    tree, _ = render_safe("```bash\nexport NCCL_ALGO=Ring  # a comment\n```\n\n    indented\n")
    assert [pre.attrs.get("tabindex") for pre in tree.find_all("pre")] == ["0", "0"]


def test_a_header_cell_holding_only_a_formula_is_named_by_it():
    # axe-core reads no text in MathML, so a header of just $p$ would be "empty" to it.
    tree, _ = render_safe("| $p$ | latency $2(p-1)\\alpha$ |\n|---|---|\n| 8 | 1 ms |\n")
    only_math, mixed = tree.find_all("th")
    assert only_math.find("math").attrs.get("aria-label") == "p"
    assert "aria-label" not in mixed.find("math").attrs  # has text: MathML reads as itself
