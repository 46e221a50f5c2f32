"""A class in real Chromium: a teacher and three students, each in a browser context of their own.

Join by code, follow the teacher's run step by step, explore and come back, answer a poll, see
the reveal, see the class end; a phone-sized student page never scrolls sideways. The server
side is the real `/class` namespace on a live server of its own.
"""

from __future__ import annotations

import pytest

from app import create_app
from app.classroom.polls import poll_key
from app.collectives import simulate
from app.quiz import current_bank
from app.quiz.present import option_ids
from tests.conftest import TEST_CONFIG, LiveServer
from tests.web.test_scale_out import SECRET, running_cluster

pytestmark = [pytest.mark.browser, pytest.mark.server]

COUNTER = '.player [data-role="counter"]'
FORWARD = '.player [data-role="forward"]'
BACK = '.player [data-role="back"]'
MEMBERS = '[data-role="members"]'
FORM_KEYS = ("collective", "algorithm", "ranks", "elements")
CARD = '[data-role="poll-card"]'
POLLS = '[data-role="polls"]'
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


@pytest.fixture(scope="module")
def class_app():
    return create_app(TEST_CONFIG)


@pytest.fixture(scope="module")
def server(class_app):
    with LiveServer(class_app) as live:
        yield live


@pytest.fixture
def open_page(browser):
    """Open pages in browser contexts of their own (separate storage: separate people)."""
    contexts = []

    def make(**options):
        context = browser.new_context(**({"viewport": {"width": 1280, "height": 900}} | options))
        contexts.append(context)
        page = context.new_page()
        page.console_errors = []
        page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
        page.on("pageerror", lambda e: page.console_errors.append(str(e)))
        return page

    yield make
    for context in contexts:
        context.close()


def joined(page, role: str) -> None:
    page.wait_for_function(
        "role => { const r = document.querySelector('[data-role=class]');"
        " return Boolean(r) && r.dataset.joined === 'yes' && r.dataset.joinedAs === role; }",
        arg=role,
    )


def text_is(page, selector: str, text: str) -> None:
    page.wait_for_function(
        "([s, t]) => document.querySelector(s).textContent === t", arg=[selector, text]
    )


def counter_is(page, text: str) -> None:
    text_is(page, COUNTER, text)


def counter(page) -> str:
    return page.locator(COUNTER).inner_text()


def start_class(page, base_url: str) -> str:
    page.goto(f"{base_url}/class")
    page.click('[data-role="start"]')
    page.wait_for_url(f"{base_url}/class/*")
    joined(page, "teacher")
    return page.locator('[data-role="class"]').get_attribute("data-code")


def join_as_student(page, url: str, name: str) -> None:
    page.goto(url)
    page.fill("#member-name", name)
    page.click('[data-role="join-card"] button[type="submit"]')
    joined(page, "student")


def class_of_one(open_page, base_url: str):
    """Start a class and let one student join it; return (teacher, student) on the same step."""
    teacher = open_page()
    code = start_class(teacher, base_url)
    student = open_page()
    join_as_student(student, f"{base_url}/class/{code}", "")
    counter_is(student, counter(teacher))
    return teacher, student


def set_ranks(page, ranks: int) -> None:
    page.eval_on_selector(
        "#ranks",
        "(el, r) => { el.value = r; el.dispatchEvent(new Event('input', {bubbles: true}));"
        " el.dispatchEvent(new Event('change', {bubbles: true})); }",
        ranks,
    )


def form_of(page) -> dict:
    return {key: page.input_value(f"#{key}") for key in FORM_KEYS}


def no_sideways_scroll(page) -> bool:
    return page.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )


def answer(page, option_id: str) -> None:
    page.click(f'[data-role="poll-card"] label[data-option-id="{option_id}"]')
    page.click('[data-role="poll-send"]')
    page.wait_for_function(
        "() => document.querySelector('[data-role=poll-card]').dataset.state === 'answered'"
    )


def test_a_teacher_and_three_students_run_a_class(server, class_app, open_page):
    run_a_class(open_page, server.url, server.url, class_app.config["SECRET_KEY"])


@pytest.fixture(scope="module")
def two_processes(redis_server, tmp_path_factory):
    """Two real `python -m app --message-queue` processes on one redis-server and one key."""
    folders = [tmp_path_factory.mktemp(name) for name in ("class-a", "class-b")]
    with running_cluster(redis_server.url, folders) as processes:
        yield processes


def test_the_same_class_across_two_processes_behind_redis(two_processes, open_page):
    """The teacher's page on process A, the students' on process B: the room is one."""
    a, b = two_processes
    run_a_class(open_page, a.url, b.url, SECRET)


def run_a_class(open_page, teacher_url: str, student_url: str, secret_key: str) -> None:
    """Teacher at `teacher_url`, three students at `student_url`: join, follow, poll, end."""
    teacher = open_page()
    code = start_class(teacher, teacher_url)
    assert teacher.locator('[data-role="teacher-bar"]').is_visible()
    assert teacher.locator('[data-role="big-code"]').inner_text().endswith(code)

    # One student types the code on /class (in lower case, with a dash); two open the link.
    first = open_page()
    first.goto(f"{student_url}/class")
    first.fill("#join-code", f"{code[:3].lower()}-{code[3:].lower()}")
    first.click(".class-join-form button[type=submit]")
    first.wait_for_url(f"{student_url}/class/{code}")
    first.fill("#member-name", "Ada")
    first.click('[data-role="join-card"] button[type="submit"]')
    joined(first, "student")
    second = open_page()
    join_as_student(second, f"{student_url}/class/{code}", "Grace")
    phone = open_page(**PHONE)
    join_as_student(phone, f"{student_url}/class/{code}", "")
    students = [first, second, phone]
    text_is(teacher, MEMBERS, "3")
    assert teacher.locator('[data-role="members-label"]').inner_text() == "students present"
    assert no_sideways_scroll(phone)

    # The teacher changes the run and steps: every student shows the same step of the same run.
    teacher.select_option("#algorithm", "binary_tree")
    set_ranks(teacher, 5)
    shown = form_of(teacher)
    assert shown["algorithm"] == "binary_tree" and shown["ranks"] == "5"
    elements = int(shown["elements"])
    total = len(simulate("allreduce", "binary_tree", ranks=5, elements=elements).steps)
    # The new run has started (8 ranks had 6 steps): a click before it would move the old one.
    counter_is(teacher, f"step 0 of {total}")
    teacher.click(FORWARD)
    teacher.click(FORWARD)
    assert counter(teacher) == f"step 2 of {total}"
    for student in students:
        counter_is(student, f"step 2 of {total}")
        assert form_of(student) == shown
        assert student.locator("#algorithm").is_disabled()  # following: the teacher's controls
        assert student.locator(FORWARD).is_disabled()
    assert no_sideways_scroll(phone)

    # A student explores on their own, then goes back to the teacher.
    first.click('[data-role="explore"]')
    assert first.locator("#algorithm").is_enabled()
    first.click(BACK)
    counter_is(first, f"step 1 of {total}")
    teacher.click(FORWARD)
    counter_is(second, f"step 3 of {total}")
    assert counter(first) == f"step 1 of {total}"  # exploring: the room's steps wait
    first.click('[data-role="back"]')
    counter_is(first, f"step 3 of {total}")
    assert first.locator("#algorithm").is_disabled()

    # A poll: the teacher opens a single-choice question; two answer right, one wrong.
    teacher.select_option('[data-role="poll-count"]', "20")
    teacher.click('[data-role="poll-pick"] button[type="submit"]')
    item = teacher.locator('.poll-item[data-kind="single"]').first
    question_id = item.get_attribute("data-question-id")
    item.locator("button").click()
    first.wait_for_selector(f"{CARD}[data-poll-id]")
    poll_id = first.locator(CARD).get_attribute("data-poll-id")
    question = current_bank().by_id[question_id]
    key = poll_key(secret_key, poll_id)  # a poll's option ids are its own
    ids = option_ids(key, question, "option", len(question.options))
    right = next(i for i, o in zip(ids, question.options, strict=True) if o.correct)
    wrong = next(i for i, o in zip(ids, question.options, strict=True) if not o.correct)
    for student in students:
        student.wait_for_selector('[data-role="poll-card"] label[data-option-id]')
    assert no_sideways_scroll(phone)
    answer(first, right)
    answer(second, right)
    answer(phone, right)
    answer(phone, wrong)  # changed before the reveal: the later answer counts
    assert "until the teacher reveals" in phone.locator('[data-role="poll-recorded"]').inner_text()
    text_is(teacher, "[data-role=poll-answered]", "3 of 3 answered")
    for student in students:  # nothing tells a student the answer before the reveal
        assert student.locator(".is-right").count() == 0
    teacher.click('[data-role="poll-reveal"]')
    for student in students:
        student.wait_for_function(
            "() => document.querySelector('[data-role=poll-card]').dataset.state === 'revealed'"
        )
        marked = student.locator('[data-role="poll-card"] label.is-right')
        assert [marked.nth(i).get_attribute("data-option-id") for i in range(marked.count())] == [
            right
        ]
        assert student.locator('[data-role="poll-right"]').inner_text().startswith("Right answer: ")
        assert "(right): 2" in student.locator(f"{CARD} [data-role=poll-chart-text]").inner_text()
    assert first.locator('[data-role="poll-verdict"]').inner_text() == "✓ You had it right"
    assert phone.locator('[data-role="poll-verdict"]').inner_text().startswith("✗")
    assert "(right): 2" in teacher.locator(f"{POLLS} [data-role=poll-chart-text]").inner_text()
    assert no_sideways_scroll(phone)

    # The teacher ends the class; every student sees that it ended.
    teacher.click('[data-role="end"]')
    teacher.click('[data-role="end-yes"]')
    for page in [*students, teacher]:
        page.wait_for_selector('[data-role="ended"]', state="visible")
        assert page.locator('[data-role="ended-title"]').inner_text() == "The class has ended"
        assert page.locator('[data-role="lab"]').is_hidden()
    assert no_sideways_scroll(phone)
    for page in [teacher, *students]:
        assert page.console_errors == []


def test_a_reload_keeps_the_teacher_in_control_and_a_student_on_the_teachers_step(
    server, open_page
):
    teacher = open_page()
    code = start_class(teacher, server.url)
    student = open_page()
    join_as_student(student, f"{server.url}/class/{code}", "Linus")
    counter_is(student, counter(teacher))
    teacher.select_option("#collective", "broadcast")  # a rooted collective, rooted at rank 2
    teacher.fill("#root", "2")
    teacher.press("#root", "Tab")
    student.wait_for_function("() => document.querySelector('#root').value === '2'")
    shown = form_of(teacher)
    run = simulate(
        "broadcast", shown["algorithm"], ranks=8, elements=int(shown["elements"]), root=2
    )
    counter_is(teacher, f"step 0 of {len(run.steps)}")
    counter_is(student, f"step 0 of {len(run.steps)}")
    assert form_of(student) == shown
    teacher.click(FORWARD)
    teacher.click(FORWARD)
    step = counter(teacher)
    counter_is(student, step)

    teacher.reload()
    joined(teacher, "teacher")
    counter_is(teacher, step)  # the room's state, shown again
    student.reload()  # the same member: no name asked again
    joined(student, "student")
    counter_is(student, step)
    assert student.locator('[data-role="join-card"]').is_hidden()
    teacher.click(FORWARD)
    counter_is(student, counter(teacher))
    text_is(teacher, MEMBERS, "1")
    assert teacher.console_errors == [] and student.console_errors == []


def test_a_dropped_student_rejoins_and_catches_up(server, open_page):
    teacher, student = class_of_one(open_page, server.url)
    student.evaluate("() => CollectiveLab.labPage.client.socket.io.engine.close()")
    teacher.click(FORWARD)
    teacher.click(FORWARD)
    counter_is(student, counter(teacher))
    text_is(teacher, MEMBERS, "1")
    assert teacher.console_errors == []


def test_a_room_that_does_not_exist_says_so(server, open_page):
    page = open_page()
    page.goto(f"{server.url}/class/ACDEFG")
    page.fill("#member-name", "Late")
    page.click('[data-role="join-card"] button[type="submit"]')
    page.wait_for_selector('[data-role="ended"]', state="visible")
    assert page.locator('[data-role="ended-title"]').inner_text() == "No class here"
    assert "ACDEFG" in page.locator('[data-role="ended-text"]').inner_text()


def test_play_pause_and_speed_are_mirrored(server, open_page):
    teacher, student = class_of_one(open_page, server.url)
    teacher.select_option('.player [data-role="speed"]', "0.5")  # 2 s a step: time to pause
    student.wait_for_function(
        "() => Number(document.querySelector('.player [data-role=speed]').value) === 0.5"
    )
    play = '.player [data-role="play"]'
    teacher.click(play)
    student.wait_for_function(
        "s => document.querySelector(s).getAttribute('aria-pressed') === 'true'", arg=play
    )
    teacher.click(play)  # pause: the student lands on the teacher's step, paused
    assert teacher.locator(play).get_attribute("aria-pressed") == "false"
    # Wait for the pause itself: the student's own playback can reach the teacher's step
    # before the paused state arrives (the fresh-clone run at 6c8489d read it in between).
    student.wait_for_function(
        "s => document.querySelector(s).getAttribute('aria-pressed') === 'false'", arg=play
    )
    counter_is(student, counter(teacher))
    assert teacher.console_errors == [] and student.console_errors == []


def test_a_zh_student_answers_a_poll_in_chinese_beside_an_english_teacher(server, open_page):
    """The zh and en answers' one tally is tests/web/test_classroom_languages.py's; here a zh
    page at phone width reads the poll, its card and the reveal in Chinese."""
    teacher = open_page()
    code = start_class(teacher, server.url)
    zh = open_page(**PHONE)
    join_as_student(zh, f"{server.url}/class/{code}?lang=zh", "李雷")
    teacher.click('[data-role="poll-predict"]')  # a predict question about the run on screen
    zh.wait_for_selector(f"{CARD} label[data-option-id]")
    answer(zh, zh.locator(f"{CARD} label[data-option-id]").first.get_attribute("data-option-id"))
    text_is(teacher, '[data-role="poll-answered"]', "1 of 1 answered")
    assert zh.locator('[data-role="poll-send"]').inner_text() == "修改我的答案"
    assert "答案已记录" in zh.locator('[data-role="poll-recorded"]').inner_text()
    teacher.click('[data-role="poll-reveal"]')
    zh.wait_for_function(
        "() => document.querySelector('[data-role=poll-card]').dataset.state === 'revealed'"
    )
    assert zh.locator('[data-role="poll-right"]').inner_text().startswith("正确答案：")
    assert "1 人作答" in zh.locator(f'{CARD} [data-role="poll-chart-text"]').inner_text()
    assert teacher.locator('[data-role="poll-result"]').inner_text().startswith("Right answer: ")
    assert no_sideways_scroll(zh)
    assert zh.console_errors == [] and teacher.console_errors == []
