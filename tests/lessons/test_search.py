"""Full-text lesson search: identifiers such as NCCL_ALGO are found in the body, in any case and
by their beginning, and titles rank above headings above the text.

The expected lessons are computed here by reading the lesson files plainly (tests/lessons/
corpus.py), not by the app's parser, so the lessons can change without these tests changing.
"""

from __future__ import annotations

import re

import pytest

from app.lessons import Library

from .corpus import LESSONS, headings, learner_text, lessons_mentioning, mentions, split_file

# The search box's own placeholder names NCCL_ALGO; the rest were reported as not found.
TERMS = ["NCCL_ALGO", "SHARP", "NCCL_DEBUG", "LL128", "PXN"]


@pytest.fixture(scope="module")
def library():
    return Library(LESSONS).refresh()


def found(library, query: str) -> list[str]:
    return [hit.slug for hit in library.search(query, limit=100)]


@pytest.mark.parametrize("term", TERMS)
def test_each_term_finds_exactly_the_lessons_that_mention_it(library, term):
    expected = lessons_mentioning(term) & set(library.lessons)
    assert expected, f"no lesson mentions {term}: pick another term"
    assert set(found(library, term)) == expected


@pytest.mark.parametrize("term", TERMS)
def test_any_case_and_the_beginning_of_a_word_find_the_same(library, term):
    whole = found(library, term)
    assert whole, f"nothing found for {term}"
    assert found(library, term.lower()) == whole
    assert set(found(library, term[:-1].lower())) >= set(whole)  # "nccl_alg", "shar", "pX"


@pytest.mark.parametrize("term", TERMS)
def test_each_hit_shows_sentences_with_the_term_marked_under_a_heading_of_its_page(library, term):
    hits = library.search(term, limit=100)
    assert hits, f"nothing found for {term}"
    for hit in hits:
        assert hit.snippets, f"{hit.slug}: no sentence shown for {term}"
        page_anchors = {h.id for h in library.rendered(hit.slug).toc}
        page_anchors |= {"objectives-title", "key-points-title", "further-reading"}
        for snippet in hit.snippets:
            marked = [snippet.text[a:b] for a, b in snippet.marks]
            assert marked and all(m.lower().startswith(term.lower()) for m in marked), snippet
            assert snippet.heading is None or snippet.heading[0] in page_anchors, snippet.heading
            assert len(snippet.text) <= 242  # a long sentence is cut around its match
        if mentions_whole_word(LESSONS / f"{hit.slug}.md", term):  # not only NCCL_DEBUG_SUBSYS
            first = hit.snippets[0]
            assert term.lower() in [first.text[a:b].lower() for a, b in first.marks], first


def mentions_whole_word(path, term: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(term)}(?!\w)", learner_text(path), re.I) is not None


def place(path, word: str) -> int:
    """0: the word is in the title, 1: a tag, 2: a heading, 3: only elsewhere."""
    front, _ = split_file(path)
    if mentions(front["title"], word):
        return 0
    if any(mentions(tag, word) for tag in front["tags"]):
        return 1
    if any(mentions(h, word) for h in headings(path)):
        return 2
    return 3


@pytest.mark.parametrize("word", ["ring", "tree", "nccl", "allreduce", "network", "bandwidth"])
def test_title_hits_rank_above_tag_above_heading_above_body_hits(library, word):
    places = [place(LESSONS / f"{slug}.md", word) for slug in found(library, word)]
    assert places == sorted(places), list(zip(found(library, word), places, strict=True))
    assert len(set(places)) >= 2  # the ranking had something to order


def test_markup_is_stripped_and_instructor_notes_are_not_searched(write_lesson, lesson_dir):
    write_lesson(
        "Set **`NCCL_ALGO=Tree`** only to [test it](https://example.org). Then unset it.\n\n"
        "| Variable | Effect |\n|---|---|\n| `NCCL_PROTO` | the protocol |\n\n"
        "::: instructor\nAsk about zanzibar.\n:::\n"
    )
    library = Library(lesson_dir).refresh()
    (hit,) = library.search("nccl_algo")
    (snippet,) = hit.snippets
    assert snippet.text == "Set NCCL_ALGO=Tree only to test it."
    assert [snippet.text[a:b] for a, b in snippet.marks] == ["NCCL_ALGO"]
    row = library.search("NCCL_PROTO")[0].snippets[0]
    assert row.text == "NCCL_PROTO · the protocol"  # a table row reads as one line
    assert library.search("zanzibar") == []


def test_a_sentence_holding_more_query_words_is_shown_first(write_lesson, lesson_dir):
    write_lesson("Zorp is a shape. Quib is another. A zorp and a quib together.\n")
    (hit,) = Library(lesson_dir).refresh().search("zorp quib")
    assert hit.snippets[0].text == "A zorp and a quib together."


def test_the_index_follows_an_edit(write_lesson, lesson_dir):
    library = Library(lesson_dir).refresh()
    assert library.search("PXN") == []
    write_lesson("PXN moves data over NVLink first.\n")
    assert [h.slug for h in library.refresh().search("PXN")] == ["ring-basics"]
