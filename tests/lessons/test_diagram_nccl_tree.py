"""The double binary tree drawn between nodes (nodes=yes), as NCCL's Tree algorithm joins
nodes: the same two trees, each circle a node, and words that say a chain runs inside."""

from __future__ import annotations

import pytest

from app.collectives import trees
from app.lessons.diagrams import DiagramError, render_diagram


def test_a_tree_of_nodes_names_nodes_and_the_chain_inside_them():
    diagram = render_diagram("double-binary-tree", {"ranks": "4", "nodes": "yes"}, "t")
    tree0, tree1 = trees.double_binary_tree_parents(4)
    assert f"rooted at n{tree0.index(-1)} and n{tree1.index(-1)}" in diagram.svg
    assert ">n3<" in diagram.svg and ">r3<" not in diagram.svg
    assert "No node is interior in both trees." in diagram.svg
    assert "chain" in diagram.caption and "Tree algorithm across 4 nodes" in diagram.svg


def test_a_tree_of_ranks_is_unchanged_by_default():
    diagram = render_diagram("double-binary-tree", {"ranks": "4"}, "t")
    assert ">r3<" in diagram.svg and "chain" not in diagram.caption


def test_nodes_takes_only_a_yes_or_a_no():
    with pytest.raises(DiagramError, match="nodes must be one of"):
        render_diagram("double-binary-tree", {"ranks": "4", "nodes": "maybe"}, "t")
