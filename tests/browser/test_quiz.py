"""The quiz in real Chromium: a 5-question quiz taken with the keyboard only, the results chart,
history kept and cleared, the mock interview's timer, a phone viewport, a lesson self-check."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from app.quiz import tokens
from tests.quiz.answers import right_answer

pytestmark = [pytest.mark.browser, pytest.mark.server]

TOPICS = "ring-allreduce,hierarchical-allreduce,gradient-compression"


def tab_to(page, selector: str, limit: int = 120) -> None:
    """Press Tab until the element matching `selector` has the focus."""
    target = page.locator(selector)
    for _ in range(limit):
        if target.evaluate("el => el === document.activeElement"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def answer_with_keyboard(page) -> None:
    """Answer the question on screen with keys only, whatever its kind, and submit it."""
    card = page.locator(".question-card")
    kind = card.get_attribute("data-kind")
    if kind == "numeric":
        page.keyboard.type("1.5")  # the answer box has the focus
        page.keyboard.press("Enter")
    elif kind == "order":
        for n in range(card.locator(".order-item").count()):
            page.keyboard.press(str(n + 1))
        page.keyboard.press("Enter")
    elif kind == "match":
        for _ in range(card.locator("select").count()):
            page.keyboard.press("ArrowDown")  # the focused select takes its next option
            page.keyboard.press("Tab")
        tab_to(page, ".submit-answer")
        page.keyboard.press("Enter")
    elif kind == "explain":
        page.keyboard.type("Reduce-scatter, then allgather; 2(p-1)/p of M per rank.")
        page.keyboard.press("Control+Enter")
    else:  # single, multiple, predict
        page.keyboard.press("1")
        page.keyboard.press("Enter")


def test_a_five_question_quiz_with_the_keyboard_only_ends_on_the_chart(page, live_server):
    page.goto(f"{live_server.url}/quiz?topics={TOPICS}&count=5")
    tab_to(page, "button[type=submit]")
    page.keyboard.press("Enter")
    for n in range(1, 6):
        expect(page.locator(".quiz-progress")).to_have_text(f"Question {n} of 5")
        answer_with_keyboard(page)
        expect(page.locator(".feedback .verdict")).to_be_visible()
        expect(page.locator(".feedback .lesson-link a")).to_have_attribute(
            "href", re.compile(r"^/lessons/")
        )
        page.keyboard.press("n")
    results = page.locator(".quiz-results")
    expect(results).to_be_visible()
    expect(results.locator(".score")).to_contain_text(re.compile(r"/ 5"))
    expect(results.locator(".results-chart .main-svg").first).to_be_visible(timeout=10_000)
    bars = results.locator(".results-chart .bars .point")
    assert bars.count() == results.locator(".results-table tbody tr").count() >= 1
    assert page.console_errors == []


def test_feedback_explains_every_option_and_numbers_show_their_formula(page, live_server):
    page.goto(f"{live_server.url}/quiz")
    page.evaluate(
        "CollectiveLab.quizPage.begin(new URLSearchParams('ids=choice-ring-step-count,"
        "num-ring-allreduce-time&count=2'))"
    )
    for _ in range(2):
        card = page.locator(".question-card")
        expect(card).to_be_visible()
        if card.get_attribute("data-kind") == "numeric":
            page.keyboard.type("5")
            page.keyboard.press("Enter")
            expect(page.locator(".feedback .formula")).to_contain_text("2(p−1)·α")
            expect(page.locator(".feedback .formula")).to_contain_text("µs latency +")
        else:
            page.keyboard.press("1")
            page.keyboard.press("Enter")
            expect(page.locator(".feedback .option-feedback li")).to_have_count(4)
            expect(page.locator(".feedback .why")).to_have_count(4)
        page.keyboard.press("n")
    expect(page.locator(".quiz-results")).to_be_visible()
    assert page.console_errors == []


def test_history_is_kept_in_the_browser_and_can_be_cleared(page, live_server):
    page.goto(f"{live_server.url}/quiz")
    page.evaluate("localStorage.clear()")
    page.reload()
    expect(page.locator("[data-role=history-empty]")).to_be_visible()
    page.evaluate(
        "CollectiveLab.quizPage.begin(new URLSearchParams('ids=choice-ring-step-count&count=1'))"
    )
    page.keyboard.press("2")
    page.keyboard.press("Enter")
    expect(page.locator(".feedback .verdict")).to_be_visible()
    page.keyboard.press("n")
    page.locator(".new-quiz").click()
    expect(page.locator(".history-list li")).to_have_count(1)
    expect(page.locator(".history-weak")).to_contain_text("Ring AllReduce")
    stored = page.evaluate("JSON.parse(localStorage.getItem('collective-lab.quiz.history.v1'))")
    assert stored[0]["total"] == 1
    page.locator("[data-role=history-clear]").click()
    expect(page.locator("[data-role=history-empty]")).to_be_visible()
    assert page.evaluate("localStorage.getItem('collective-lab.quiz.history.v1')") is None


def test_practise_again_brings_back_the_missed_questions_with_new_numbers(page, live_server):
    page.goto(f"{live_server.url}/quiz")
    page.evaluate(
        "CollectiveLab.quizPage.begin(new URLSearchParams('ids=num-ring-allreduce-time&count=1'))"
    )
    first_prompt = page.locator(".question-card .prompt").inner_text()
    page.keyboard.type("0.000001")
    page.keyboard.press("Enter")
    expect(page.locator(".feedback .verdict.bad")).to_be_visible()
    page.keyboard.press("n")
    page.locator(".practise-again").click()
    expect(page.locator(".question-card")).to_have_attribute(
        "data-question-id", "num-ring-allreduce-time"
    )
    prompts = {first_prompt}
    for _ in range(6):  # new numbers on a retry (a repeat draw is possible, so try a few)
        prompts.add(page.locator(".question-card .prompt").inner_text())
        if len(prompts) > 1:
            break
        page.locator(".quiz-quit").click()
        page.locator(".practise-again").click()
    assert len(prompts) > 1


def test_the_mock_interview_has_ten_questions_and_a_timer(page, live_server):
    page.goto(f"{live_server.url}/quiz")
    page.get_by_role("button", name=re.compile("Mock interview")).click()
    expect(page.locator(".quiz-progress")).to_have_text("Question 1 of 10")
    expect(page.locator(".quiz-timer")).to_have_text(re.compile(r"Time left 1[45]:\d\d"))
    page.locator(".quiz-quit").click()
    expect(page.locator(".quiz-results .missed li")).to_have_count(10)
    assert page.console_errors == []


@pytest.mark.parametrize("size", [(1280, 900), (390, 844)])
def test_the_page_fits_the_screen_without_sideways_scrolling(browser, live_server, size):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.goto(f"{live_server.url}/quiz?topics=ring-allreduce")
    overflow = "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    assert page.evaluate(overflow) <= 0
    page.evaluate(
        "CollectiveLab.quizPage.begin(new URLSearchParams('kinds=predict,order,match&count=3'))"
    )
    for _ in range(3):
        expect(page.locator(".question-card")).to_be_visible()
        assert page.evaluate(overflow) <= 0
        buttons = page.locator(".question-card .option, .question-card .order-item")
        for i in range(buttons.count()):
            assert buttons.nth(i).bounding_box()["height"] >= 40  # thumb-sized targets
        answer_with_keyboard(page)
        expect(page.locator(".feedback .verdict")).to_be_visible()
        page.keyboard.press("n")
    context.close()


def test_a_lesson_self_check_runs_inside_the_lesson_and_shows_no_answers(page, live_server):
    page.goto(f"{live_server.url}/lessons/ring-allreduce")
    section = page.locator("section.quiz-embed")
    expect(section).to_have_attribute("data-quiz-lesson", "ring-allreduce")
    html = page.content()
    assert "Show answer" not in html and "why" not in section.inner_html()
    # The lesson page loads the quiz runner itself.
    assert page.evaluate("!!window.CollectiveLab.quiz.Runner")
    card = section.locator(".question-card")
    expect(card).to_be_visible()
    assert page.evaluate("document.activeElement === document.body")  # no focus stolen on load
    card.locator(".option").first.click()
    section.locator(".submit-answer").click()
    expect(section.locator(".feedback .verdict")).to_be_visible()
    expect(section.locator(".feedback .why").first).to_be_visible()
    # A miss in a self-check joins the review list of /quiz, kept in this browser.
    missed = section.locator(".feedback .verdict.bad").count() == 1
    listed = page.evaluate("JSON.parse(localStorage.getItem('collective-lab.quiz.review.v1'))")
    assert (card.get_attribute("data-question-id") in (listed or {})) is missed
    assert page.console_errors == []


def start_quiz_dealt_by(page, live_server, deal, ids: str) -> None:
    """Open /quiz and start a quiz of the questions `ids`, which pass through `deal(route)`."""
    page.route(re.compile(r"/api/quiz/questions\?"), deal)
    page.goto(f"{live_server.url}/quiz")
    count = len(ids.split(","))
    page.evaluate(f"CollectiveLab.quizPage.begin(new URLSearchParams('ids={ids}&count={count}'))")


def right_number(shown: dict) -> str:
    """Return the right answer to a shown numeric question, as a learner would type it."""
    return f"{right_answer(shown)['answer']:.6g}"


def test_an_answer_the_server_cannot_grade_offers_a_fresh_question_keeping_the_score(
    page, live_server
):
    served: list[dict] = []

    def hand_out(route):
        data = route.fetch().json()
        if not served:  # the second question came from a server with another key
            second = data["questions"][1]
            second["token"] = tokens.sign("another-server-key", second["id"], second["params"])
        served.append(data)
        route.fulfill(json=data)

    start_quiz_dealt_by(
        page, live_server, hand_out, "num-ring-allreduce-time,num-ring-bytes-per-rank"
    )
    first, second = served[0]["questions"]
    expect(page.locator(".quiz-progress")).to_have_text("Question 1 of 2")
    page.keyboard.type(right_number(first))
    page.keyboard.press("Enter")
    expect(page.locator(".feedback .verdict.ok")).to_be_visible()
    page.keyboard.press("n")

    expect(page.locator(".question-card")).to_have_attribute("data-question-id", second["id"])
    page.keyboard.type(right_number(second))
    page.keyboard.press("Enter")
    stale = page.locator(".quiz-stale")
    expect(stale).to_be_visible()
    expect(stale).to_contain_text("cannot be checked")
    expect(stale).to_contain_text("another key")
    expect(stale).to_contain_text("Your score so far is kept: 1 of 1")
    expect(page.locator(".feedback .verdict")).to_have_count(0)

    stale.get_by_role("button", name="Continue with a fresh question").click()
    expect(stale).to_be_hidden()
    expect(page.locator(".quiz-progress")).to_have_text("Question 2 of 2")
    fresh = served[-1]["questions"][0]
    assert len(served) == 2 and fresh["id"] == second["id"]
    page.keyboard.type(right_number(fresh))
    page.keyboard.press("Enter")
    expect(page.locator(".feedback .verdict.ok")).to_be_visible()
    page.keyboard.press("n")
    expect(page.locator(".quiz-results .score")).to_contain_text("2 / 2")
    refused = [e for e in page.console_errors if "status of 400" not in e]
    assert refused == []


def test_a_predict_question_whose_answer_is_no_chunk_is_answered_none_and_graded_right(
    page, live_server
):
    drawn: list[dict] = []

    def hand_out_a_no_chunk_draw(route):
        # About a third of draws have no complete chunk: ask the server until it deals one.
        for _ in range(60):
            data = route.fetch().json()
            shown = data["questions"][0]
            if not right_answer(shown)["answer"]:
                break
        drawn.append(shown)
        route.fulfill(json=data)

    start_quiz_dealt_by(
        page, live_server, hand_out_a_no_chunk_draw, "predict-ring-allreduce-complete"
    )
    assert right_answer(drawn[0])["answer"] == []
    card = page.locator(".question-card")
    expect(card.locator(".hint")).to_contain_text("If none fits")
    options = card.locator(".option input")
    none = card.locator(".option", has_text="no chunk").locator("input")
    options.first.check()
    none.check()  # "none" and a chunk cannot both be checked
    assert not options.first.is_checked()
    page.keyboard.press("1")  # a chunk by its key clears "none" again
    assert options.first.is_checked() and not none.is_checked()
    none.check()
    page.locator(".submit-answer").click()
    expect(page.locator(".feedback .verdict.ok")).to_have_text("✓ Right.")
    expect(page.locator(".feedback .option-feedback .is-correct")).to_contain_text("no chunk")
    assert page.console_errors == []


def test_results_name_the_topics_the_questions_were_chosen_for(page, live_server):
    chosen = {"ring-allreduce": "Ring AllReduce", "how-nccl-chooses": "How NCCL really chooses"}
    page.goto(f"{live_server.url}/quiz")
    note = page.locator(".topics .topic-note")
    expect(note).to_contain_text("lesson's own questions")
    expect(note).to_contain_text("tagged")
    for slug in chosen:
        page.locator(f"input[name=topics][value={slug}]").check()
    page.locator("input[name=count][value='5']").check()
    page.locator("button[type=submit]").click()
    for n in range(1, 6):
        expect(page.locator(".quiz-progress")).to_have_text(f"Question {n} of 5")
        badge = page.locator(".question-card .badge.topic").inner_text()
        assert any(badge.startswith(title) for title in chosen.values()), badge
        answer_with_keyboard(page)
        expect(page.locator(".feedback .verdict")).to_be_visible()
        page.keyboard.press("n")
    rows = page.locator(".quiz-results .results-table tbody tr")
    expect(rows.first).to_be_visible()
    named = rows.locator("td:first-child a")
    for i in range(named.count()):
        title, href = named.nth(i).inner_text(), named.nth(i).get_attribute("href")
        assert href in {f"/lessons/{slug}" for slug in chosen}, (title, href)
        assert any(title.startswith(t) for t in chosen.values()), title
    per_topic = rows.locator("td:nth-child(2)").all_inner_texts()
    assert sum(int(text.split("/")[1]) for text in per_topic) == 5
    assert page.console_errors == []
