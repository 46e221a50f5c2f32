"""Answer a shown question right as a learner would: by reading the texts the page shows.

Needs no secret: the ids come from the question as it was shown, so a test can hand the answer
to another server process and see whether that one still grades it.
"""

from __future__ import annotations

from app.quiz import current_bank, generators
from app.quiz.text import render


def html(text: str) -> str:
    """Return a bank text as the page shows it."""
    return render(text, inline=True)


def right_answer(shown: dict) -> dict:
    """Answer a shown question right as a learner would: by reading the texts on the page."""
    q = current_bank().by_id[shown["id"]]
    body: dict = {"id": q.id}
    if q.kind in ("single", "multiple"):
        right = {html(o.text) for o in q.options if o.correct}
        chosen = [o["id"] for o in shown["options"] if o["html"] in right]
        body["answer"] = chosen[0] if q.kind == "single" else chosen
    elif q.kind == "numeric":
        body.update(params=shown["params"], token=shown["token"])
        body["answer"] = generators.solve(q.numeric, shown["params"]).value
    elif q.kind == "predict":
        body.update(params=shown["params"], token=shown["token"])
        body["answer"] = sorted(generators.predict_truth(q.predict, shown["params"]))
    elif q.kind == "order":
        by_html = {item["html"]: item["id"] for item in shown["items"]}
        body["answer"] = [by_html[html(t)] for t in q.items]
    elif q.kind == "match":
        by_html = {item["html"]: item["id"] for item in shown["right"]}
        body["answer"] = {f"l{i}": by_html[html(p.right)] for i, p in enumerate(q.pairs)}
    else:
        body["answer"] = "Reduce-scatter, then allgather."
    return body
