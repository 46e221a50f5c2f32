"""On the flat networks the clock is the α-β model, entry by entry across the catalog.

Which flat network is the model's depends on its port rule (app/costs/terms.py,
docs/design-notes.md "The race clock"): a single-port algorithm sends at most one message per
step, so a wire per pair (`flat`) and one port per GPU (`flat_switch`) both give the model;
the trees' parents take both children at once on separate wires, as the model charges
(`flat`); the all-port `direct` algorithms, and those the model prices by their busiest port
(the bidirectional ring, the pipelined tree), are charged everything a rank sends on its one
port (`flat_switch`).
"""

from __future__ import annotations

import pytest

from app.collectives import catalog
from app.costs import HARDWARE, SYSTEMS, cost, terms_for
from app.costs.terms import ALGORITHMS, DIRECT_SOURCE
from app.fabric import race

RANKS = (2, 5, 8, 12)
MESSAGE = 3e6  # bytes; both the clock and the model are lines in M, so one size tells
# In-network algorithms (a switch that adds) are not raced: the clock has no adding switch.
ENTRIES = [
    (e["collective"], e["algorithm"], e["single_port"]) for e in catalog() if not e["needs_switch"]
]


def model_topologies(collective: str, algorithm: str, single_port: bool) -> tuple[str, ...]:
    if single_port:
        return ("flat", "flat_switch")
    charged_per_port = (
        terms_for(collective, algorithm, ranks=4).source == DIRECT_SOURCE
        or ALGORITHMS[(collective, algorithm)].busiest_port  # two peers at once, one port
    )
    return ("flat_switch",) if charged_per_port else ("flat",)


def model_time(collective, algorithm, ranks, per_node):
    if per_node:  # hierarchical: the system's NVLink inside a node, its NIC between nodes
        system = SYSTEMS["dgx_h100"]
        intra, inter = HARDWARE[system.intra], HARDWARE[system.inter]
        extra = {
            "ranks_per_node": per_node,
            "intra_latency_us": intra.latency_us,
            "intra_bandwidth_gbs": intra.bandwidth_gbs,
        }
    else:
        inter, extra = HARDWARE["ib_ndr"], {}
    return cost(
        collective,
        algorithm,
        ranks=ranks,
        message_bytes=MESSAGE,
        latency_us=inter.latency_us,
        bandwidth_gbs=inter.bandwidth_gbs,
        **extra,
    ).time_s


@pytest.mark.parametrize(("collective", "algorithm", "single_port"), ENTRIES)
def test_the_flat_clock_equals_the_alpha_beta_model(collective, algorithm, single_port):
    needs_nodes = algorithm == "hierarchical"
    for ranks in RANKS:
        per_node = (4 if ranks % 4 == 0 else 1) if needs_nodes else None
        want = model_time(collective, algorithm, ranks, per_node)
        for topology in model_topologies(collective, algorithm, single_port):
            params = {"gpus_per_node": per_node} if per_node and topology == "flat" else {}
            if needs_nodes and topology == "flat_switch":
                continue  # one port per GPU has no intra-node link
            run = race(
                collective,
                [algorithm],
                ranks=ranks,
                message_bytes=MESSAGE,
                topology=topology,
                preset="dgx_h100" if per_node else "ib_ndr",
                **params,
            ).runs[0]
            assert run.time_s == pytest.approx(want, rel=1e-12), (topology, ranks)
            assert run.model_time_s == pytest.approx(want, rel=1e-12)


def test_the_port_rule_matters_for_direct_and_trees():
    """The other flat network is not the model's: a wire per pair lets `direct` send its p-1
    blocks at once, and one port makes a tree parent take its two children in turn."""
    kw = {"ranks": 8, "message_bytes": MESSAGE, "preset": "ib_ndr"}
    wires = race("allgather", ["direct"], topology="flat", **kw).runs[0]
    port = race("allgather", ["direct"], topology="flat_switch", **kw).runs[0]
    # One step: α + (M/8)/B on a wire, α + (7/8)·M/B on a port.
    b = HARDWARE["ib_ndr"].bandwidth_gbs * 1e9
    alpha = HARDWARE["ib_ndr"].latency_us * 1e-6
    assert wires.time_s == pytest.approx(alpha + MESSAGE / 8 / b)
    assert port.time_s == pytest.approx(alpha + 7 * MESSAGE / 8 / b)
    tree_wires = race("allreduce", ["binary_tree"], topology="flat", **kw).runs[0]
    tree_port = race("allreduce", ["binary_tree"], topology="flat_switch", **kw).runs[0]
    assert tree_port.time_s > tree_wires.time_s


def test_an_in_network_algorithm_is_refused_by_name():
    with pytest.raises(Exception, match="nvls needs an NVSwitch"):
        race("allreduce", ["ring", "nvls"], ranks=8, message_bytes=MESSAGE, topology="flat")
