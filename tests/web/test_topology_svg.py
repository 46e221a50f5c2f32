"""sim_start's `layout.topology_svg` (app/web/topology_svg.py): the embed's inline first picture,
character for character, in either theme, holding no colour of its own."""

from __future__ import annotations

import re

import pytest

from app.collectives import simulate
from app.drawing.topology import topology
from app.web import compact
from app.web.topology_svg import topology_svg

SVG = re.compile(r'<svg class="step0 step0-topology".*?</svg>', re.S)
COLOUR = re.compile(r"#[0-9a-fA-F]{3,6}\b|rgb\(")


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize(
    ("path", "run"),
    [
        ("/embed/allreduce/ring?ranks=8&elements=64", ("allreduce", "ring", 8, None)),
        (
            "/embed/allreduce/hierarchical?ranks=8&ranks_per_node=4&elements=64",
            ("allreduce", "hierarchical", 8, 4),
        ),
        (
            "/embed/allreduce/double_binary_tree?ranks=8&elements=64",
            ("allreduce", "double_binary_tree", 8, None),
        ),
    ],
)
def test_sim_start_carries_the_embeds_own_first_picture(client, path, run, theme):
    page = client.get(f"{path}&theme={theme}").get_data(as_text=True)
    inline = SVG.findall(page)
    assert len(inline) == 1
    collective, algorithm, ranks, rpn = run
    trace = simulate(collective, algorithm, ranks=ranks, elements=64, ranks_per_node=rpn)
    assert compact.start(trace)["layout"]["topology_svg"] == inline[0]


def test_the_picture_holds_no_colour_and_tells_the_script_its_scale():
    trace = simulate("allreduce", "hierarchical", ranks=16, elements=64, ranks_per_node=4)
    markup = topology_svg(trace)
    assert COLOUR.search(markup) is None, "colours come from the page's CSS, per theme"
    t = topology(trace)
    assert f'data-px="{t["px"]}" data-r="{t["r"]}"' in markup
    assert markup.count("<circle ") == 16
    assert "<title>rank 5 · node 1</title>" in markup
