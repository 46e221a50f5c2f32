"""Choose the questions of one quiz: by topic, difficulty and kind, balanced across topics.

A topic is a lesson (slug in course.yaml). A question belongs to the topics of its own lesson
and of every lesson that teaches one of its tags, so "hierarchical" finds the questions that
mention hierarchical allreduce wherever they live. A question drawn for a filter counts for the
chosen topic that selected it (`chosen_topic`), not its home lesson: a learner who picked "Ring
AllReduce" sees their score under Ring AllReduce, and the draw is balanced across the chosen
topics.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .bank import Bank
from .questions import DIFFICULTIES, Question

MOCK_LENGTH = 10
MOCK_SECONDS = 15 * 60
MOCK_MIX = (("numeric", 2), ("predict", 1), ("order", 1), ("explain", 1))


def topics_of(bank: Bank, q: Question) -> set[str]:
    """Return the lessons a question counts for when a learner filters by topic."""
    return {q.topic} | {bank.course.tags[t] for t in q.tags if t in bank.course.tags}


def chosen_topic(bank: Bank, q: Question, topics: list[str] | None) -> str:
    """Return the topic a question was selected for: its own lesson if chosen, else the first
    chosen topic among its tags' lessons (no filter, or none matching: its own lesson)."""
    if not topics or q.topic in topics:
        return q.topic
    mine = topics_of(bank, q)
    return next((t for t in topics if t in mine), q.topic)


def topic_counts(bank: Bank) -> dict[str, tuple[int, int]]:
    """Return, per lesson, how many questions picking it selects: (its own, tagged elsewhere)."""
    counts = {slug: [0, 0] for slug in bank.course.slugs}
    for q in bank.questions:
        for slug in topics_of(bank, q):
            counts[slug][q.topic != slug] += 1
    return {slug: (own, tagged) for slug, (own, tagged) in counts.items()}


def candidates(
    bank: Bank,
    *,
    topics: list[str] | None = None,
    difficulty: str | None = None,
    kinds: list[str] | None = None,
) -> list[Question]:
    """Return every question that fits the filters (None means no filter)."""
    out = []
    for q in bank.questions:
        if topics and not topics_of(bank, q) & set(topics):
            continue
        if difficulty and q.difficulty != difficulty:
            continue
        if kinds and q.kind not in kinds:
            continue
        out.append(q)
    return out


def balanced(
    pool: list[Question],
    count: int,
    rng: random.Random,
    topic: Callable[[Question], str] = lambda q: q.topic,
) -> list[Question]:
    """Pick up to `count` questions, taking one topic at a time so every topic gets a turn."""
    by_topic: dict[str, list[Question]] = {}
    for q in pool:
        by_topic.setdefault(topic(q), []).append(q)
    queues = list(by_topic.values())
    for queue in queues:
        rng.shuffle(queue)
    rng.shuffle(queues)
    picked: list[Question] = []
    while len(picked) < count and any(queues):
        for queue in queues:
            if queue and len(picked) < count:
                picked.append(queue.pop())
    return picked


def mock_interview(
    bank: Bank,
    pool: list[Question],
    rng: random.Random,
    topic: Callable[[Question], str] = lambda q: q.topic,
) -> list[Question]:
    """Pick 10 mixed questions: numbers, a trace, an ordering, an explanation, then choices."""
    picked: list[Question] = []
    for kind, n in MOCK_MIX:
        of_kind = [q for q in pool if q.kind == kind or (kind == "order" and q.kind == "match")]
        picked += balanced(of_kind, n, rng, topic)
    rest = [q for q in pool if q not in picked and q.kind in ("single", "multiple")]
    picked += balanced(rest, MOCK_LENGTH - len(picked), rng, topic)
    if len(picked) < MOCK_LENGTH:
        left = [q for q in pool if q not in picked]
        picked += balanced(left, MOCK_LENGTH - len(picked), rng, topic)
    rank = {d: i for i, d in enumerate(DIFFICULTIES)}
    # An interview warms up first and ends on the open question.
    return sorted(picked, key=lambda q: (q.kind == "explain", rank[q.difficulty], rng.random()))
