"""What a lesson's self-check may ask: the whole bank on the lesson's topic, as far as the course
has taught it by then.

A question fits a lesson when it is on the lesson's topic (it lives in the lesson's own quiz
file, or one of its tags is taught there) and needs nothing taught later: none of its tags is
taught by a later lesson (course.yaml's tag map), and none of its learner-visible text uses a
glossary term (lessons/glossary.yaml) that a later lesson defines. So a learner repeating the
self-check of "Ring AllReduce" meets fresh numbers and predicted steps on rings, and never a
question on α-β, which the next lesson teaches.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from app.course import Course
from app.course.glossary import Term, load_glossary
from app.i18n import DEFAULT

from . import generators
from .bank import Bank, bank_of
from .questions import Question

DRAWN = ("numeric", "predict")  # fresh on every attempt


def learner_text(q: Question) -> Iterator[str]:
    """Yield every text of a question a learner reads: before answering or in the feedback."""
    yield q.prompt
    yield q.explanation
    for o in q.options:
        yield o.text
        yield o.why
    yield from q.items
    for p in q.pairs:
        yield from (p.left, p.right, p.why)
    yield from q.distractors
    yield q.model_answer
    yield from q.checklist


def _drawn_text(q: Question) -> Iterator[str]:
    """Yield one draw's filled prompt and, for numbers, the formula the feedback shows."""
    rng = random.Random(q.id)
    if q.numeric is not None:
        values = generators.draw(q.numeric.params, rng)
        yield generators.fill(q.prompt, generators.environment(q.numeric.params, values))
        yield from generators.solve(q.numeric, values).formula
    if q.predict is not None:
        values = generators.draw_predict(q.predict, rng)
        yield generators.fill(q.prompt, generators.predict_env(q.predict, values))


def glossary_of(course: Course) -> list[Term]:
    """Return the course's glossary terms (none when the lessons folder has no glossary)."""
    path = course.path.parent / "glossary.yaml"
    return course.memo("glossary", lambda c: load_glossary(path, c) if path.is_file() else [])


def misfits(bank: Bank, q: Question, slug: str) -> list[str]:
    """Say why `q` cannot be asked at lesson `slug`: each tag or term taught later (or nothing)."""
    course = bank.course
    here = course.entries[slug].position
    later = {s for s, e in course.entries.items() if e.position > here}
    problems = [
        f"tag {t!r} is taught later, in {course.tags[t]}"
        for t in q.tags
        if course.tags.get(t) in later
    ]
    if q.topic in later:
        problems.append(f"it belongs to a later lesson, {q.topic}")
    terms = [t for t in glossary_of(course) if t.lesson in later]
    if not terms:
        return problems
    texts = [t for t in (*learner_text(q), *_drawn_text(q)) if t]
    algorithms = {c.algorithm for c in q.predict.cases} if q.predict else set()
    for term in terms:
        use = next((m for text in texts if (m := term.used_in(text))), None)
        if use is not None:
            problems.append(f"uses {term.term!r} ({use.group(0)!r}), defined in {term.lesson}")
        elif algorithms & set(term.algorithms):
            problems.append(f"draws {term.term!r} runs, defined in {term.lesson}")
    return problems


def on_topic(bank: Bank, q: Question, slug: str) -> bool:
    """True when the question lives in the lesson's own file or carries a tag taught there."""
    return q.topic == slug or any(bank.course.tags.get(t) == slug for t in q.tags)


def self_check_pool(bank: Bank, slug: str) -> tuple[list[Question], list[Question]]:
    """Return the questions a lesson's self-check may ask: (its own file's, the rest of the
    bank's on its topic), leaving out every question that needs something taught later.

    The pool is chosen on the English questions (the glossary's patterns are English); a bank
    in another language gets the same questions in its words."""
    if bank.language != DEFAULT:
        own, extra = self_check_pool(bank.course.memo("quiz bank", bank_of), slug)
        return [bank.by_id[q.id] for q in own], [bank.by_id[q.id] for q in extra]

    def build(_course: Course) -> tuple[list[Question], list[Question]]:
        fits = [q for q in bank.questions if on_topic(bank, q, slug) and not misfits(bank, q, slug)]
        own = f"lessons/quizzes/{slug}.yaml"
        return [q for q in fits if q.file == own], [q for q in fits if q.file != own]

    return bank.course.memo(("self-check pool", slug), build)


def draw_self_check(bank: Bank, slug: str, count: int, rng: random.Random) -> list[Question]:
    """Pick `count` questions: half from the lesson's own file (in its order), the rest from the
    bank on its topic with a drawn question (fresh numbers or a predicted step) first."""
    own, extra = self_check_pool(bank, slug)
    extra = list(extra)
    rng.shuffle(extra)
    drawn = [q for q in extra if q.kind in DRAWN][:1]
    others = [q for q in extra if q.id not in {d.id for d in drawn}]
    wanted_extra = min(len(extra), max(count // 2, 1 if count > 1 else 0))
    wanted_own = min(len(own), count - wanted_extra)
    wanted_extra = min(len(extra), count - wanted_own)
    mine = sorted(rng.sample(own, wanted_own), key=own.index)
    return mine + (drawn + others)[:wanted_extra]
