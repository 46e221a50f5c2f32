"""The step-0 picture's data (app/drawing/step0.py): cells counted as the buffer view counts
them, goal outlines where results must end, equal cells merged, colours on Plotly's cividis."""

from __future__ import annotations

import pytest

from app.collectives import simulate
from app.drawing.palette import CIVIDIS, count_color
from app.drawing.step0 import GOAL_OUTLINES, picture
from app.web import serialize


def cells(grid: dict) -> dict[tuple[int, int], int | None]:
    """Every (rank, column) of the grid with its count, spans expanded."""
    out = {}
    for r, row in enumerate(grid["rows"]):
        for cell in row:
            for k in range(cell["span"]):
                out[(r, cell["col"] + k)] = cell["z"]
    return out


def goals(grid: dict) -> set[tuple[int, int]]:
    return {(r, c["col"]) for r, row in enumerate(grid["rows"]) for c in row if c["goal"]}


def test_allreduce_starts_with_every_rank_holding_its_own_contribution_in_every_chunk():
    g = picture(simulate("allreduce", "ring", ranks=4, elements=8))["grid"]
    assert cells(g) == {(r, c): 1 for r in range(4) for c in range(4)}
    assert g["top"] == 4 and g["numbers"] and g["scale"] and goals(g) == set()


def test_allgather_starts_on_the_diagonal_and_counts_arrival_only():
    g = picture(simulate("allgather", "ring", ranks=4, elements=2))["grid"]
    assert cells(g) == {(r, c): (1 if r == c else None) for r in range(4) for c in range(4)}
    assert g["top"] == 1 and not g["scale"]


def test_all_to_all_counts_blocks_per_destination_and_outlines_the_diagonal():
    g = picture(simulate("all_to_all", "pairwise", ranks=4, elements=8))["grid"]
    assert g["what"] == "rank × destination" and g["col_labels"] == ["→r0", "→r1", "→r2", "→r3"]
    assert cells(g) == {(r, c): 1 for r in range(4) for c in range(4)}  # its own block for each
    assert goals(g) == {(r, r) for r in range(4)}


@pytest.mark.parametrize(
    ("collective", "algorithm", "expected"),
    [
        ("reduce_scatter", "ring", lambda cols: {(r, r) for r in range(4)}),  # block i to rank i
        ("reduce", "binomial_tree", lambda cols: {(0, c) for c in range(cols)}),  # the root's row
        ("sendrecv", "pipeline", lambda cols: {(r, c) for r in range(1, 4) for c in range(cols)}),
    ],
)
def test_goal_outlines_mark_where_the_result_must_end(collective, algorithm, expected):
    g = picture(simulate(collective, algorithm, ranks=4, elements=16))["grid"]
    assert goals(g) == expected(g["cols"])


def test_wide_grids_merge_equal_neighbours_into_spans():
    g = picture(simulate("allreduce", "ring", ranks=40, elements=40))["grid"]
    assert not g["gaps"] and [len(row) for row in g["rows"]] == [1] * 40
    assert g["rows"][0][0]["span"] == 40 and "span 40" in g["rows"][0][0]["style"]
    assert g["col_labels"][:3] == ["A", "", ""]  # every 4th of 40 columns labelled


def test_cividis_runs_from_its_first_stop_to_its_last():
    assert count_color(0, 8) == "#{:02x}{:02x}{:02x}".format(*CIVIDIS[0][1])
    assert count_color(8, 8) == "#{:02x}{:02x}{:02x}".format(*CIVIDIS[-1][1])
    assert count_color(8, 17) == "#757575"  # on the stop at 8/17: rgb(117,117,117)
    assert count_color(1, 2) == "#7c7b76"  # halfway between the two stops around 0.5
    assert count_color(1, 1) == count_color(8, 8)  # arrival-only grids: the top colour


def test_the_topology_is_drawn_with_y_down_and_a_disc_per_rank_in_each_tree():
    t = picture(simulate("allreduce", "double_binary_tree", ranks=8, elements=8))["topology"]
    assert len(t["nodes"]) == 16 and len(t["edges"]) == 14 and t["note"] == "two trees"
    assert [title["text"] for title in t["titles"]] == ["tree 1", "tree 2"]
    roots = [n for n in t["nodes"] if n["y"] == 0]
    assert all(n["y"] >= 0 for n in t["nodes"]) and len(roots) == 2  # roots on top, y grows down
    x, y, w, h = map(float, t["view_box"].split())
    assert all(x < n["x"] < x + w and y < n["y"] < y + h for n in t["nodes"])


def test_the_topology_names_each_disc():
    # No theme goes in: colours come from the page's CSS (templates/base.html), and
    # tests/web/test_topology_svg.py checks the embed's markup is the same in both themes.
    trace = simulate("allreduce", "hierarchical", ranks=8, elements=8, ranks_per_node=4)
    light = picture(trace)["topology"]
    assert [n["title"] for n in light["nodes"]][3:5] == ["rank 3 · node 0", "rank 4 · node 1"]
    trees = picture(simulate("allreduce", "double_binary_tree", ranks=4, elements=4))["topology"]
    assert trees["nodes"][5]["title"] == "rank 1 · tree 2"


def test_the_layout_sends_the_pictures_goal_cells_and_none_past_the_outline_limit():
    small = simulate("sendrecv", "pipeline", ranks=4, elements=16)
    assert {tuple(c) for c in serialize.layout(small)["goal"]} == goals(picture(small)["grid"])
    big = simulate("sendrecv", "pipeline", ranks=64, elements=64)
    assert 63 * len(big.chunks) > GOAL_OUTLINES and serialize.layout(big)["goal"] == []
    assert serialize.layout(simulate("allreduce", "ring", ranks=4, elements=8))["goal"] == []


@pytest.mark.parametrize(
    ("collective", "algorithm", "ranks"),
    [("allreduce", "ring", 8), ("allreduce", "ring", 40), ("allgather", "ring", 4),
     ("all_to_all", "pairwise", 8), ("reduce", "binomial_tree", 64)],
)  # fmt: skip
def test_the_live_grid_is_drawn_by_the_rules_of_the_step_0_picture(collective, algorithm, ranks):
    """`layout.grid` (what lab-buffer.js draws every step from) is the step-0 grid's frame, and
    its paint for a count is the very background and ink the server painted that count with."""
    trace = simulate(collective, algorithm, ranks=ranks, elements=64)
    live, g = serialize.layout(trace)["grid"], picture(trace)["grid"]
    assert {k: v for k, v in g.items() if k != "rows"} == {
        k: v for k, v in live.items() if k != "paints"
    }
    assert len(live["paints"]) == live["top"] + 1
    top = live["top"]
    assert [p[0] for p in live["paints"]] == [count_color(n, top) for n in range(top + 1)]
    painted = {c["z"]: c["style"] for row in g["rows"] for c in row if c["z"] is not None}
    assert painted  # every run starts with some cell held
    for z, style in painted.items():
        background, ink = live["paints"][z]
        assert f"background: {background}; color: {ink}" in style, (z, style)
    assert {ink for _, ink in live["paints"]} <= {"#000", "#fff"}
