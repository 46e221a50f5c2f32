"""The sanitizer: raw HTML in lessons is cut to an allow-list, MathML and diagrams survive."""

from __future__ import annotations

import pytest

from app.lessons import load_lessons, render_lesson, sanitize
from app.lessons.markdown import to_mathml

from .conftest import FIXTURES
from .htmltools import parse


@pytest.mark.parametrize(
    "dirty",
    [
        "<script>alert(1)</script>",
        "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
        "<svg><script>alert(1)</script></svg>",
        "<math><script>alert(1)</script></math>",
        "<style>body{display:none}</style>",
    ],
)
def test_script_and_style_are_removed_with_their_content(dirty):
    clean = sanitize(f"<p>ok</p>{dirty}")
    tree = parse(clean)
    assert tree.find("script") is None and tree.find("style") is None
    assert "alert" not in clean and "display:none" not in clean
    assert tree.find("p").text == "ok"


@pytest.mark.parametrize(
    "dirty",
    [
        '<img src="x.png" onerror="alert(1)">',
        '<a href="/x" onclick="alert(1)">x</a>',
        '<p onmouseover="alert(1)">x</p>',
        '<svg onload="alert(1)"><circle r="1" onclick="alert(1)"/></svg>',
        '<details ontoggle="alert(1)" open><summary>s</summary></details>',
    ],
)
def test_event_handler_attributes_are_removed(dirty):
    tree = parse(sanitize(dirty))
    every = tree.find_all()
    assert every, "the element itself survives"
    assert all(not name.startswith("on") for e in every for name in e.attrs)


@pytest.mark.parametrize(
    "href",
    ["javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "data:text/html,<b>x"],
)
def test_script_urls_are_removed(href):
    tree = parse(sanitize(f'<a href="{href}">x</a><img src="{href}">'))
    assert "href" not in tree.find("a").attrs
    assert "src" not in tree.find("img").attrs


def test_safe_links_survive():
    tree = parse(sanitize('<a href="https://nccl.example/doc">d</a> <a href="/lab">l</a>'))
    assert [a.attrs["href"] for a in tree.find_all("a")] == ["https://nccl.example/doc", "/lab"]


def test_frames_are_kept_only_for_the_apps_own_embeds():
    tree = parse(
        sanitize(
            '<iframe src="/embed/allreduce/ring?ranks=4"></iframe>'
            '<iframe src="https://evil.example/"></iframe>'
            '<iframe src="//evil.example/embed/"></iframe>'
        )
    )
    assert [f.attrs.get("src") for f in tree.find_all("iframe")] == [
        "/embed/allreduce/ring?ranks=4",
        None,
        None,
    ]


def test_style_is_kept_only_for_table_alignment():
    tree = parse(
        sanitize(
            '<table><tr><td style="text-align:right">1</td>'
            '<td style="position:fixed">2</td></tr></table>'
            '<p style="text-align:right">x</p>'
        )
    )
    cells = tree.find_all("td")
    assert cells[0].attrs["style"] == "text-align:right"
    assert "style" not in cells[1].attrs
    assert "style" not in tree.find("p").attrs


def test_unknown_elements_lose_their_tags_but_keep_text():
    tree = parse(sanitize("<marquee>moving</marquee><object data=x>o</object><form>f</form>"))
    assert (
        tree.find("marquee") is None and tree.find("object") is None and tree.find("form") is None
    )
    assert tree.text == "movingof"


def test_mathml_survives_sanitizing():
    mathml = to_mathml(r"T = 2(p-1)\alpha + 2\frac{p-1}{p} M \beta + x_{i}^{2}", display=True)
    tree = parse(sanitize(mathml))
    math = tree.find("math")
    assert math.attrs["display"] == "block"
    for element in ("semantics", "mrow", "mi", "mn", "mo", "mfrac", "msubsup", "annotation"):
        assert math.find(element) is not None, element
    assert math.find("mo", stretchy="false") is not None
    assert "α" in math.text and "β" in math.text


def test_diagram_svg_survives_sanitizing_but_not_foreign_markers():
    svg = (
        '<svg class="diagram" viewBox="0 0 10 10" role="img" aria-labelledby="t d">'
        '<title id="t">T</title><desc id="d">D</desc><defs><marker id="m" refX="9" '
        'markerWidth="7" orient="auto-start-reverse"><path d="M0,0 L10,5 z" fill="#000"/></marker>'
        '</defs><line x1="0" y1="0" x2="5" y2="5" stroke="#0072B2" marker-end="url(#m)"/>'
        '<line x1="0" y1="0" x2="5" y2="5" marker-end="url(https://evil.example/x.svg#m)"/>'
        '<text x="1" y="1" text-anchor="middle">r0</text></svg>'
    )
    tree = parse(sanitize(svg))
    out = tree.find("svg")
    assert 'viewBox="0 0 10 10"' in sanitize(svg)  # case kept: SVG attributes are camelCase
    assert out.attrs["role"] == "img" and out.find("title").text == "T"
    good, bad = out.find_all("line")
    assert good.attrs["marker-end"] == "url(#m)" and good.attrs["stroke"] == "#0072B2"
    assert "marker-end" not in bad.attrs
    assert out.find("text").text == "r0"


def test_a_whole_lesson_is_sanitized(write_lesson, course, lesson_dir):
    body = (
        'Hello <b onclick="x()">bold</b>.\n\n<script>alert(1)</script>\n\n'
        '<a href="javascript:alert(1)">click</a>\n\n@lab allreduce/ring ranks=4\n\n'
        "Cost $\\alpha$.\n"
    )
    page = render_lesson(write_lesson(body), course, quiz_dir=lesson_dir / "quizzes")
    tree = parse(page.html)
    assert tree.find("script") is None and "alert" not in page.html
    assert "onclick" not in tree.find("b").attrs
    (click,) = [a for a in tree.find_all("a") if a.text == "click"]
    assert "href" not in click.attrs
    assert tree.find("iframe").attrs["src"] == "/embed/allreduce/ring?ranks=4"
    assert tree.find("math") is not None


def test_the_fixture_lessons_keep_their_directive_output(course):
    lessons = load_lessons(FIXTURES, course)
    for lesson in lessons.values():
        page = render_lesson(lesson, course, quiz_dir=FIXTURES / "quizzes")
        tree = parse(page.html)
        assert tree.find_all("iframe"), lesson.slug
        for svg in tree.find_all("svg"):
            assert svg.attrs["role"] == "img" and svg.find("title") and svg.find("desc")
