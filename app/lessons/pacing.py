"""How long a lesson takes: reading time and practice time, shown apart (issue 16).

Reading is the lesson's `minutes` (front matter, or words / 200). Practice is counted from what
the lesson asks the reader to do (`inventory.py`) at the rates below, so a lesson that gains a
calculator or a challenge shows the time it costs without anyone editing a number.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.course import Course, Lesson, LessonError

from .inventory import Inventory, take_inventory
from .selfcheck import load_quiz

# Minutes of practice per thing a lesson asks of its reader. Why these: an animation is watched
# through once and a step or two replayed (2); a calculator is read, then one input changed
# and the answer predicted (3); a challenge is worked on paper before opening the solution (4);
# a predict box is a moment's guess before the reveal (1); a self-check question is read,
# answered and its explanation read (1). The stated 3.9 h of reading was 8-12 h with all this.
PRACTICE_MINUTES = {"lab": 2, "calc": 3, "challenge": 4, "predict": 1, "question": 1}


@dataclass(frozen=True)
class Pacing:
    reading: int  # minutes
    practice: int  # minutes
    counts: dict[str, int]  # what the practice is made of, by PRACTICE_MINUTES's names

    def __add__(self, other: Pacing) -> Pacing:
        counts = {k: self.counts.get(k, 0) + other.counts.get(k, 0) for k in PRACTICE_MINUTES}
        return Pacing(self.reading + other.reading, self.practice + other.practice, counts)


NO_TIME = Pacing(0, 0, dict.fromkeys(PRACTICE_MINUTES, 0))


def lesson_pacing(lesson: Lesson, course: Course, quiz_dir: Path) -> Pacing:
    """Reading and practice minutes of one lesson."""
    inventory = take_inventory(lesson)
    counts = {
        "lab": inventory.count("lab"),
        "calc": inventory.count("calc"),
        "challenge": inventory.containers["challenge"],
        "predict": inventory.containers["predict"],
        "question": self_check_questions(inventory, course, quiz_dir),
    }
    practice = sum(PRACTICE_MINUTES[k] * n for k, n in counts.items())
    return Pacing(lesson.minutes, practice, counts)


def self_check_questions(inventory: Inventory, course: Course, quiz_dir: Path) -> int:
    """How many questions the lesson's @quiz asks: its count=, else its file's questions."""
    total = 0
    for embed in inventory.embeds:
        if embed.name != "quiz":
            continue
        try:
            asked = len(load_quiz(quiz_dir / f"{embed.target}.yaml", course))
        except LessonError:
            continue  # a broken quiz file is the renderer's error to show
        count = embed.params.get("count", "")
        total += min(asked, int(count)) if count.isdigit() else asked
    return total


def hours(minutes: int) -> str:
    """Say a total of minutes as a reader plans it: "45 min", "1.5 h", "12 h"."""
    if minutes < 60:
        return f"{minutes} min"
    value = minutes / 60
    return f"{value:.0f} h" if value >= 10 else f"{value:.1f} h".replace(".0 h", " h")
