"""Spaced review in real Chromium: the Leitner schedule (static/js/quiz-review.js) by calendar
day in the learner's time zone, and a missed question coming back the next day on /quiz."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from tests.quiz.answers import right_answer

pytestmark = [pytest.mark.browser, pytest.mark.server]

ZONE = "Europe/Paris"  # not the server's zone: days are the learner's
STORE = "collective-lab.quiz.review.v1"
QUESTION = "num-ring-bytes-per-rank"


@pytest.fixture
def paris(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, timezone_id=ZONE)
    page = context.new_page()
    page.console_errors = []
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    yield page
    context.close()


def at(day: str, hour: int) -> datetime:
    return datetime.fromisoformat(f"{day}T{hour:02d}:00").replace(tzinfo=ZoneInfo(ZONE))


# (entry before, answered right?, answered on, entry after): missed -> tomorrow; right when due
# -> 3, 7, 21 days, then learned (gone); wrong again -> tomorrow; early answers move nothing.
SCHEDULE = [
    (None, False, "2026-03-10", {"box": 0, "due": "2026-03-11"}),
    (None, True, "2026-03-10", None),
    ({"box": 0, "due": "2026-03-11"}, True, "2026-03-11", {"box": 1, "due": "2026-03-14"}),
    ({"box": 1, "due": "2026-03-14"}, True, "2026-03-14", {"box": 2, "due": "2026-03-21"}),
    ({"box": 2, "due": "2026-03-21"}, True, "2026-03-21", {"box": 3, "due": "2026-04-11"}),
    ({"box": 3, "due": "2026-04-11"}, True, "2026-04-11", None),
    ({"box": 2, "due": "2026-03-21"}, False, "2026-03-21", {"box": 0, "due": "2026-03-22"}),
    ({"box": 1, "due": "2026-03-14"}, True, "2026-03-12", {"box": 1, "due": "2026-03-14"}),
    ({"box": 1, "due": "2026-03-14"}, False, "2026-03-12", {"box": 0, "due": "2026-03-13"}),
    ({"box": 0, "due": "2026-03-11"}, True, "2026-03-20", {"box": 1, "due": "2026-03-23"}),
    ({"box": 1, "due": "2026-12-29"}, True, "2026-12-29", {"box": 2, "due": "2027-01-05"}),
    ({"box": 0, "due": "2026-03-28"}, True, "2026-03-28", {"box": 1, "due": "2026-03-31"}),
]


def test_the_schedule_and_the_stored_list(paris, live_server):
    paris.clock.set_fixed_time(at("2026-03-28", 23))  # the night clocks go forward in Paris
    paris.goto(f"{live_server.url}/quiz")
    after = paris.evaluate(
        "cases => cases.map(([entry, right, day]) =>"
        " CollectiveLab.quiz.Review.after(entry, right, day))",
        [case[:3] for case in SCHEDULE],
    )
    assert after == [case[3] for case in SCHEDULE]
    stored = {
        "overdue": {"box": 1, "due": "2026-03-20"},
        "due-today": {"box": 0, "due": "2026-03-28"},
        "later": {"box": 2, "due": "2026-04-04"},
        "soon": {"box": 0, "due": "2026-03-29"},
        "broken": {"box": 9, "due": "whenever"},
    }
    summary = paris.evaluate(
        """stored => {
             const R = CollectiveLab.quiz.Review;
             localStorage.setItem(R.STORE_KEY, JSON.stringify(stored));
             const out = { due: R.due(), summary: R.summary(), when: R.when(R.summary().next) };
             R.record("soon", false);
             out.soon = JSON.parse(localStorage.getItem(R.STORE_KEY)).soon;
             localStorage.setItem(R.STORE_KEY, "not json");
             out.corrupt = R.summary();
             return out;
           }""",
        stored,
    )
    assert paris.evaluate("CollectiveLab.quiz.Review.STORE_KEY") == STORE
    assert summary["due"] == ["overdue", "due-today"]  # longest overdue first
    assert summary["summary"] == {"due": 2, "later": 2, "next": "2026-03-29"}
    assert summary["when"] == "tomorrow"
    assert summary["soon"] == {"box": 0, "due": "2026-03-29"}
    assert summary["corrupt"] == {"due": 0, "later": 0, "next": None}
    assert paris.console_errors == []


def test_a_missed_question_is_due_tomorrow_and_after_a_right_review_in_three_days(
    paris, live_server
):
    served: list[dict] = []

    def keep(route):
        data = route.fetch().json()
        served.append(data)
        route.fulfill(json=data)

    paris.route(re.compile(r"/api/quiz/(questions|review)\?"), keep)
    paris.clock.set_fixed_time(at("2026-03-10", 21))
    paris.goto(f"{live_server.url}/quiz")
    panel = paris.locator("[data-role=review]")
    expect(panel.locator("[data-role=review-due]")).to_have_text("No questions due for review")
    expect(panel.locator("[data-role=review-start]")).to_be_disabled()
    paris.evaluate(f"CollectiveLab.quizPage.begin(new URLSearchParams('ids={QUESTION}&count=1'))")
    expect(paris.locator(".question-card")).to_have_attribute("data-question-id", QUESTION)
    paris.keyboard.type("0.000001")
    paris.keyboard.press("Enter")
    expect(paris.locator(".feedback .verdict.bad")).to_be_visible()
    paris.keyboard.press("n")
    paris.locator(".new-quiz").click()
    expect(panel.locator("[data-role=review-due]")).to_have_text("No questions due for review")
    expect(panel.locator("[data-role=review-later]")).to_have_text(
        "1 question scheduled later; the next is due tomorrow."
    )
    assert paris.evaluate(f"JSON.parse(localStorage.getItem('{STORE}'))") == {
        QUESTION: {"box": 0, "due": "2026-03-11"}
    }

    paris.clock.set_fixed_time(at("2026-03-11", 8))  # the next morning
    paris.reload()
    expect(panel.locator("[data-role=review-due]")).to_have_text("1 question due for review")
    panel.get_by_role("button", name="Review", exact=True).click()
    expect(paris.locator(".question-card")).to_have_attribute("data-question-id", QUESTION)
    review = served[-1]
    assert review["mode"] == "review" and review["unknown"] == []
    paris.keyboard.type(f"{right_answer(review['questions'][0])['answer']:.6g}")
    paris.keyboard.press("Enter")
    expect(paris.locator(".feedback .verdict.ok")).to_be_visible()
    paris.keyboard.press("n")
    paris.locator(".new-quiz").click()
    expect(panel.locator("[data-role=review-due]")).to_have_text("No questions due for review")
    expect(panel.locator("[data-role=review-later]")).to_have_text(
        "1 question scheduled later; the next is due in 3 days."
    )
    assert paris.evaluate(f"JSON.parse(localStorage.getItem('{STORE}'))") == {
        QUESTION: {"box": 1, "due": "2026-03-14"}
    }
    expect(paris.locator(".history-list li").first).to_contain_text("Review: 1 / 1")

    panel.get_by_role("button", name="Forget my review list").click()
    expect(panel.locator("[data-role=review-later]")).to_have_text("")
    assert paris.evaluate(f"localStorage.getItem('{STORE}')") is None
    assert paris.console_errors == []
