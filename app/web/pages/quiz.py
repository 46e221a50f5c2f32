"""The quiz page, /quiz: choose topics, difficulty and length, or a 10-question mock interview.

The questions themselves come from the JSON API (app/web/api/quiz.py), which grades too.
"""

from __future__ import annotations

from flask import Blueprint, render_template, request
from flask_babel import gettext as _

from app.i18n import N_
from app.quiz import DIFFICULTIES, BankError
from app.quiz.select import MOCK_LENGTH, MOCK_SECONDS, topic_counts

from ..api.quiz import app_bank, split_list

bp = Blueprint("quiz", __name__)

# How the page names each difficulty (static/js/quiz-base.js names them the same).
DIFFICULTY_LABELS = {
    "warm-up": N_("Warm-up"),
    "interview": N_("Interview"),
    "deep-dive": N_("Deep-dive"),
}


@bp.get("/quiz")
def page():
    """Show the quiz: pick topics, difficulty and length, or start a mock interview."""
    try:
        bank = app_bank()
    except BankError as exc:
        return render_template("quiz/unavailable.html", problems=exc.problems), 503
    sections: dict[str, list[dict]] = {}
    counts = topic_counts(bank)
    for topic in bank.topics():
        if topic["count"]:
            own, tagged = counts[topic["slug"]]
            topic = {**topic, "own": own, "tagged": tagged}
            sections.setdefault(topic["section"], []).append(topic)
    # Lesson pages link their tags here (/quiz?tags=ring-allreduce): preselect those lessons.
    chosen = {s for s in split_list(request.args.get("topics", "")) if s in bank.course.slugs}
    chosen |= {
        bank.course.tags[t]
        for t in split_list(request.args.get("tags", ""))
        if t in bank.course.tags
    }
    return render_template(
        "quiz/quiz.html",
        sections=sections,
        total=len(bank.questions),
        chosen=chosen,
        difficulty=request.args.get("difficulty", ""),
        count=request.args.get("count", "10"),
        difficulties=DIFFICULTIES,
        difficulty_labels={d: _(label) for d, label in DIFFICULTY_LABELS.items()},
        mock_length=MOCK_LENGTH,
        mock_minutes=MOCK_SECONDS // 60,
    )
