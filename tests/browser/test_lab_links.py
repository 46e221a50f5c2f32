"""The lab opened from a link, in real Chromium: it runs at once and lands where the link says.

A link with settings in its query runs on load and shows step 0 paused (or the step the link
names, `&step=5`); it plays only when the link asks (`&autoplay=1`). Changing a setting runs
again and shows step 0. The share dialog's link carries the current step, and choosing the
hierarchical algorithm picks a node size that makes two or more nodes.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

COUNTER = '.player [data-role="counter"]'
BADGE = '.player [data-role="badge"]'
PLAY = '.player [data-role="play"]'


def counter_is(page, text: str) -> None:
    page.wait_for_function(
        "(t) => document.querySelector('.player [data-role=counter]').textContent === t",
        arg=text,
        timeout=30_000,
    )


def wait_received(page) -> None:
    """Wait until every step of the run has arrived (the badge stops saying "receiving")."""
    page.wait_for_function(
        "() => { const b = document.querySelector('.player [data-role=badge]');"
        " return b.textContent === 'checked against numpy at the end'"
        " || b.dataset.state === 'ok' || b.dataset.state === 'bad'; }",
        timeout=30_000,
    )


def test_a_lab_link_runs_on_load_and_shows_step_0_paused(live_server, page):
    page.goto(f"{live_server.url}/lab?collective=allreduce&algorithm=ring&ranks=4&elements=8")
    counter_is(page, "step 0 of 6")
    wait_received(page)
    assert page.locator(BADGE).inner_text() == "checked against numpy at the end"
    assert page.locator(PLAY).get_attribute("aria-pressed") == "false", "no autoplay unless asked"
    assert counter(page) == "step 0 of 6"
    assert page.locator(PLAY).is_enabled()
    page.wait_for_function("() => document.querySelector('[data-role=player]').dataset.drawnStep")
    assert page.locator('[data-role="player"]').get_attribute("data-drawn-step") == "0"
    page.keyboard.press("ArrowRight")
    assert counter(page) == "step 1 of 6"
    assert page.console_errors == []


def test_a_link_with_a_step_lands_on_that_step(live_server, page):
    page.goto(f"{live_server.url}/lab?collective=allreduce&algorithm=ring&ranks=4&step=5")
    counter_is(page, "step 5 of 6")
    wait_received(page)
    assert page.locator(PLAY).get_attribute("aria-pressed") == "false"
    assert counter(page) == "step 5 of 6"
    assert page.locator('.player [data-role="phase"]').inner_text() == "allgather"
    assert page.console_errors == []


def test_a_step_past_the_end_lands_on_the_last_step(live_server, page):
    page.goto(f"{live_server.url}/lab?collective=allreduce&algorithm=ring&ranks=4&step=99")
    counter_is(page, "step 6 of 6")
    page.wait_for_function(f"() => document.querySelector('{BADGE}').dataset.state === 'ok'")
    assert page.console_errors == []


def test_a_bad_step_gets_a_page_naming_the_field(live_server, page):
    response = page.goto(f"{live_server.url}/lab?collective=allreduce&algorithm=ring&step=x")
    assert response.status == 400
    assert "step must be an integer" in page.inner_text("body")


def test_a_link_asking_for_autoplay_plays_to_the_end(live_server, page):
    page.goto(
        f"{live_server.url}/lab?collective=allreduce&algorithm=ring&ranks=4&speed=8&autoplay=1"
    )
    counter_is(page, "step 6 of 6")
    page.wait_for_function(f"() => document.querySelector('{BADGE}').dataset.state === 'ok'")
    assert page.console_errors == []


def test_changing_a_setting_runs_again_and_shows_step_0(live_server, page):
    simulates: list[str] = []
    page.on(
        "websocket",
        lambda ws: ws.on(
            "framesent", lambda p: isinstance(p, str) and '"simulate"' in p and simulates.append(p)
        ),
    )
    page.goto(f"{live_server.url}/lab?collective=allreduce&algorithm=ring&ranks=4&step=3")
    counter_is(page, "step 3 of 6")
    page.select_option("#algorithm", "recursive_doubling")
    counter_is(page, "step 0 of 2")
    wait_received(page)
    assert page.locator(PLAY).get_attribute("aria-pressed") == "false"
    assert len(simulates) == 2
    assert '"algorithm":"recursive_doubling"' in simulates[-1]
    assert "step=" not in page.evaluate("location.search")
    assert page.console_errors == []


def test_the_share_link_carries_the_current_step(live_server, page):
    page.goto(f"{live_server.url}/lab?collective=allreduce&algorithm=ring&ranks=4")
    counter_is(page, "step 0 of 6")
    wait_received(page)
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert counter(page) == "step 3 of 6"
    page.click("#share")
    link = page.input_value("#share-link")
    assert link.startswith(f"{live_server.url}/lab?collective=allreduce&algorithm=ring&ranks=4")
    assert "&step=3" in link
    page.keyboard.press("Escape")

    student = page.context.new_page()  # the student opens the teacher's link
    student.goto(link)
    counter_is(student, "step 3 of 6")
    assert student.locator(PLAY).get_attribute("aria-pressed") == "false"
    student.close()
    assert page.console_errors == []


@pytest.mark.parametrize(("ranks", "per_node"), [(8, "4"), (12, "4"), (6, "3"), (7, "1")])
def test_choosing_hierarchical_makes_two_or_more_nodes(live_server, page, ranks, per_node):
    page.goto(f"{live_server.url}/lab?collective=allreduce&algorithm=ring&ranks={ranks}")
    page.select_option("#algorithm", "hierarchical")
    assert page.locator(".field-rpn").is_visible()
    assert page.input_value("#ranks_per_node") == per_node
    assert ranks // int(per_node) >= 2
    assert f"ranks_per_node={per_node}" in page.evaluate("location.search")
    # the page the link opens agrees with the form
    page.goto(f"{live_server.url}/lab?collective=allreduce&algorithm=hierarchical&ranks={ranks}")
    assert page.input_value("#ranks_per_node") == per_node
    assert page.console_errors == []


def test_a_node_size_the_user_chose_is_kept(live_server, page):
    page.goto(f"{live_server.url}/lab?collective=allreduce&algorithm=hierarchical&ranks=8")
    page.select_option("#ranks_per_node", "2")
    page.select_option("#algorithm", "ring")
    page.select_option("#algorithm", "hierarchical")
    assert page.input_value("#ranks_per_node") == "2"
    assert page.console_errors == []


def counter(page) -> str:
    return page.locator(COUNTER).inner_text()
