"""The race view (`/lab?mode=race`) and its embed in real Chromium (issue 19).

The page plays what GET /api/race says: one bar per step in each lane, the shared clock moving
from one end of a step to the next by keys, the finish order, the server's verdict and each
step's bottleneck link; the sweep chart marks the crossovers GET /api/race/sweep reports; the
form offers what the server allows and shows the server's refusal; a bad embed link gets the
friendly error page naming the field. Expected values come from the API, not from this file.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

RACE = (
    "collective=allreduce&algorithms=ring,recursive_doubling&ranks=16&bytes=1048576"
    "&topology=fat_tree&nodes=2&gpus_per_node=8&oversubscription=2"
)
CLOCK = '[data-role="clock"]'


def api(page, url: str) -> dict:
    response = page.request.get(url)
    assert response.ok, response.text()
    return response.json()


def clock_at(page) -> float:
    return float(page.locator(CLOCK).get_attribute("data-time-s"))


def step_at(run: dict, t: float) -> dict:
    """The step of `run` running at `t` on the shared clock (the last to start by then)."""
    return [s for s in run["steps"] if s["start_s"] <= t][-1]


def test_a_race_plays_the_servers_clock_by_keys(live_server, page):
    race = api(page, f"{live_server.url}/api/race?{RACE}")
    page.goto(f"{live_server.url}/lab?mode=race&{RACE}")
    expect(page.locator('[data-role="verdict-text"]')).to_have_text(race["verdict"])
    order = page.locator('[data-role="order"] li')
    expect(order).to_have_count(len(race["runs"]))
    assert [order.nth(i).get_attribute("data-algorithm") for i in range(2)] == race["order"]
    for run in race["runs"]:
        lane = page.locator(f'.lane[data-algorithm="{run["algorithm"]}"]')
        expect(lane.locator(".seg")).to_have_count(len(run["steps"]))

    page.keyboard.press("ArrowRight")  # to the first moment a step ends, in any lane
    first = min(r["steps"][0]["time_s"] for r in race["runs"])
    assert clock_at(page) == pytest.approx(first, rel=1e-12)
    for run in race["runs"]:
        step = step_at(run, first)
        now = page.locator(f'.lane[data-algorithm="{run["algorithm"]}"] [data-role="now"]')
        expect(now).to_contain_text(f"Step {step['index'] + 1} of {len(run['steps'])}")
        expect(now).to_contain_text(step["bottleneck"]["name"])

    page.keyboard.press("End")
    slowest = max(r["time_s"] for r in race["runs"])
    assert clock_at(page) == pytest.approx(slowest, rel=1e-12)
    for run in race["runs"]:
        place = page.locator(f'.lane[data-algorithm="{run["algorithm"]}"] .lane-place')
        expect(place).to_have_text(["1st", "2nd"][run["place"] - 1])

    page.keyboard.press("Home")
    assert clock_at(page) == 0
    page.keyboard.press(" ")  # plays: the clock moves on its own
    page.wait_for_function(
        "() => Number(document.querySelector('[data-role=clock]').dataset.timeS) > 0"
    )


def test_the_sweep_marks_the_crossovers_the_server_reports(live_server, page):
    query = RACE.replace("&bytes=1048576", "")
    sweep = api(page, f"{live_server.url}/api/race/sweep?{query}")
    page.goto(f"{live_server.url}/lab?mode=race&{RACE}")
    model = page.locator('[data-role="model-crossovers"]')
    expect(model).to_be_visible(timeout=30_000)
    assert sweep["model"]["crossovers"], "the case should have an α-β crossover to show"
    for c in sweep["model"]["crossovers"]:
        expect(model).to_contain_text(c["above"].replace("_", " "))
    plot = page.locator('[data-role="sweep-plot"]')
    assert plot.get_attribute("data-traces") == str(2 * len(sweep["algorithms"]))
    lines = page.evaluate("document.querySelector('[data-role=sweep-plot]').layout.shapes.length")
    crossovers = len(sweep["clock"]["crossovers"]) + len(sweep["model"]["crossovers"])
    assert lines == crossovers + 1  # and the raced size


def test_the_form_offers_the_servers_choices_and_shows_its_refusal(live_server, page):
    page.goto(f"{live_server.url}/lab?mode=race&{RACE}")
    expect(page.locator(".lane")).to_have_count(2)
    catalog = api(page, f"{live_server.url}/api/collectives")
    page.select_option("#race-collective", "allgather")
    choices = page.locator('[data-role="algorithm-choices"] input')
    names = [e["algorithm"] for e in catalog if e["collective"] == "allgather"]
    expect(choices).to_have_count(len(names))
    run = page.locator('[data-role="race-run"]')
    page.locator('[data-role="algorithm-choices"] input:checked').first.uncheck()
    expect(run).to_be_disabled()  # one algorithm is not a race
    page.locator('[data-role="algorithm-choices"] input:not(:checked)').first.check()
    expect(run).to_be_enabled()

    nvswitch = next(
        t
        for t in api(page, f"{live_server.url}/api/topologies")["topologies"]
        if t["name"] == "nvswitch"
    )
    page.select_option("#race-topology", "nvswitch")
    gpus = page.locator("#race-param-gpus")
    expect(gpus).to_have_attribute("max", str(nvswitch["params"][0]["high"]))
    run.click()  # 16 ranks on an 8-GPU node: the server refuses, the page says why
    error = page.locator('[data-role="error"]')
    expect(error).to_be_visible()
    expect(error).to_contain_text("ranks")
    page.fill("#race-ranks", "8")
    run.click()
    expect(error).to_be_hidden()
    expect(page.locator('[data-role="clock-total"]')).to_contain_text("NVSwitch")
    assert "topology=nvswitch" in page.url and "collective=allgather" in page.url


def test_the_race_embed_plays_and_a_bad_link_names_the_field(live_server, page):
    page.goto(f"{live_server.url}/embed/race?{RACE}&autoplay=1&speed=8")
    expect(page.locator(".site-header")).to_have_count(0)
    expect(page.locator(".lane.finished")).to_have_count(2, timeout=20_000)
    bad = RACE.replace("oversubscription=2", "oversubscription=99")
    response = page.goto(f"{live_server.url}/embed/race?{bad}")
    assert response.status == 400
    expect(page.locator('[data-role="error-message"]')).to_contain_text("oversubscription")


def test_the_labs_link_traffic_view_shows_the_step_on_physical_links(live_server, page):
    page.goto(f"{live_server.url}/lab?collective=allreduce&algorithm=ring&ranks=16&elements=1024")
    expect(page.locator('.player [data-role="counter"]')).to_have_text("step 0 of 30")
    page.select_option('[data-role="fabric-topology"]', "fat_tree")
    shape = "&topology=fat_tree&nodes=2&gpus_per_node=8&oversubscription=2"
    query = "collective=allreduce&algorithms=ring,recursive_doubling&ranks=16&bytes=4096"
    race = api(page, f"{live_server.url}/api/race?{query}{shape}")
    ring = next(r for r in race["runs"] if r["algorithm"] == "ring")
    status = page.locator('[data-role="fabric-step"]')
    expect(status).to_contain_text(race["topology"]["label"])
    page.keyboard.press("ArrowRight")
    expect(status).to_contain_text(f"Step 1 on {race['topology']['label']}")
    expect(status).to_contain_text(ring["steps"][0]["bottleneck"]["name"])
    links = page.locator('[data-role="fabric-links"] li')
    expect(links.first).to_be_visible()
    assert links.count() == min(8, len(ring["steps"][0]["links"]))
    expect(page.locator('[data-role="fabric-links"] li.bottleneck')).to_have_count(1)
