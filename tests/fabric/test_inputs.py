"""Bad parameters raise a ValueError whose message names the field and what is allowed."""

from __future__ import annotations

import pytest

from app.fabric import TOPOLOGIES, race, sweep
from app.fabric.registry import topology as build

GOOD = {
    "ranks": 16,
    "message_bytes": 1e6,
    "topology": "fat_tree",
    "nodes": 2,
    "gpus_per_node": 8,
}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"nodes": 0}, "nodes must be an integer in 1..32"),
        ({"nodes": 2.5}, "nodes must be an integer"),
        ({"oversubscription": 0.5}, "oversubscription must be a number in [1, 16]"),
        ({"oversubscription": float("nan")}, "oversubscription"),
        ({"spines": "many"}, "spines must be an integer"),
        ({"topology": "hypercube"}, "topology must be one of"),
        ({"preset": "ib_ndr"}, "preset must be one of dgx_a100"),
        ({"mapping": "random"}, "mapping must be one of fill, round_robin"),
        ({"ranks": 17}, "ranks must be an integer in 1..16 on topology fat_tree"),
        ({"ranks": 1}, "ranks must be an integer in 2.."),
        ({"message_bytes": 0}, "bytes must be a number in [1,"),
        ({"message_bytes": 2e12}, "bytes must be a number in [1,"),
        ({"x": 4}, "x is not a parameter of topology fat_tree"),
    ],
)
def test_a_bad_race_parameter_is_named(change, field):
    with pytest.raises(ValueError) as error:
        race("allreduce", ["ring", "rabenseifner"], **{**GOOD, **change})
    assert field in str(error.value)


@pytest.mark.parametrize(
    ("collective", "algorithms", "field"),
    [
        ("allreduce", [], "algorithms must be 1 to 4 distinct names"),
        ("allreduce", ["ring", "ring"], "algorithms must be 1 to 4 distinct names"),
        ("allreduce", ["ring", "bruck"], "algorithms: 'bruck' is not an algorithm of allreduce"),
        ("allreduce", "ring", "algorithms must be a list"),
        ("allshuffle", ["ring"], "collective must be one of"),
    ],
)
def test_bad_algorithms_are_named(collective, algorithms, field):
    with pytest.raises(ValueError) as error:
        race(collective, algorithms, **GOOD)
    assert field in str(error.value)


def test_an_algorithm_that_needs_whole_nodes_says_so():
    with pytest.raises(ValueError, match="algorithms: hierarchical needs whole nodes"):
        race("allreduce", ["hierarchical"], **{**GOOD, "ranks": 12})


def test_sweep_checks_its_size_range():
    with pytest.raises(ValueError, match="low_bytes must be below high_bytes"):
        sweep("allreduce", ["ring"], ranks=8, low_bytes=1e6, high_bytes=1e3)


def test_every_default_builds():
    for name, spec in TOPOLOGIES.items():
        topo = build(name, ranks=8)
        assert len(topo.gpus) >= 8, name
        assert spec.default_preset in spec.presets()
