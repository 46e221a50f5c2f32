"""The library the site serves from: present lessons only, neighbours, search, live reload."""

from __future__ import annotations

import os

from app.lessons import Library

from .conftest import FIXTURES


def test_sections_come_from_the_outline_and_missing_files_are_not_listed():
    lib = Library(FIXTURES).refresh()
    sections = [(s.title, [lesson.slug for lesson in ls]) for s, ls in lib.sections()]
    assert sections == [("Basics", ["ring-basics"]), ("Trees", ["tree-basics"])]
    assert lib.lesson("not-written-yet") is None
    assert lib.errors == {}


def test_neighbours_follow_course_order():
    lib = Library(FIXTURES).refresh()
    assert lib.neighbours("ring-basics") == (None, lib.lesson("tree-basics"))
    assert lib.neighbours("tree-basics") == (lib.lesson("ring-basics"), None)


def test_search_ranks_titles_then_tags_then_headings():
    lib = Library(FIXTURES).refresh()
    assert [h.slug for h in lib.search("ring")] == ["ring-basics", "tree-basics"]
    assert [h.slug for h in lib.search("topology")] == ["tree-basics"]  # a tag
    hit = lib.search("recursive doubling")[0]  # a heading
    assert hit.slug == "tree-basics"
    assert hit.headings == (("recursive-doubling", "Recursive doubling"),)
    assert hit.as_json()["headings"][0]["url"] == "/lessons/tree-basics#recursive-doubling"
    assert lib.search("RING two phases")[0].slug == "ring-basics"  # every word, any case
    assert lib.search("ring nonsense") == []
    assert lib.search("   ") == []


def test_a_broken_file_is_kept_out_and_its_error_kept(lesson_dir):
    path = lesson_dir / "tree-basics.md"
    path.write_text(
        path.read_text().replace("slug: tree-basics\n", "slug: tree-basics\norder: 2\n")
    )
    lib = Library(lesson_dir).refresh()
    assert list(lib.lessons) == ["ring-basics"]
    assert "field 'order': course.yaml gives every lesson its order" in lib.errors["tree-basics"]


def test_edits_are_picked_up_on_the_next_refresh(lesson_dir):
    lib = Library(lesson_dir).refresh()
    first = lib.rendered("ring-basics")
    assert lib.rendered("ring-basics") is first  # cached
    path = lesson_dir / "ring-basics.md"
    path.write_text(path.read_text().replace("## In code", "## In Python"))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    lib.refresh()
    assert "In Python" in [h.text for h in lib.rendered("ring-basics").toc]
    (lesson_dir / "tree-basics.md").unlink()
    assert list(lib.refresh().lessons) == ["ring-basics"]
