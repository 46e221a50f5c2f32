"""Polls: a bank question put to the whole room, graded on the server, tallied, then revealed.

A poll's record (what the store keeps) holds the question's public form, drawn once so every
student sees the same numbers and the same option order; the drawn parameters and their
signature, which grading needs; and the answer key, made when the poll opens by grading a
probe answer with `app.quiz.grade` (so the key is the grader's own truth) and sent to nobody
until the teacher reveals it.

A poll signs its draw and makes its option ids with a key of its own, derived from SECRET_KEY
and the poll id (`poll_key`, the same on every process): what a student sees of a poll is not
something the quiz's own grader (`POST /api/quiz/answer`) will grade, so the poll's numbers
cannot be checked there before the reveal.

Tally keys: an option id for single and multiple choice and predict questions (each chosen
option counts; an empty predict answer is the option "none"), the value to 4 significant digits
for numeric ones, "right" or "wrong" for order and match. Explain questions are not polled:
nothing grades them.

Languages: a room mixes readers. A poll is drawn once, then put in every language the question
has a translation in (`Bank.in_language`): the same draw (the generator's state is replayed),
so the same numbers, option ids and order, with the texts in that language. Each member is sent
its language's `public_poll` and `result`; answers are graded against the one draw, so zh and
en answers count in one tally. The record keeps the other languages' texts under `texts`.

`"predict-next-step"` picks a predict question about the run on screen: one whose cases can be
drawn at the teacher's collective, algorithm, ranks, root and node size, asking about the step
after the one shown. When none can (the bank's predict questions draw 4-16 ranks, and only the
steps where the rank asked about acts), it takes a predict question about the same collective
and algorithm at a size it draws, and the poll's note says so.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import random

from app.collectives import COLLECTIVES
from app.i18n import DEFAULT, LANGUAGES, N_
from app.quiz import Bank, Question, StaleQuestion, SubmissionError, generators, grade, public

from . import checks
from .checks import ClassError, said
from .store import Answer, Tally

PREDICT_NEXT_STEP = "predict-next-step"
POLLED_KINDS = ("single", "multiple", "numeric", "predict", "order", "match")


def make_poll(bank: Bank, secret: str, question_id: object, state: dict | None) -> dict:
    """Draw the question `question_id` names and return the poll's record, or raise ClassError."""
    rng = random.Random()
    note = None
    drawn = None
    if question_id == PREDICT_NEXT_STEP:
        q, drawn, note = _predict_for(bank, state, rng)
    else:
        q = _bank_question(bank, question_id)
    poll_id = checks.new_poll_id()
    replay = rng.getstate()  # every language's copy is drawn from here: the same draw
    question = public(bank, q, poll_key(secret, poll_id), rng, drawn=drawn)
    signed = {k: question[k] for k in ("params", "token") if k in question}
    record = {
        "poll_id": poll_id,
        "question_id": q.id,
        "kind": q.kind,
        "question": question,
        "signed": signed,
        "note": note,
    }
    record["key"] = _answer_key(bank, secret, record)
    record["texts"] = _other_languages(bank, secret, record, q, replay, drawn)
    return record


def _other_languages(bank: Bank, secret: str, record: dict, q: Question, replay, drawn) -> dict:
    """Return {lang: {question, why, detail}} for each language `q` is translated in."""
    texts = {}
    for lang in LANGUAGES:
        if lang == bank.language or lang not in q.translations:
            continue
        theirs = bank.in_language(lang)
        rng = random.Random()
        rng.setstate(replay)
        question = public(theirs, theirs.by_id[q.id], poll_key(secret, record["poll_id"]), rng,
                          drawn=drawn)  # fmt: skip
        question.update(record["signed"])  # one signed draw: a token is signed afresh each time
        key = _answer_key(theirs, secret, {**record, "question": question})
        texts[lang] = {"question": question, "why": key["why"], "detail": key["detail"]}
    return texts


def _texts(record: dict, lang: str) -> dict:
    """The poll's texts in `lang` (English, the bank's own, when it has no translation)."""
    theirs = record.get("texts", {}).get(lang)
    if theirs is not None:
        return theirs
    return {"question": record["question"], **record["key"]}


def poll_key(secret: str | bytes, poll_id: str) -> bytes:
    """Return the key poll `poll_id` signs and grades with: SECRET_KEY's, for this poll only."""
    raw = secret.encode() if isinstance(secret, str) else secret
    return hmac.new(raw, b"classroom poll\x00" + poll_id.encode(), hashlib.sha256).digest()


def public_poll(record: dict, lang: str = DEFAULT) -> dict:
    """What every member reading `lang` sees of an open poll: its id and the question, no answer."""
    return {"poll_id": record["poll_id"], "question": _texts(record, lang)["question"]}


def result(record: dict, tally: Tally, lang: str = DEFAULT) -> dict:
    """What every member reading `lang` sees once the poll is revealed: the right answer, why,
    the counts (the same ids, numbers and counts in every language)."""
    texts = _texts(record, lang)
    return {
        "poll_id": record["poll_id"],
        "correct": record["key"]["correct"],
        "why": texts["why"],
        "detail": texts["detail"],
        "counts": tally.counts,
        "answered": tally.answered,
        "right": tally.right,
    }


def grade_answer(bank: Bank, secret: str, record: dict, answer: object) -> Answer:
    """Grade a member's answer to the poll; raise ClassError naming `answer` if malformed."""
    body = {"id": record["question_id"], "answer": answer, **record["signed"]}
    try:  # no record of graded draws: a later answer replaces this one until the reveal
        verdict = grade(bank, body, poll_key(secret, record["poll_id"]))
    except StaleQuestion as e:  # an id the poll's key did not make: not one of its options
        raise ClassError(e.field, N_("not an option of this poll's question")) from None
    except SubmissionError as e:
        raise ClassError(e.field, str(e).removeprefix(f"{e.field}: ")) from None
    return Answer(answer, _tally_keys(record["kind"], answer, verdict), verdict["correct"] is True)


def _tally_keys(kind: str, answer: object, verdict: dict) -> tuple[str, ...]:
    if kind == "single":
        return (answer,)
    if kind in ("multiple", "predict"):
        chosen = tuple(answer)
        if not chosen and kind == "predict" and _has_none(verdict):
            return (generators.NONE,)
        return chosen
    if kind == "numeric":
        return (f"{float(answer):.4g}",)
    return ("right" if verdict["correct"] else "wrong",)


def _has_none(verdict: dict) -> bool:
    return any(o["id"] == generators.NONE for o in verdict["options"])


def _bank_question(bank: Bank, question_id: object) -> Question:
    if not isinstance(question_id, str) or not question_id:
        raise ClassError(
            "question_id",
            N_('must be a bank question id or "%(predict)s"'),
            predict=PREDICT_NEXT_STEP,
        )
    q = bank.by_id.get(question_id)
    if q is None:
        raise ClassError(
            "question_id", N_("no question %(id)s in the bank"), id=checks.shown(question_id)
        )
    if q.kind not in POLLED_KINDS:
        raise ClassError(
            "question_id",
            N_(
                "%(kind)s questions cannot be polled (nothing grades them); "
                "pick one of kind %(kinds)s"
            ),
            kind=q.kind,
            kinds=", ".join(POLLED_KINDS),
        )
    return q


def _predict_for(bank: Bank, state: dict | None, rng: random.Random) -> tuple:
    """Return (question, draw, note) for a predict question about the run on screen."""
    if state is None:
        raise ClassError(
            "question_id",
            N_("%(predict)s needs a run on screen: drive first"),
            predict=PREDICT_NEXT_STEP,
        )
    c, a = state["collective"], state["algorithm"]
    about = [q for q in bank.questions if q.kind == "predict" and _is_about(q, c, a)]
    if not about:
        raise ClassError(
            "question_id",
            N_(
                "no predict question in the bank is about %(algorithm)s %(collective)s; "
                "pick a question by its id"
            ),
            algorithm=a,
            collective=c,
        )
    root = state["root"] if COLLECTIVES[c].uses_root else 0
    shape = (state["ranks"], root, state["ranks_per_node"])
    rng.shuffle(about)
    for q in about:
        drawn = generators.draw_predict_for(q.predict, rng, c, a, shape, state["step"])
        if drawn is not None:
            note = said(N_("about step %(step)s of the run on screen"), step=state["step"] + 1)
            return q, drawn, note
    q = about[0]
    drawn = generators.draw_predict_for(q.predict, rng, c, a)
    note = said(
        N_(
            "the bank's predict questions do not draw step %(step)s of this run (%(ranks)s ranks); "
            "this one asks about %(algorithm)s %(collective)s on %(drawn)s ranks"
        ),
        step=state["step"] + 1,
        ranks=state["ranks"],
        algorithm=a,
        collective=c,
        drawn=drawn["ranks"],
    )
    return q, drawn, note


def _is_about(q: Question, collective: str, algorithm: str) -> bool:
    return any((k.collective, k.algorithm) == (collective, algorithm) for k in q.predict.cases)


# -- the answer key ------------------------------------------------------------------------------


def _probe(kind: str, question: dict) -> object:
    """Return an answer of the right shape, graded only to read the truth back."""
    if kind == "single":
        return question["options"][0]["id"]
    if kind == "numeric":
        return 0
    if kind == "order":
        return [item["id"] for item in question["items"]]
    if kind == "match":
        return {left["id"]: question["right"][0]["id"] for left in question["left"]}
    return []  # multiple, predict


def _answer_key(bank: Bank, secret: str, record: dict) -> dict:
    """Return {correct, why, detail} for the poll, read from the grader's verdict on a probe."""
    kind = record["kind"]
    body = {"id": record["question_id"], "answer": _probe(kind, record["question"])}
    verdict = grade(bank, {**body, **record["signed"]}, poll_key(secret, record["poll_id"]))
    why = verdict.get("explanation_html", "")
    if kind in ("single", "multiple", "predict"):
        options = [{k: v for k, v in o.items() if k != "chosen"} for o in verdict["options"]]
        right = [o["id"] for o in options if o["correct"]]
        correct = right[0] if kind == "single" else right
        detail = {"options": options}
        if kind == "predict":
            why = "<br>".join(html.escape(line) for line in verdict["steps"])
        elif not why:
            why = " ".join(o["why_html"] for o in options if o["correct"] and o.get("why_html"))
    elif kind == "numeric":
        correct = verdict["expected"]
        detail = {k: verdict[k] for k in ("expected_text", "unit", "tolerance", "formula")}
    elif kind == "order":
        correct = [item["id"] for item in verdict["order"]]
        detail = {"order": [{"id": i["id"], "html": i["html"]} for i in verdict["order"]]}
    else:  # match
        keep = ("left_id", "left_html", "right_id", "right_html", "why_html")
        pairs = [{k: p[k] for k in keep} for p in verdict["pairs"]]
        correct = {p["left_id"]: p["right_id"] for p in pairs}
        detail = {"pairs": pairs}
    return {"correct": correct, "why": why, "detail": detail}
