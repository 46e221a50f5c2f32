"""What a learner reads of a lesson never points at the interview notes the course started from
("as the seed says"): a claim from them is written as "a common interview answer claims …" and
corrected (issue 16). A random seed, the number, is a different word and may stay."""

from __future__ import annotations

import re

import pytest

from app.course import current_course
from app.course.glossary import learner_lines

SEED = re.compile(r"\bseed\b(?<!random seed)", re.IGNORECASE)
COURSE = current_course()


@pytest.mark.parametrize("slug", list(COURSE.lessons))
def test_no_learner_visible_line_mentions_the_seed(slug):
    lines = [ln for ln in learner_lines(COURSE.lessons[slug]) if SEED.search(ln)]
    assert lines == []


def test_the_check_tells_the_seed_from_a_random_seed():
    assert SEED.search("Two, as the seed says.")
    assert not SEED.search("You also broadcast a configuration or a random seed.")
