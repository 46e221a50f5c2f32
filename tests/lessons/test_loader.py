"""The loader: course.yaml's outline, and each lesson's front matter checked against it."""

from __future__ import annotations

import math
import threading
import time
from pathlib import Path

import pytest

from app.course import WORDS_PER_MINUTE
from app.lessons import LessonError, Source, load_course, load_lesson, load_lessons

from .conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[2]


def test_course_outline_gives_sections_order_seeds_and_tags(course):
    assert [s.title for s in course.sections] == ["Basics", "Trees"]
    assert course.slugs == ["ring-basics", "tree-basics", "not-written-yet"]
    entry = course.entries["tree-basics"]
    assert (entry.section, entry.position, entry.seed_questions) == ("Trees", 2, ("6", "47b"))
    assert course.tags["trees"] == "tree-basics"


def test_the_real_course_outline_loads_with_23_lessons():
    course = load_course(ROOT / "lessons" / "course.yaml")
    assert len(course.slugs) == 23
    assert course.slugs[0] == "why-collectives"
    assert course.slugs[-1] == "capstone"  # an empty seed_questions list loads
    assert course.entries["capstone"].seed_questions == ()
    assert set(course.tags.values()) <= set(course.slugs)


def test_fixture_lessons_load_in_course_order_with_every_field(course):
    lessons = load_lessons(FIXTURES, course)
    assert list(lessons) == ["ring-basics", "tree-basics"]
    ring = lessons["ring-basics"]
    assert ring.title == "Ring basics"
    assert (ring.order, ring.section, ring.minutes) == (1, "Basics", 6)
    assert ring.tags == ("ring-allreduce", "allreduce")
    assert ring.seed_questions == ("3",)
    assert ring.objectives[0] == "Count the steps of ring allreduce."
    assert ring.key_points[1] == r"Each rank sends $2\frac{p-1}{p}M$ bytes."
    assert ring.sources[0].url == "https://doi.org/10.1016/j.jpdc.2008.09.002"
    assert ring.sources[1] == Source("A source without a link")
    assert ring.body.startswith("Ring allreduce cuts")
    # The body starts on the line after the closing '---'.
    lines = ring.path.read_text().splitlines()
    assert lines[ring.body_line - 1].startswith("Ring allreduce cuts")
    tree = lessons["tree-basics"]
    assert tree.prerequisites == ("ring-basics",)
    assert tree.seed_questions == ("6", "47b")


def test_minutes_fall_back_to_the_word_count(write_lesson, drop):
    body = "word " * (WORDS_PER_MINUTE * 3 + 1)
    lesson = write_lesson(body, minutes=drop)
    assert lesson.words == WORDS_PER_MINUTE * 3 + 1
    assert lesson.minutes == math.ceil(lesson.words / WORDS_PER_MINUTE) == 4
    assert write_lesson("Short.", minutes=drop).minutes == 1
    assert write_lesson(body, minutes=2).minutes == 2


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"title": None}, "field 'title': must be a non-empty string"),
        ({"slug": "tree-basics"}, "field 'slug': 'tree-basics' must match the file name"),
        (
            {"order": 1},
            "field 'order': course.yaml gives every lesson its order; remove it from the front",
        ),
        ({"section": "Basics"}, "field 'section': course.yaml gives every lesson its section"),
        (
            {"seed_questions": [3]},
            "field 'seed_questions': course.yaml gives every lesson its seed_questions",
        ),
        (
            {"tags": ["ring-allreduce", "rings"]},
            "field 'tags': 'rings' is not in course.yaml's tag",
        ),
        ({"tags": []}, "field 'tags': must list at least one entry"),
        ({"prerequisites": ["nope"]}, "field 'prerequisites': 'nope' is not a lesson slug"),
        ({"prerequisites": ["tree-basics"]}, "'tree-basics' comes after 'ring-basics'"),
        ({"sources": [{"url": "https://x.org"}]}, "field 'sources': entry 1 needs a 'title'"),
        (
            {"sources": [{"title": "T", "url": "ftp://x"}]},
            "entry 1: url must be an http(s) address",
        ),
        ({"sources": [{"title": "T", "link": "x"}]}, "entry 1 has unknown key(s) ['link']"),
        ({"minutes": 0}, "field 'minutes': must be between 1 and 240"),
        ({"objectives": "one"}, "field 'objectives': must be a list of non-empty strings"),
        ({"key-points": ["x"]}, "unknown field(s) 'key-points'"),
    ],
)
def test_a_bad_field_is_an_error_naming_file_and_field(write_lesson, changes, message):
    with pytest.raises(LessonError) as info:
        write_lesson(**changes)
    assert str(info.value).startswith("lessons/ring-basics.md: ")
    assert message in str(info.value)


@pytest.mark.parametrize(
    "field",
    [
        "title",
        "slug",
        "summary",
        "tags",
        "prerequisites",
        "sources",
    ],
)
def test_every_required_field_is_required(write_lesson, drop, field):
    with pytest.raises(
        LessonError, match=f"lessons/ring-basics.md: missing required field '{field}'"
    ):
        write_lesson(**{field: drop})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("No front matter.\n", "must start with front matter"),
        ("---\ntitle: x\nNo end.\n", "the front matter has no closing '---' line"),
        ("---\ntitle: [unclosed\n---\nBody\n", "the front matter is not valid YAML"),
        ("---\n- a list\n---\nBody\n", "the front matter must be a YAML mapping"),
    ],
)
def test_malformed_front_matter_is_an_error(lesson_dir, course, text, message):
    path = lesson_dir / "ring-basics.md"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LessonError, match=message):
        load_lesson(path, course)


def test_a_file_not_listed_in_course_yaml_is_an_error(lesson_dir, write_lesson):
    with pytest.raises(LessonError) as info:
        write_lesson(filename="stray.md", slug="stray")
    assert str(info.value) == (
        "lessons/stray.md: 'stray' is not a lesson in lessons/course.yaml; add it to a section "
        "there (course.yaml fixes every lesson's place)"
    )
    with pytest.raises(LessonError, match="'stray' is not a lesson in lessons/course.yaml"):
        # Loading the whole folder strictly fails on it too; the site keeps it as an error.
        load_lessons(lesson_dir, load_course(lesson_dir / "course.yaml"))


def test_order_section_and_seed_questions_come_from_course_yaml(lesson_dir):
    path = lesson_dir / "course.yaml"
    # A lesson added before ring-basics, which moves to a new section: only course.yaml changes.
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            "      - {slug: ring-basics, seed_questions: [3]}\n",
            "      - {slug: intro}\n"
            "  - title: Rings\n"
            "    lessons:\n"
            "      - {slug: ring-basics, seed_questions: [3, 4]}\n",
        ),
        encoding="utf-8",
    )
    lessons = load_course(path).lessons
    ring, tree = lessons["ring-basics"], lessons["tree-basics"]
    assert (ring.order, ring.section, ring.seed_questions) == (2, "Rings", ("3", "4"))
    assert (tree.order, tree.section) == (3, "Trees")


def test_a_lesson_listed_in_course_yaml_without_a_file_is_named(course):
    lessons = load_lessons(FIXTURES, course)
    assert [slug for slug in course.slugs if slug not in lessons] == ["not-written-yet"]


@pytest.mark.parametrize(
    ("yaml_text", "message"),
    [
        ("sections: 3\n", "expected a mapping with a 'sections' list"),
        ("sections:\n  - lessons: []\n", "section 1 needs a 'title'"),
        ("sections:\n  - title: A\n    lessons: [{slug: a}, {slug: a}]\n", "'a' is listed twice"),
        (
            "sections:\n  - title: A\n    lessons: [{slug: a}]\ntags: {x: b}\n",
            "tag 'x' points at unknown lesson 'b'",
        ),
        (
            "sections:\n  - title: A\n    lessons: [{slug: a, seed_questions: [x1]}]\n",
            "lesson 'a': seed_questions: 'x1' is not a question number of the seed list",
        ),
        (
            "sections:\n  - title: A\n    lessons: [{slug: a, seed_questions: [3, 51]}]\n",
            "lesson 'a': seed_questions: 51 is not a question number",
        ),
    ],
)
def test_a_malformed_course_outline_is_an_error(tmp_path, yaml_text, message):
    path = tmp_path / "course.yaml"
    path.write_text(yaml_text, encoding="utf-8")
    with pytest.raises(LessonError, match=message):
        load_course(path)


def test_a_memo_is_built_once_when_many_threads_ask_at_once(course):
    """100 students answering a poll on a process without the quiz bank each built it."""
    builds = []

    def build(c):
        builds.append(threading.get_ident())
        time.sleep(0.2)  # long enough for every thread to ask while it builds
        return object()

    start = threading.Barrier(8)
    got = []

    def ask():
        start.wait()
        got.append(course.memo("slow thing", build))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(builds) == 1
    assert len(got) == 8 and all(g is got[0] for g in got)
