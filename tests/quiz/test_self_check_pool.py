"""A lesson's self-check asks the whole bank on the lesson's topic, and only what the course has
taught by then: no tag taught later, no glossary term defined later (issue 16)."""

from __future__ import annotations

import random

import pytest

from app.course import LESSONS_DIR, load_course
from app.course.glossary import load_glossary
from app.quiz.fit import draw_self_check, learner_text, misfits, on_topic, self_check_pool

SLUGS = load_course(LESSONS_DIR / "course.yaml").slugs


@pytest.fixture(scope="module")
def terms(bank):
    return load_glossary(LESSONS_DIR / "glossary.yaml", bank.course)


def own_file(slug: str) -> str:
    return f"lessons/quizzes/{slug}.yaml"


@pytest.mark.parametrize("slug", SLUGS)
def test_a_self_check_draws_beyond_its_own_file_and_never_ahead_of_the_course(bank, terms, slug):
    course = bank.course
    here = course.entries[slug].position
    own, extra = self_check_pool(bank, slug)
    elsewhere = [q for q in bank.questions if on_topic(bank, q, slug) and q.file != own_file(slug)]
    if elsewhere:
        assert extra, f"{slug}: none of {len(elsewhere)} bank questions on its topic fits it"
    assert all(q.file != own_file(slug) for q in extra)
    later_terms = [t for t in terms if course.entries[t.lesson].position > here]
    for q in own + extra:
        assert on_topic(bank, q, slug), q.id
        for tag in q.tags:
            taught = course.tags[tag]
            assert course.entries[taught].position <= here, f"{q.id}: {tag} is taught in {taught}"
        for text in learner_text(q):
            for term in later_terms:
                assert not term.used_in(text), f"{q.id} uses {term.term!r} ({term.lesson}): {text}"


@pytest.mark.parametrize("slug", SLUGS)
def test_every_question_of_a_lessons_own_file_fits_that_lesson(bank, slug):
    """Nothing in a lesson's quiz needs a later lesson: move or reword the question instead."""
    problems = {q.id: misfits(bank, q, slug) for q in bank.questions if q.file == own_file(slug)}
    assert not {qid: why for qid, why in problems.items() if why}


def test_a_question_using_a_later_term_or_tag_is_left_out_and_says_why(bank):
    ring = bank.by_id["num-ring-allreduce-time"]  # the α-β cost of a ring: taught after the ring
    problems = misfits(bank, ring, "ring-allreduce")
    assert "tag 'cost-model' is taught later, in alpha-beta-model" in problems
    assert any(p.startswith("uses 'α-β model'") for p in problems), problems
    assert ring not in self_check_pool(bank, "ring-allreduce")[1]
    assert ring in self_check_pool(bank, "alpha-beta-model")[1]


def test_a_draw_takes_half_from_the_file_in_order_and_a_fresh_question_first(bank):
    own, extra = self_check_pool(bank, "hierarchical-allreduce")
    assert len(own) >= 2 and any(q.kind in ("numeric", "predict") for q in extra)
    for seed in range(20):
        picked = draw_self_check(bank, "hierarchical-allreduce", 4, random.Random(seed))
        assert [q.id for q in picked[:2]] == [q.id for q in own if q in picked[:2]]
        assert all(q in extra for q in picked[2:]) and picked[2].kind in ("numeric", "predict")
    assert draw_self_check(bank, "hierarchical-allreduce", 1, random.Random(0))[0] in own
