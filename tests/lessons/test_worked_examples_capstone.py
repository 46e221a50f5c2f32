"""The capstone's numbers are its step_budget calculators' (issue 16): each worked example,
as the lesson writes it, against the @calc beside it (index = which step_budget in the lesson:
0 DDP, 1 ZeRO-3, 2 TP 8 × DP 16, 3 ZeRO-1, 4 ZeRO-1 with two sequences per micro-batch)."""

from __future__ import annotations

import pytest

from tests.lessons.worked import assert_ties, calc_outputs

DDP, ZERO3, TP8, ZERO1, ZERO1_MB2 = range(5)

TIES = [
    (DDP, "pflop", "176"),
    (DDP, "compute_s", "3.479 s"),
    (DDP, "forward_s", "1.16 s"),
    (DDP, "backward_s", "2.319 s"),
    (DDP, "dp_s", "556.3 ms"),
    (DDP, "dp_exposed_s", "266.4 ms"),
    (DDP, "exposed_s", "266.4 ms"),
    (DDP, "step_s", "3.745 s"),
    (DDP, "exposed_pct", "7.11%"),
    (DDP, "state_bytes", "112 GB"),
    (DDP, "memory_pct", "140%"),
    (DDP, "micro_batches", "8"),
    (ZERO3, "state_bytes", "875 MB"),
    (ZERO3, "dp_s", "6.676 s"),
    (ZERO3, "dp_exposed_s", "3.197 s"),
    (ZERO3, "exposed_s", "3.197 s"),
    (ZERO3, "step_s", "6.676 s"),
    (ZERO3, "exposed_pct", "47.9%"),
    (TP8, "state_bytes", "14 GB"),
    (TP8, "micro_batches", "64"),
    (TP8, "tp_s", "1.138 s"),
    (TP8, "exposed_s", "1.167 s"),
    (TP8, "step_s", "4.646 s"),
    (TP8, "exposed_pct", "25.1%"),
    (ZERO1, "state_bytes", "28.66 GB"),
    (ZERO1, "dp_exposed_s", "133.2 ms"),
    (ZERO1, "exposed_s", "133.2 ms"),
    (ZERO1, "dp_s", "556.3 ms"),
    (ZERO1, "step_s", "3.612 s"),
    (ZERO1, "exposed_pct", "3.69%"),
    (ZERO1_MB2, "dp_exposed_s", "0 s"),
    (ZERO1_MB2, "step_s", "3.479 s"),
]


@pytest.mark.parametrize(("index", "key", "written"), TIES)
def test_the_capstone_writes_its_calculators_numbers(index, key, written):
    assert_ties("capstone", "step_budget", key, written, index)


def test_the_first_change_the_lesson_names_is_the_calculators():
    assert calc_outputs("capstone", "step_budget", DDP)["first_change"] == "make it fit"
    zero1 = calc_outputs("capstone", "step_budget", ZERO1)
    assert zero1["first_change"] == "data-parallel traffic"
    assert calc_outputs("capstone", "step_budget", ZERO1_MB2)["exposed_pct"] == 0
