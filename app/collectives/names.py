"""What each algorithm is called on a page: its id with spaces ("double binary tree"), marked
for the catalog so a page in another language says it in that language (issue 20). The ids are
the catalog's (`registry`); a test checks every catalog algorithm has a name here and that the
English name is its id with spaces."""

from __future__ import annotations

from app.i18n import N_

ALGORITHM_NAMES = {
    "2d_torus": N_("2d torus"),
    "binary_tree": N_("binary tree"),
    "binomial_tree": N_("binomial tree"),
    "bruck": N_("bruck"),
    "collnet": N_("collnet"),
    "direct": N_("direct"),
    "double_binary_tree": N_("double binary tree"),
    "hierarchical": N_("hierarchical"),
    "nvls": N_("nvls"),
    "pairwise": N_("pairwise"),
    "pat": N_("pat"),
    "pipeline": N_("pipeline"),
    "pipelined_ring": N_("pipelined ring"),
    "rabenseifner": N_("rabenseifner"),
    "recursive_doubling": N_("recursive doubling"),
    "recursive_halving": N_("recursive halving"),
    "reduce_broadcast": N_("reduce broadcast"),
    "ring": N_("ring"),
    "ring_bidirectional": N_("ring bidirectional"),
    "scatter_allgather": N_("scatter allgather"),
    "tree_pipelined": N_("tree pipelined"),
}


def algorithm_name(algorithm: str) -> str:
    """The name a page shows for `algorithm` (English; translate it where it is shown)."""
    return ALGORITHM_NAMES.get(algorithm, algorithm.replace("_", " "))
