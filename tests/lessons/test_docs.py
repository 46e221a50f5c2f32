"""The authoring guide (docs/lessons.md) stays true: its examples render, every feature is in it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from app.course import OPTIONAL_FIELDS, REQUIRED_FIELDS
from app.lessons import load_course, load_lesson
from app.lessons.diagrams import KINDS
from app.lessons.directives import LAB_PARAMS, NAMES
from app.lessons.markdown import CONTAINERS
from app.lessons.render import render_markdown

from .test_directives import make_ctx

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "lessons.md").read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", GUIDE, flags=re.S)


def test_every_front_matter_field_directive_container_and_diagram_is_documented():
    for name in (*REQUIRED_FIELDS, *OPTIONAL_FIELDS):
        assert f"`{name}`" in GUIDE, name
    for name in NAMES:
        assert f"### `@{name} " in GUIDE, name
    for name in CONTAINERS:
        assert f"| `{name}` |" in GUIDE, name
    for kind in KINDS:
        assert f"| `{kind}` |" in GUIDE, kind
    for key in LAB_PARAMS:
        assert f"`{key}`" in GUIDE, key


@pytest.mark.parametrize(
    "line",
    [ln for block in blocks("markdown") for ln in block.splitlines() if ln.startswith("@")],
)
def test_every_directive_example_renders(line):
    ctx = make_ctx(load_course(ROOT / "lessons" / "course.yaml"))
    _, _, problems = render_markdown(f"{line}\n", where="docs", ctx=ctx)
    assert problems == []
    assert ctx.live or line.startswith("@diagram")


def test_the_container_example_renders():
    example = next(b for b in blocks("markdown") if "::: challenge" in b)
    html, _, problems = render_markdown(example)
    assert problems == [] and '<details class="solution">' in html


def test_the_front_matter_example_loads_against_the_real_course(tmp_path):
    front = next(b for b in blocks("yaml") if b.startswith("---\ntitle:"))
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    shutil.copy(ROOT / "lessons" / "course.yaml", lessons / "course.yaml")
    (lessons / "ring-allreduce.md").write_text(front + "\n## Body\n", encoding="utf-8")
    lesson = load_lesson(lessons / "ring-allreduce.md", load_course(lessons / "course.yaml"))
    assert lesson.minutes == 14 and lesson.sources[1].note == "chapter 4"
