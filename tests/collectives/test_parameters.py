"""The one gate: `check` enforces what each catalog entry says, in one set of words."""

from __future__ import annotations

import dataclasses

import pytest

from app.collectives import (
    CollectiveError,
    Limits,
    catalog,
    check,
    chunk_label,
    from_text,
    max_elements,
    simulate,
)
from app.collectives.parameters import ENGINE
from app.collectives.registry import ALGORITHM_ORDER, REGISTRY, algorithm

RING8 = {"collective": "allreduce", "algorithm": "ring", "ranks": 8, "elements": 64}


def refusal(values: dict, limits: Limits = ENGINE) -> str:
    with pytest.raises(CollectiveError) as info:
        check(values, limits)
    return str(info.value)


def test_check_fills_the_defaults_and_drops_an_unused_node_size():
    assert check({**RING8, "ranks_per_node": 4}) == {
        **RING8,
        "op": "sum",
        "root": 0,
        "ranks_per_node": None,
        "seed": 0,
    }


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"ranks": 0}, "ranks must be an integer in 1..256; got 0"),
        ({"ranks": "8"}, 'ranks must be an integer in 1..256; got "8"'),
        ({"ranks": True}, "ranks must be an integer in 1..256; got true"),
        ({"ranks": 8.0}, "ranks must be an integer in 1..256; got 8.0"),
        ({"collective": "allshuffle"}, "collective must be one of allreduce, reduce, "),
        ({"algorithm": "spiral"}, "algorithm must be one of ring, "),
        ({"op": "mean"}, 'op must be one of sum, prod, max, min, avg; got "mean"'),
        ({"root": 8}, "root must be an integer in 0..7; got 8"),
        ({"seed": -1}, "seed must be an integer >= 0; got -1"),
        ({"elements": 1 << 26}, "elements must be an integer in 1..33554432 for allreduce on 8"),
    ],
)
def test_a_bad_value_names_the_field_and_what_is_allowed(changes, message):
    assert refusal({**RING8, **changes}).startswith(message)


def test_a_missing_field_is_required():
    assert refusal({"collective": "allreduce", "algorithm": "ring", "elements": 8}) == (
        "ranks is required: an integer in 1..256"
    )


def test_tighter_limits_are_named_and_looser_ones_give_way_to_the_engines():
    lab = Limits.drawn(64, 1 << 18)
    assert refusal({**RING8, "ranks": 1}, lab).startswith("ranks must be an integer in 2..64")
    assert refusal({**RING8, "ranks": 64, "elements": 4097}, lab).startswith(
        "elements must be an integer in 1..4096 for allreduce on 64 ranks"
    )
    assert refusal({**RING8, "ranks": 300}, Limits(1, 1000)).startswith(
        "ranks must be an integer in 1..256"
    )


@pytest.mark.parametrize("entry", catalog(), ids=lambda e: f"{e['collective']}-{e['algorithm']}")
def test_check_enforces_what_each_catalog_entry_says(entry):
    base = {"collective": entry["collective"], "algorithm": entry["algorithm"], "ranks": 6}
    if entry["needs_ranks_per_node"]:
        assert "ranks_per_node is required" in refusal({**base, "elements": 6})
        assert refusal({**base, "elements": 6, "ranks_per_node": 4}) == (
            "ranks_per_node must divide ranks (6); got 4"
        )
        base["ranks_per_node"] = 3
    if entry["divisible"]:
        assert "elements must be a multiple of ranks (6)" in refusal({**base, "elements": 9})
    else:
        assert check({**base, "elements": 9})["elements"] == 9
    # The working buffer is ranks x elements long exactly for the block-per-rank collectives.
    per_rank = 6 if entry["block_per_rank"] else 1
    assert max_elements(entry["collective"], 6, 6 * per_rank * 600) == 600
    # An in-network algorithm's switch domain may allow fewer ranks (NVLS: one NVSwitch).
    own = REGISTRY[(entry["collective"], entry["algorithm"])].max_ranks or 256
    assert entry["min_ranks"] == 1 and entry["max_ranks"] == min(256, own)
    trace = simulate(**{**base, "elements": 6, "root": 2})
    has_output = [out is not None for out in trace.outputs]
    if entry["root_only_output"]:
        assert has_output == [r == 2 for r in range(6)]
    elif entry["collective"] != "sendrecv":  # stage 0 only sends
        assert all(has_output)
    assert trace.op == "sum" and (entry["reduces"] == (trace.collective in _reducing()))


def _reducing() -> set[str]:
    """The collectives whose numpy ground truth combines values, per the engine's holdings."""
    out = set()
    for e in catalog():
        trace = simulate(e["collective"], e["algorithm"], ranks=4, elements=4, ranks_per_node=2)
        if any(t.op == "reduce" for s in trace.steps for t in s.transfers):
            out.add(e["collective"])
    return out


def test_a_power_of_two_algorithm_refuses_other_rank_counts(monkeypatch):
    ring = REGISTRY[("allreduce", "ring")]
    monkeypatch.setitem(
        REGISTRY, ("allreduce", "ring"), dataclasses.replace(ring, power_of_two=True)
    )
    assert (
        refusal({**RING8, "ranks": 6}) == "ranks must be a power of two for allreduce/ring; got 6"
    )
    assert check(RING8)["ranks"] == 8
    assert next(e for e in catalog() if e["algorithm"] == "ring")["power_of_two"] is True


def test_the_catalog_has_one_deliberate_order():
    keys = [(e["collective"], e["algorithm"]) for e in catalog()]
    collectives = list(dict.fromkeys(c for c, _ in keys))
    assert collectives == [
        "allreduce",
        "reduce",
        "broadcast",
        "allgather",
        "reduce_scatter",
        "all_to_all",
        "gather",
        "scatter",
        "sendrecv",
    ]
    for c in collectives:
        names = [a for k, a in keys if k == c]
        assert names == sorted(names, key=ALGORITHM_ORDER.index)
    # The first algorithm of each collective is the lab's default.
    firsts = {c: next(a for k, a in keys if k == c) for c in collectives}
    assert firsts["allreduce"] == "ring" and firsts["reduce"] == "binomial_tree"
    assert firsts["all_to_all"] == "pairwise"


def test_an_algorithm_without_a_place_in_the_order_fails_at_registration():
    with pytest.raises(RuntimeError, match="no place in the catalog order"):
        algorithm("allreduce", "spiral", "not a real algorithm")(lambda m: None)
    assert ("allreduce", "spiral") not in REGISTRY


def test_from_text_reads_plain_digits_only_and_skips_blanks():
    assert from_text({"ranks": "8", "elements": "8x", "op": "max", "root": "", "speed": "2"}) == {
        "ranks": 8,
        "elements": "8x",
        "op": "max",
    }
    # Text is quoted whole, as written: a page shows back what its link said.
    long = '"><script>window.__pwned=1</script>'
    assert refusal({**RING8, **from_text({"elements": long})}).endswith(f"got {long!r}")
    assert refusal({**RING8, **from_text({"op": "mean"})}).endswith("got 'mean'")
    assert type(check({**RING8, **from_text({"op": "max"})})["op"]) is str


def test_chunks_are_lettered_then_numbered():
    assert [chunk_label(c) for c in (0, 1, 25, 26, 35)] == ["A", "B", "Z", "C26", "C35"]
