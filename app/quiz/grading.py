"""Grade one submitted answer on the server and explain it.

`grade(bank, body, secret, graded)` takes the decoded JSON body of POST /api/quiz/answer:

    {"id": "...", "answer": ..., "params": {...}, "token": "..."}   (params/token: numeric, predict)

checks every field (a problem raises `SubmissionError` naming the field, which the web layer
turns into a 400; `StaleQuestion` when ids or a token were not made with this server's key, or
the draw is past its lifetime, so the page can offer a fresh question), recomputes the truth
(the bank's flags, `app.costs` for numeric templates, the engine's trace for predict questions)
and returns the verdict with the explanations. A drawn question (numeric, predict) is graded
once: its draw is claimed in `graded` (`tokens.GradedDraws`) only after the answer was checked,
and a second answer raises `AlreadyGraded`, so a revealed expected value cannot be resubmitted.
"""

from __future__ import annotations

import math

from . import generators, tokens
from .bank import Bank, Question
from .present import option_ids
from .text import plain, render

MAX_ID = 96
MAX_TOKEN = 128
MAX_EXPLAIN = 4000
FIELDS = {"id", "answer", "params", "token"}


class SubmissionError(ValueError):
    """A submission is malformed; `field` names the part that is wrong."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        # A field may be a key of the learner's JSON: a lone surrogate ("\ud800") in it would
        # make the 400 response unencodable, a 500. Escape what UTF-8 cannot carry.
        text = f"{field}: {message}".encode("utf-8", "backslashreplace").decode("utf-8")
        super().__init__(text)


class StaleQuestion(SubmissionError):
    """The answer names option ids or a token this server's key did not make.

    The question came from a server with another key (one restarted with a new
    COLLECTIVE_LAB_SECRET_KEY, or another machine), or was altered. It cannot be graded here;
    the page says so and offers a fresh question.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(
            field,
            f"{message}: this question was made with another key (a server restarted with a new "
            "secret, or another server) and cannot be graded here; ask for a fresh question",
        )


class ExpiredQuestion(StaleQuestion):
    """The draw is older than its token's lifetime (or dated ahead): ask for a fresh question."""

    def __init__(self, field: str, message: str) -> None:
        SubmissionError.__init__(
            self, field, f"{message} and cannot be graded any more; ask for a fresh question"
        )


class AlreadyGraded(SubmissionError):
    """This draw of the question was graded before; its answer may have been shown."""

    def __init__(self) -> None:
        super().__init__(
            "token", "this question's answer was already graded; draw a new question to try again"
        )


def _question(bank: Bank, body) -> Question:
    if not isinstance(body, dict):
        raise SubmissionError("body", "must be a JSON object with id and answer")
    extra = sorted(set(body) - FIELDS)
    if extra:
        raise SubmissionError(extra[0], f"unknown field; allowed: {', '.join(sorted(FIELDS))}")
    qid = body.get("id")
    if not isinstance(qid, str) or not qid or len(qid) > MAX_ID:
        raise SubmissionError("id", "must be a question id string")
    q = bank.by_id.get(qid)
    if q is None:
        raise SubmissionError("id", f"unknown question id {qid!r}")
    if "answer" not in body:
        raise SubmissionError("answer", "is missing")
    return q


def _ids(answer, allowed: list[str], unknown_error=SubmissionError) -> list[str]:
    """Check a list of option ids; an id not in `allowed` raises `unknown_error`."""
    if not isinstance(answer, list) or not all(isinstance(a, str) for a in answer):
        raise SubmissionError("answer", "must be a list of option ids")
    if len(answer) > len(allowed) or len(set(answer)) != len(answer):
        raise SubmissionError("answer", "lists an option more than once")
    unknown = [a for a in answer if a not in allowed]
    if unknown:
        raise unknown_error("answer", f"unknown option id {unknown[0][:40]!r}")
    return answer


def _signed(q: Question, body: dict, secret) -> tuple[dict, tokens.Draw]:
    """Return the drawn parameters and their draw, after checking signature, age and domain."""
    params, token = body.get("params"), body.get("token")
    if not isinstance(params, dict):
        raise SubmissionError("params", "must be the object the question came with")
    for key, value in params.items():
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise SubmissionError(f"params.{key}"[:60], "must be a number or a string")
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN:
        raise SubmissionError("token", "must be the token the question came with")
    if not tokens.verify(secret, q.id, params, token):
        raise StaleQuestion("params", "do not match their token")
    draw = tokens.parse_draw(token)
    too_old = tokens.age_problem(draw)
    if too_old:
        raise ExpiredQuestion("token", too_old)
    if q.kind == "numeric":
        problem = generators.check_draw(q.numeric.params, params)
    else:
        problem = generators.check_predict(q.predict, params)
    if problem:
        raise SubmissionError("params", problem)
    return params, draw


def grade(bank: Bank, body, secret, graded: tokens.GradedDraws | None = None) -> dict:
    """Grade one submission; raise SubmissionError if it is malformed or its draw was graded.

    Without `graded` nothing is recorded (a drawn question may then be graded again).
    """
    q = _question(bank, body)
    params = draw = None
    if q.kind in ("numeric", "predict"):
        params, draw = _signed(q, body, secret)
    elif "params" in body or "token" in body:
        name = "params" if "params" in body else "token"
        raise SubmissionError(name, f"a {q.kind} question takes no {name}")
    result = GRADERS[q.kind](q, body["answer"], secret, params, bank.language)
    # Claimed only now: an answer refused as malformed leaves the question open.
    if draw is not None and graded is not None and not graded.claim(draw):
        raise AlreadyGraded()
    result.update(
        id=q.id,
        kind=q.kind,
        topic=q.topic,
        topic_title=bank.titles[q.topic],
        lesson_url=q.lesson_url,
    )
    if q.explanation and "explanation_html" not in result:
        result["explanation_html"] = render(q.explanation)
    result.setdefault("score", 1.0 if result.get("correct") else 0.0)
    return result


def _choice(q: Question, answer, secret, _params, _lang: str) -> dict:
    ids = option_ids(secret, q, "option", len(q.options))
    if q.kind == "single":
        if not isinstance(answer, str):
            raise SubmissionError("answer", "must be one option id (a string)")
        chosen = set(_ids([answer], ids, StaleQuestion))
    else:
        chosen = set(_ids(answer, ids, StaleQuestion))
    right = {i for i, o in zip(ids, q.options, strict=True) if o.correct}
    return {
        "correct": chosen == right,
        "options": [
            {
                "id": i,
                "html": render(o.text, inline=True),
                "correct": o.correct,
                "chosen": i in chosen,
                "why_html": render(o.why, inline=True),
            }
            for i, o in zip(ids, q.options, strict=True)
        ],
    }


def _numeric(q: Question, answer, _secret, params, _lang: str) -> dict:
    if isinstance(answer, bool) or not isinstance(answer, int | float):
        raise SubmissionError("answer", "must be a number")
    try:
        guess = float(answer)
    except OverflowError:  # an integer with hundreds of digits
        raise SubmissionError("answer", "is too large to be a measurement") from None
    if not math.isfinite(guess):
        raise SubmissionError("answer", "must be a finite number")
    spec = q.numeric
    result = generators.solve(spec, params)
    kind, tol = spec.tolerance
    env = generators.environment(spec.params, params)
    out = {
        "correct": generators.within(spec, result.value, guess),
        "expected": float(f"{result.value:.4g}"),
        "expected_text": f"{result.value:.4g} {spec.unit}".strip(),
        "answer": guess,
        "unit": spec.unit,
        "tolerance": f"±{tol:g} {spec.unit}" if kind == "absolute" else f"±{tol * 100:g}%",
        "formula": result.formula,
    }
    if q.explanation:
        out["explanation_html"] = render(generators.fill(q.explanation, env))
    return out


def _predict(q: Question, answer, _secret, params, lang: str) -> dict:
    spec = q.predict
    options = generators.predict_options(spec, params, lang)
    ids = [i for i, _ in options]
    chosen = set(_ids(answer, ids))
    truth = set(generators.predict_truth(spec, params))
    if generators.NONE in ids:
        # "No chunk" is an answer of its own; an empty list (older pages) means the same.
        truth = truth or {generators.NONE}
        chosen = chosen or {generators.NONE}
    return {
        "correct": chosen == truth,
        "options": [
            {"id": i, "html": plain(label), "correct": i in truth, "chosen": i in chosen}
            for i, label in options
        ],
        "steps": generators.describe_step(spec, params, lang),
    }


def _order(q: Question, answer, secret, _params, _lang: str) -> dict:
    ids = option_ids(secret, q, "item", len(q.items))
    if (
        not isinstance(answer, list)
        or not all(isinstance(a, str) for a in answer)
        or len(answer) != len(ids)
        or len(set(answer)) != len(answer)
    ):
        raise SubmissionError("answer", "must list every item id exactly once, in your order")
    if set(answer) != set(ids):
        raise StaleQuestion("answer", "lists item ids this question does not have")
    return {
        "correct": answer == ids,
        "order": [
            {"id": i, "html": render(t, inline=True), "placed_right": answer[n] == i}
            for n, (i, t) in enumerate(zip(ids, q.items, strict=True))
        ],
        "positions_right": sum(a == i for a, i in zip(answer, ids, strict=True)),
    }


def _match(q: Question, answer, secret, _params, _lang: str) -> dict:
    rights = [p.right for p in q.pairs] + list(q.distractors)
    ids = option_ids(secret, q, "right", len(rights))
    lefts = [f"l{i}" for i in range(len(q.pairs))]
    if not isinstance(answer, dict) or set(answer) != set(lefts):
        raise SubmissionError(
            "answer", f"must map every left item ({', '.join(lefts)}) to a right id"
        )
    for left, right in answer.items():
        if not isinstance(right, str):
            raise SubmissionError(f"answer.{left}", "must be a right-hand item id")
        if right not in ids:
            raise StaleQuestion(f"answer.{left}", "is not a right-hand item id of this question")
    html = dict(zip(ids, rights, strict=True))
    pairs = [
        {
            "left_id": left,
            "left_html": render(p.left, inline=True),
            "right_id": right,
            "right_html": render(p.right, inline=True),
            "chosen_id": answer[left],
            "chosen_html": render(html[answer[left]], inline=True),
            "correct": answer[left] == right,
            "why_html": render(p.why, inline=True) if p.why else "",
        }
        for left, right, p in zip(lefts, ids, q.pairs, strict=False)
    ]
    return {"correct": all(p["correct"] for p in pairs), "pairs": pairs}


def _explain(q: Question, answer, _secret, _params, _lang: str) -> dict:
    if not isinstance(answer, str):
        raise SubmissionError("answer", "must be your explanation as a string (it may be empty)")
    if len(answer) > MAX_EXPLAIN:
        raise SubmissionError("answer", f"is longer than {MAX_EXPLAIN} characters")
    return {
        "correct": None,
        "score": None,
        "self_assessed": True,
        "model_answer_html": render(q.model_answer),
        "checklist": [render(item, inline=True) for item in q.checklist],
    }


GRADERS = {
    "single": _choice,
    "multiple": _choice,
    "numeric": _numeric,
    "predict": _predict,
    "order": _order,
    "match": _match,
    "explain": _explain,
}
