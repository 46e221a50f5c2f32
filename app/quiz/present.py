"""What a learner sees before answering: a question's public form, with no answer in it.

This is the one place that turns a bank question into JSON for the browser, so it is the place
to audit: it copies ids, prompts, option texts, drawn parameters and their signature, and never
`correct`, `why`, `explanation`, model answers, checklists, the items' right order or the pairs.
Options, items and right-hand match items are shuffled, with ids that do not reveal the bank's
order (`tokens.opaque_id`).
"""

from __future__ import annotations

import random

from . import generators, tokens
from .bank import Bank, Question
from .text import plain, render


def option_ids(secret, q: Question, role: str, count: int) -> list[str]:
    """Return the opaque ids of a question's options/items/right-hand items, in bank order."""
    return [tokens.opaque_id(secret, q.id, role, i) for i in range(count)]


def _shuffled(values: list, rng: random.Random, avoid_identity: bool = False) -> list:
    out = list(values)
    for _ in range(20):
        rng.shuffle(out)
        if not avoid_identity or out != list(values) or len(out) < 2:
            break
    return out


def public(
    bank: Bank,
    q: Question,
    secret,
    rng: random.Random,
    chosen_for: str | None = None,
    drawn: dict | None = None,
) -> dict:
    """Return the question as the browser may see it before the learner answers.

    `topic` is the question's own lesson; `chosen_topic` the topic it was selected for
    (`select.chosen_topic`; its own lesson when there was no filter), under which results count it.
    `drawn` is a predict question's draw when the caller chose it (a classroom asks about the
    run on screen: `generators.draw_predict_for`); otherwise one is drawn here.
    """
    chosen = chosen_for or q.topic
    data = {
        "id": q.id,
        "kind": q.kind,
        "difficulty": q.difficulty,
        "tags": list(q.tags),
        "seed_questions": list(q.seed_questions),
        "topic": q.topic,
        "topic_title": bank.titles[q.topic],
        "chosen_topic": chosen,
        "chosen_topic_title": bank.titles[chosen],
        "lesson_url": q.lesson_url,
    }
    if q.kind in ("single", "multiple"):
        data.update(_choice(q, secret, rng))
    elif q.kind == "numeric":
        data.update(_numeric(q, secret, rng))
    elif q.kind == "predict":
        data.update(_predict(q, secret, rng, drawn, bank.language))
    elif q.kind == "order":
        data.update(_order(q, secret, rng))
    elif q.kind == "match":
        data.update(_match(q, secret, rng))
    else:  # explain
        data["prompt_html"] = render(q.prompt)
    return data


def _choice(q: Question, secret, rng: random.Random) -> dict:
    ids = option_ids(secret, q, "option", len(q.options))
    shown = _shuffled(list(zip(ids, q.options, strict=True)), rng)
    return {
        "select": "one" if q.kind == "single" else "many",
        "options": [{"id": i, "html": render(o.text, inline=True)} for i, o in shown],
        "prompt_html": render(q.prompt),
    }


def _numeric(q: Question, secret, rng: random.Random) -> dict:
    spec = q.numeric
    values = generators.draw(spec.params, rng)
    env = generators.environment(spec.params, values)
    return {
        "prompt_html": render(generators.fill(q.prompt, env)),
        "unit": spec.unit,
        "params": values,
        "token": tokens.sign(secret, q.id, values),
    }


def _predict(
    q: Question, secret, rng: random.Random, drawn: dict | None = None, lang: str = "en"
) -> dict:
    spec = q.predict
    values = drawn if drawn is not None else generators.draw_predict(spec, rng)
    env = generators.predict_env(spec, values, lang)
    return {
        "prompt_html": render(generators.fill(q.prompt, env)),
        "select": "many",
        "options": [
            # Checking "none" clears the chunks, and a chunk clears "none".
            {"id": i, "html": plain(label), **({"exclusive": True} if i == generators.NONE else {})}
            for i, label in generators.predict_options(spec, values, lang)
        ],
        "figure": generators.figure(spec, values),
        "params": values,
        "token": tokens.sign(secret, q.id, values),
    }


def _order(q: Question, secret, rng: random.Random) -> dict:
    ids = option_ids(secret, q, "item", len(q.items))
    shown = _shuffled(list(zip(ids, q.items, strict=True)), rng, avoid_identity=True)
    return {
        "items": [{"id": i, "html": render(t, inline=True)} for i, t in shown],
        "prompt_html": render(q.prompt),
    }


def _match(q: Question, secret, rng: random.Random) -> dict:
    rights = [p.right for p in q.pairs] + list(q.distractors)
    ids = option_ids(secret, q, "right", len(rights))
    return {
        "left": [
            {"id": f"l{i}", "html": render(p.left, inline=True)} for i, p in enumerate(q.pairs)
        ],
        "right": [
            {"id": i, "html": render(t, inline=True)}
            for i, t in _shuffled(list(zip(ids, rights, strict=True)), rng)
        ],
        "prompt_html": render(q.prompt),
    }
