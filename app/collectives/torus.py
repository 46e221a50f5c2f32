"""2D-torus allreduce: reduce-scatter along the rows, allreduce down the columns, allgather.

The ranks sit on an R x C grid, rank r at row r // C, column r % C, each row and each column a
ring (the wrap-around links of a torus). Following Mikami et al., "Massively Distributed SGD:
ImageNet/ResNet-50 Training in a Flash" (arXiv:1811.05233, § 3.2, "2D-Torus all-reduce"), and
the two-dimensional gradient summation Ying et al. ran on TPU v3 pods ("Image Classification at
Supercomputer Scale", arXiv:1811.06992, § 3.3):

1. ring reduce-scatter along every row at once (C-1 steps): column c ends with shard c of its
   row's sum;
2. ring allreduce of shard c down every column at once (2(R-1) steps on M/C);
3. ring allgather along every row (C-1 steps).

Total 2(C-1) + 2(R-1) steps instead of the flat ring's 2(RC-1); each rank still sends
2(p-1)/p · M, the ring's optimum. The schedule is the hierarchical allreduce's with a row for a
node (`hierarchical.py`); only the links differ: a torus has one kind of link.

The grid is chosen here, the one rule the catalog, the cost model and the lab read
(`torus_grid`): C the smallest divisor of p that is at least sqrt(p), R = p / C, so the grid is
as square as p allows and R <= C. A prime p has no such grid: it runs as one row of p, which is
the plain ring allreduce.
"""

from __future__ import annotations

from math import isqrt

from ..i18n import N_
from .hierarchical import rings_across_groups, rings_in_groups
from .machine import Machine
from .registry import algorithm

GRID_RULE = (
    "rows x columns chosen from ranks: columns = the smallest divisor of ranks >= sqrt(ranks), "
    "rows = ranks / columns; a prime rank count is one row (the ring allreduce)"
)


def torus_grid(ranks: int) -> tuple[int, int]:
    """Return (rows, columns) of the most nearly square grid of `ranks`, rows <= columns."""
    columns = next(c for c in range(isqrt(ranks - 1) + 1, ranks + 1) if ranks % c == 0)
    return ranks // columns, columns


@algorithm(
    "allreduce",
    "2d_torus",
    N_(
        "TPU-style 2D-torus allreduce on an R x C grid: ring reduce-scatter along the rows, ring "
        "allreduce of each shard down the columns, ring allgather along the rows: 2(C-1)+2(R-1) "
        "steps, 2(p-1)/p · M per rank."
    ),
    parts=lambda ranks, elements: ranks,
    grid=torus_grid,
    grid_rule=GRID_RULE,
)
def torus_2d(m: Machine) -> None:
    rows, columns = torus_grid(m.ranks)
    m.topology = {"kind": "torus", "rows": rows, "columns": columns}
    # Offset 1 leaves column c holding shard c, reduced over its row (as hierarchical does).
    rings_in_groups(m, columns, rows, "row reduce-scatter", "reduce", 1)
    rings_across_groups(m, columns, rows, "column allreduce")
    rings_in_groups(m, columns, rows, "row allgather", "copy", 0)
