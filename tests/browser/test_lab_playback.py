"""The lab's playback in real Chromium: the playback rate, the End key.

- At 64 ranks and 8×, the steps advance at 8 per second, measured on the page's own clock.
- End jumps to the last received step.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

COUNTER = '.player [data-role="counter"]'
BADGE = '.player [data-role="badge"]'


# Record (page clock, step shown) each time the page sets the step counter. The time is taken
# as the text is set, before the page redraws: it is the time the player moved to that step.
WATCH_COUNTER = """() => {
  const el = document.querySelector('.player [data-role="counter"]');
  const text = Object.getOwnPropertyDescriptor(Node.prototype, 'textContent');
  window.counterLog = [];
  Object.defineProperty(el, 'textContent', {
    get() { return text.get.call(this); },
    set(v) {
      const k = Number(v.split(' ')[1]);
      if (v !== text.get.call(this)) window.counterLog.push([performance.now(), k]);
      text.set.call(this, v);
    },
  });
}"""


def slope(points: list[list[float]]) -> float:
    """Least-squares slope of steps against milliseconds, in steps per second."""
    n = len(points)
    mt = sum(t for t, _ in points) / n
    mk = sum(k for _, k in points) / n
    cov = sum((t - mt) * (k - mk) for t, k in points)
    var = sum((t - mt) ** 2 for t, _ in points)
    return 1000 * cov / var


def test_playback_at_64_ranks_and_8x_advances_8_steps_a_second(live_server, page):
    page.goto(f"{live_server.url}/lab?collective=allreduce&algorithm=ring&ranks=64&speed=8")
    page.wait_for_function("() => document.documentElement.dataset.socket === 'connected'")
    page.click("#run")
    page.wait_for_function(  # every step has arrived: playback never waits for the stream
        f"() => document.querySelector('{BADGE}').textContent === "
        "'checked against numpy at the end' "
        f"|| document.querySelector('{BADGE}').dataset.state === 'ok'",
        timeout=60_000,
    )
    page.keyboard.press("Home")
    page.evaluate(WATCH_COUNTER)
    page.keyboard.press(" ")
    page.wait_for_function(  # 48 steps, or twice the time they should take (page clock)
        "() => window.counterLog.length && (window.counterLog.at(-1)[1] >= 49"
        " || performance.now() - window.counterLog[0][0] > 12_000)",
        timeout=60_000,
    )
    page.keyboard.press(" ")
    log = page.evaluate("window.counterLog")
    shown = [(t, k) for t, k in log if 1 <= k <= 49]
    rate = slope(shown)
    print(f"\n64 ranks at 8x: {rate:.2f} steps/s over {len(shown)} counter updates")
    assert 0.9 <= rate / 8 <= 1.1, f"8x played at {rate:.2f} steps/s"
    steps = [k for _, k in shown]
    assert steps == sorted(steps), "the counter only moves forward while playing"
    assert page.console_errors == []


def test_end_jumps_to_the_last_received_step(live_server, page):
    page.goto(f"{live_server.url}/lab?collective=allreduce&algorithm=ring&ranks=4&speed=0.25")
    page.wait_for_function("() => document.documentElement.dataset.socket === 'connected'")
    page.click("#run")
    page.wait_for_function(
        f"() => document.querySelector('{BADGE}').textContent === "
        "'checked against numpy at the end'"
    )
    page.keyboard.press("End")
    assert page.locator(COUNTER).inner_text() == "step 6 of 6"
    assert page.locator(BADGE).inner_text() == "✓ result verified against numpy"
    assert page.locator('.player [data-role="play"]').get_attribute("aria-pressed") == "false"
    page.keyboard.press("Home")
    assert page.locator(COUNTER).inner_text() == "step 0 of 6"
    assert "End" in page.locator(".keys").inner_text()
    assert page.console_errors == []
