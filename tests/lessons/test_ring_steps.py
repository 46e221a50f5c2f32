"""The ring frame by frame (`@diagram ring-steps`): every frame is a step of the engine's own
ring allreduce, and it stands in for the ring's animation in print and without JavaScript."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from app.collectives import chunk_label, simulate
from app.lessons.diagrams import DiagramError, render_diagram
from app.lessons.diagrams.ring_steps import MAX_RANKS
from app.lessons.directives import STILL_RANKS

from .test_diagrams import SVG, desc, draw
from .test_directives import render

RANK = re.compile(r"r(\d+)$")


def frames(svg: ET.Element) -> list[dict]:
    """Read each frame back: its title, what each rank sends, and each cell's count."""
    out = []
    for g in svg.iter(f"{SVG}g"):
        if "dg-frame" not in g.get("class", ""):
            continue
        frame = {"title": None, "sends": {}, "counts": {}}
        rank, chunk = None, 0
        for t in g.iter(f"{SVG}text"):
            if frame["title"] is None:
                frame["title"] = t.text
            elif "dg-send" in t.get("class"):
                frame["sends"][rank] = t.text
            elif RANK.match(t.text):
                rank, chunk = int(RANK.match(t.text).group(1)), 0
            else:
                frame["counts"][(rank, chunk)] = int(t.text)
                chunk += 1
        out.append(frame)
    return out


@pytest.mark.parametrize("p", [2, 3, 4, 5, 8])
def test_every_frame_is_a_step_of_the_engines_ring_allreduce(p):
    trace = simulate("allreduce", "ring", ranks=p, elements=p)
    drawn = frames(draw("ring-steps", ranks=p))
    assert len(drawn) == len(trace.steps) + 1 == 2 * (p - 1) + 1
    for index, frame in enumerate(drawn, start=-1):  # the first frame is before step one
        transfers = trace.steps[index].transfers if index >= 0 else []
        assert frame["sends"] == {t.src: f"{chunk_label(t.chunk)} → r{t.dst}" for t in transfers}, (
            frame["title"]
        )
        holdings = trace.holdings_at(index)
        assert frame["counts"] == {key: h.bit_count() for key, h in holdings.items()}


def test_frames_name_their_phase_and_step():
    titles = [f["title"] for f in frames(draw("ring-steps", ranks=3))]
    phases = [s.phase for s in simulate("allreduce", "ring", ranks=3, elements=3).steps]
    assert titles[0] == "Start"
    assert [t.split()[1].lower() for t in titles[1:]] == phases
    assert titles[-1].endswith("2 of 2")


def test_the_description_says_every_transfer_in_words():
    p = 4
    text = desc(draw("ring-steps", ranks=p))
    trace = simulate("allreduce", "ring", ranks=p, elements=p)
    for step in trace.steps:
        for t in step.transfers:
            assert f"r{t.src} sends {chunk_label(t.chunk)} to r{t.dst}" in text
    assert f"{p * p} of the {p * p} copies hold all {p} contributions" in text


def test_ranks_are_bounded():
    with pytest.raises(
        DiagramError, match=f"ring-steps: ranks must be an integer in 2..{MAX_RANKS}"
    ):
        render_diagram("ring-steps", {"ranks": str(MAX_RANKS + 1)}, "t")


def test_a_ring_allreduce_lab_carries_its_strip_for_print_and_no_script(course):
    tree, problems, _ = render(course, "@lab allreduce/ring ranks=4 elements=8\n")
    assert problems == []
    figure = tree.find("figure", class_="live-lab")
    still = figure.find("div", class_="live-still")
    assert still.find("p").text.startswith("The animation, frame by frame: Ring allreduce on 4")
    svg = still.find("svg")
    assert "diagram-ring-steps" in svg.attrs["class"]
    assert len(svg.find_all("g", class_="dg-frame")) == 7


def test_a_larger_ring_lab_carries_the_strip_on_four_ranks_and_says_so(course):
    tree, problems, _ = render(course, "@lab allreduce/ring ranks=8\n")
    assert problems == []
    still = tree.find("div", class_="live-still")
    assert still.find("p").text.startswith(f"The same algorithm on {STILL_RANKS} ranks")
    assert len(still.find_all("g", class_="dg-frame")) == 2 * (STILL_RANKS - 1) + 1


def test_other_labs_have_no_strip(course):
    tree, problems, _ = render(course, "@lab allreduce/recursive_doubling ranks=4\n")
    assert problems == [] and tree.find("div", class_="live-still") is None
