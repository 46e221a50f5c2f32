"""Predict, then reveal (issue 15) in real headless Chromium: the lab and the embed hold each step
until the learner has predicted it, grade the prediction from the step's own data, mark the grid
and keep the score; all of it by mouse, by keyboard alone, on a phone, and clean under axe.

What is right is computed here from POST /api/simulate with the same parameters (runs are
deterministic), never written out by hand.
"""

from __future__ import annotations

import pytest

from tests.browser.buffer_cells import CELLS
from tests.browser.test_a11y import AXE, assert_no_violation_in_both_themes
from tests.conftest import require

pytestmark = pytest.mark.browser

COUNTER = '.player [data-role="counter"]'
SAY = '[data-role="predict-say"]'
SCORE = '[data-role="predict-score"]'
GO = '[data-role="predict-go"]'
RING4 = {"collective": "allreduce", "algorithm": "ring", "ranks": 4, "elements": 8}
DOUBLING4 = {"collective": "allgather", "algorithm": "recursive_doubling", "ranks": 4}
DOUBLING4["elements"] = 8


def query(params: dict) -> str:
    return "&".join(f"{k}={v}" for k, v in params.items())


def trace(client, params: dict) -> dict:
    """The run the page will show: the same parameters, seed 0, over HTTP."""
    response = client.post("/api/simulate", json={**params, "seed": 0})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def changed(run: dict, i: int) -> list[int]:
    """The grid cells step i changes (rank × chunk), as the page keys them, in the step's order."""
    cols = len(run["layout"]["chunks"])
    return list(dict.fromkeys(u["rank"] * cols + u["chunk"] for u in run["steps"][i]["state"]))


def cell_name(run: dict, key: int) -> str:
    cols = len(run["layout"]["chunks"])
    return f"r{key // cols}·{chr(65 + key % cols)}"


def asked(page, text: str) -> None:
    """Wait until the panel asks `text` (a question appears once its step has arrived)."""
    page.wait_for_function(
        "([sel, text]) => document.querySelector(sel).textContent.startsWith(text)",
        arg=[SAY, text],
    )


def marks(page) -> dict[int, tuple[str, str, str]]:
    """Every marked cell: key → (mark, symbol, outline style)."""
    return {
        int(k): (m, s, b)
        for k, m, s, b in page.eval_on_selector_all(
            ".predict-cell[data-mark]",
            "cells => cells.map(c => [c.dataset.key, c.dataset.mark, c.textContent,"
            " getComputedStyle(c).borderTopStyle])",
        )
    }


def at_step(page, k: int, total: int) -> None:
    page.wait_for_function(
        "([sel, text]) => document.querySelector(sel).textContent === text",
        arg=[COUNTER, f"step {k} of {total}"],
    )


def open_predicting(page, live_server, params: dict) -> None:
    page.goto(f"{live_server.url}/lab?{query(params)}&predict=1")
    page.wait_for_function("() => document.documentElement.dataset.socket === 'connected'")


def test_predict_scores_a_known_sequence_of_clicks(live_server, page, client):
    run = trace(client, RING4)
    total = len(run["steps"])
    first, second = changed(run, 0), changed(run, 1)
    open_predicting(page, live_server, RING4)
    assert page.is_checked('[data-role="predict-toggle"]')
    asked(page, f"Step 1 of {total}: which cells will change?")
    assert page.locator(".predict-cell").count() == 4 * len(run["layout"]["chunks"])

    # step 1: exactly the cells that change
    for key in first:
        page.click(f'.predict-cell[data-key="{key}"]')
    assert marks(page) == {k: ("picked", "●", "solid") for k in first}
    page.click(GO)
    at_step(page, 1, total)
    assert page.inner_text(SAY) == f"Step 1: all {len(first)} changed cells right."
    assert marks(page) == {k: ("right", "✓", "solid") for k in first}
    label = page.get_attribute(f'.predict-cell[data-key="{first[0]}"]', "aria-label")
    assert label.endswith("changed, and you picked it: right")
    n = len(first)
    assert page.inner_text(SCORE) == (
        f"Score: 1 of 1 step fully right · {n} of {n} changed cells found · 0 wrong picks"
    )

    # step 2: two right cells and one that does not change
    page.click(GO)  # "Next step"
    asked(page, f"Step 2 of {total}: which cells will change?")
    assert marks(page) == {}
    wrong = next(k for k in range(16) if k not in second)
    picks = [second[0], second[1], wrong]
    for key in picks:
        page.click(f'.predict-cell[data-key="{key}"]')
    page.click(GO)
    at_step(page, 2, total)
    missed = second[2:]
    names = lambda keys: ", ".join(cell_name(run, k) for k in keys)  # noqa: E731
    assert page.inner_text(SAY) == (
        f"Step 2: 2 of {len(second)} changed cells found, ✗ 1 wrong pick ({names([wrong])}),"
        f" ○ {len(missed)} missed ({names(missed)})."
    )
    assert marks(page) == {
        second[0]: ("right", "✓", "solid"),
        second[1]: ("right", "✓", "solid"),
        wrong: ("wrong", "✗", "dashed"),
        **{k: ("missed", "○", "dotted") for k in missed},
    }
    found, cells = len(first) + 2, len(first) + len(second)
    score = f"Score: 1 of 2 steps fully right · {found} of {cells} changed cells found"
    score += " · 1 wrong pick"
    assert page.inner_text(SCORE) == score

    # the next step is held back: forward, End and Play stay on step 2
    assert page.is_disabled('.player [data-role="forward"]')
    page.locator("body").press("ArrowRight")
    page.locator("body").press("End")
    page.click('.player [data-role="play"]')
    assert page.inner_text(COUNTER) == f"step 2 of {total}"
    assert page.get_attribute('.player [data-role="play"]', "aria-pressed") == "false"

    # stepping back and forward again does not grade again
    page.locator("body").press("ArrowLeft")
    assert page.inner_text(COUNTER) == f"step 1 of {total}"
    assert page.inner_text(SAY).startswith("You have predicted up to step 2;")
    page.locator("body").press("ArrowRight")
    assert page.inner_text(COUNTER) == f"step 2 of {total}"
    asked(page, f"Step 3 of {total}: which cells will change?")
    assert page.inner_text(SCORE) == score

    # Restart begins a new attempt
    page.locator("body").press("Home")
    asked(page, f"Step 1 of {total}: which cells will change?")
    assert page.inner_text(SCORE) == ""
    assert "predict=1" in page.url

    # switched off, the player plays through again and the URL forgets the mode
    page.uncheck('[data-role="predict-toggle"]')
    assert page.is_hidden('[data-role="predict"]') and page.is_hidden(".predict-grid")
    assert "predict=" not in page.url
    page.locator("body").press("ArrowRight")
    page.locator("body").press("ArrowRight")
    assert page.inner_text(COUNTER) == f"step 2 of {total}"
    assert page.console_errors == []


def test_the_embed_with_predict_starts_predicting_and_sums_up_the_run(live_server, page, client):
    params = {"collective": "allgather", "algorithm": "ring", "ranks": 4, "elements": 8}
    run = trace(client, params)
    total = len(run["steps"])
    page.goto(f"{live_server.url}/embed/allgather/ring?ranks=4&elements=8&autoplay=1&predict=1")
    # The embed's scripts load after its first paint (docs/lab.md § Embed), then switch it on.
    page.wait_for_selector('[data-role="predict-toggle"]:checked', state="attached")
    asked(page, f"Step 1 of {total}: which cells will change?")
    assert page.inner_text(COUNTER) == f"step 0 of {total}"  # autoplay waits for the prediction
    for i in range(total):
        for key in changed(run, i):
            page.click(f'.predict-cell[data-key="{key}"]')
        page.click(GO)
        at_step(page, i + 1, total)
        if i + 1 < total:
            page.click(GO)
            asked(page, f"Step {i + 2} of {total}:")
    cells = sum(len(changed(run, i)) for i in range(total))
    assert page.inner_text(SAY) == (
        f"Step {total}: all {len(changed(run, total - 1))} changed cells right. Run complete:"
        f" {total} of {total} steps fully right · {cells} of {cells} changed cells found"
        " · 0 wrong picks. Restart (Home) to try again."
    )
    assert page.inner_text(GO) == "Restart"
    page.click(GO)
    asked(page, f"Step 1 of {total}: which cells will change?")
    assert page.inner_text(COUNTER) == f"step 0 of {total}"
    assert page.console_errors == []


def focus_until(page, selector: str, key: str = "Tab", most: int = 80) -> None:
    """Press `key` until the focused element matches `selector`, as a keyboard user would."""
    for _ in range(most):
        if page.evaluate("(sel) => document.activeElement.matches(sel)", selector):
            return
        page.keyboard.press(key)
    raise AssertionError(f"{key} never reached {selector}")


# Whether each button of the predict layer covers its own cell of the buffer grid (to a pixel).
OVER_CELLS = f"""() => {{
  const grid = document.querySelector('[data-role="buffer-grid"]');
  const cells = grid ? ({CELLS})(grid) : [];
  const buttons = document.querySelectorAll('.predict-grid .predict-cell');
  if (!cells.length || cells.length !== buttons.length) return false;
  return [...buttons].every((b, k) => {{
    const x = b.getBoundingClientRect(), [left, top, width, height] = cells[k].box;
    const c = {{left, top, width, height}};
    return b.dataset.rank === String(cells[k].r) && b.dataset.col === String(cells[k].c)
      && ["left", "top", "width", "height"].every((s) => Math.abs(x[s] - c[s]) <= 1);
  }});
}}"""


def test_predict_works_from_the_keyboard_alone_on_a_phone(live_server, browser, client):
    run = trace(client, DOUBLING4)
    total, cols = len(run["steps"]), len(run["layout"]["chunks"])
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    page = context.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        open_predicting(page, live_server, DOUBLING4)
        asked(page, f"Step 1 of {total}: which cells will change?")
        # the layer of cells lies exactly over the grid's cells (built once on screen), each
        # button over its cell
        page.locator('[data-role="buffer"]').scroll_into_view_if_needed()
        page.locator('[data-role="buffer-grid"]').wait_for()
        page.wait_for_function(OVER_CELLS)  # placed once the grid is built
        layer = page.locator(".predict-grid").bounding_box()
        assert page.evaluate(OVER_CELLS)
        assert layer["width"] / cols >= 40 and layer["height"] / 4 >= 40  # fingers fit
        assert page.evaluate("document.documentElement.scrollWidth") <= 390

        # one Tab stop: arrows move, Space and Enter toggle
        focus_until(page, ".predict-cell")
        assert page.evaluate("document.activeElement.dataset.key") == "0"
        at = (0, 0)
        for n, key in enumerate(sorted(changed(run, 0))):
            r, c = divmod(key, cols)
            for _ in range(r - at[0]):
                page.keyboard.press("ArrowDown")
            for _ in range(abs(c - at[1])):
                page.keyboard.press("ArrowRight" if c > at[1] else "ArrowLeft")
            at = (r, c)
            page.keyboard.press("Enter" if n % 2 else " ")
        assert page.inner_text(COUNTER) == f"step 0 of {total}"  # the arrows moved no step
        assert set(marks(page)) == set(changed(run, 0))
        focus_until(page, GO, "Shift+Tab")
        page.keyboard.press("Enter")
        at_step(page, 1, total)
        assert page.inner_text(SAY) == f"Step 1: all {len(changed(run, 0))} changed cells right."

        # the partners change: step 2 asks who sends to a rank, answered with arrows and Enter
        page.keyboard.press("Enter")  # "Next step", the button still has the focus
        asked(page, f"Step 2 of {total}: which rank sends to rank ")
        rank = int(page.inner_text(SAY).rsplit(" ", 1)[1].rstrip("?"))
        senders = {t["src"] for t in run["steps"][1]["transfers"] if t["dst"] == rank}
        assert len(senders) == 1
        focus_until(page, 'input[name="predict-sender"]', "Shift+Tab")
        sender = senders.pop()
        for _ in range(4):  # arrows move through the ranks and check each; Space checks one
            if page.evaluate("document.activeElement.value") == str(sender):
                page.keyboard.press(" ")
                break
            page.keyboard.press("ArrowRight")
        assert page.is_checked(f'input[name="predict-sender"][value="{sender}"]')
        page.keyboard.press("Enter")
        at_step(page, 2, total)
        said = page.inner_text(SAY)
        assert said.startswith(f"Step 2: right, rank {sender} sends to rank {rank}.")
        first = len(changed(run, 0))
        assert page.inner_text(SCORE) == (
            f"Score: 2 of 2 steps fully right · {first} of {first} changed cells found"
            " · 0 wrong picks · 1 of 1 sender named"
        )
        assert errors == []
    finally:
        context.close()


def test_axe_finds_no_violation_while_predicting(live_server, browser):
    """The question with picks, the marks after a reveal, and the choice of a sender, each in
    both themes."""
    require(AXE.is_file(), f"axe-core is not installed ({AXE}); run npm ci --prefix tests/a11y")
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, color_scheme="light", bypass_csp=True
    )
    page = context.new_page()
    try:
        open_predicting(page, live_server, DOUBLING4)
        asked(page, "Step 1 of 2: which cells will change?")
        page.click('.predict-cell[data-key="1"]')
        page.click('.predict-cell[data-key="6"]')
        assert_no_violation_in_both_themes(page, "with picks")
        page.click(GO)
        asked(page, "Step 1: ")
        assert_no_violation_in_both_themes(page, "after the reveal")
        page.click(GO)
        asked(page, "Step 2 of 2: which rank sends to rank ")
        assert_no_violation_in_both_themes(page, "choosing a sender")
    finally:
        context.close()


QUESTIONS = """([run, allToAll]) => {
  const p = run.ranks, cols = allToAll ? p : run.layout.chunks.length;
  const lab = {p, steps: run.steps};
  const R = window.CollectiveLab.predictRules;
  return run.steps.map((_, i) => {
    const q = R.question(lab, i, {allToAll, cols});
    const right = R.grade(q, {picks: q.changed || new Set(), choice: q.sender ?? null}).right;
    return q.kind === "cells" ? {kind: "cells", cells: [...q.changed].sort((a, b) => a - b), right}
      : {kind: "sender", rank: q.rank, sender: q.sender, right};
  });
}"""


@pytest.mark.parametrize("ranks", [5, 8])
def test_every_collective_asks_a_question_the_trace_answers(live_server, page, client, ranks):
    """Each step of every catalog entry asks which cells change (exactly the step's changed cells)
    or which rank sends to rank k (exactly one rank does, per the step's transfers); the answer
    the trace gives is graded right. Ring steps ask for cells; the partners of recursive doubling
    and pairwise exchanges are asked for."""
    page.goto(f"{live_server.url}/lab")
    kinds = {}
    for entry in client.get("/api/collectives").get_json():
        name = f"{entry['collective']}/{entry['algorithm']}"
        params = {k: entry[k] for k in ("collective", "algorithm")}
        params.update(ranks=ranks, elements=ranks * 2)
        if entry["needs_ranks_per_node"]:
            params["ranks_per_node"] = 1 if ranks == 5 else 4
        run = trace(client, params)
        a2a = entry["collective"] == "all_to_all"
        cols = ranks if a2a else len(run["layout"]["chunks"])
        col = (lambda c: c % ranks) if a2a else (lambda c: c)
        asked_ = page.evaluate(QUESTIONS, [run, a2a])
        for i, (q, step) in enumerate(zip(asked_, run["steps"], strict=True)):
            assert q["right"], (name, i)
            if q["kind"] == "cells":
                cells = {u["rank"] * cols + col(u["chunk"]) for u in step["state"]}
                assert q["cells"] == sorted(cells), (name, i)
            else:
                senders = {t["src"] for t in step["transfers"] if t["dst"] == q["rank"] != t["src"]}
                assert senders == {q["sender"]}, (name, i, q)
        kinds[name] = {q["kind"] for q in asked_}
    assert kinds["allreduce/ring"] == {"cells"}
    assert "sender" in kinds["allreduce/recursive_doubling"]
    assert "sender" in kinds["all_to_all/pairwise"]
    assert page.console_errors == []
