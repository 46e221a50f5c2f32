"""In-network algorithms (NVLS, CollNet): checked against numpy, with the switch in the trace.

The numpy ground truth is computed here from the inputs (not from the engine's `expected`), the
per-rank bytes sent and received are counted from the transfers, and the switch must be a
declared node after the ranks that never appears in the ranks' state.
"""

from __future__ import annotations

import numpy as np
import pytest

from app.collectives import CollectiveError, catalog, simulate

RANKS = [*range(1, 18), 32, 64]
NVLS = [("allreduce", "nvls"), ("reduce_scatter", "nvls"), ("allgather", "nvls")]


def _entry(collective: str, algorithm: str) -> dict:
    return next(
        e for e in catalog() if (e["collective"], e["algorithm"]) == (collective, algorithm)
    )


def _numpy(collective: str, inputs: np.ndarray, op: str) -> list[np.ndarray]:
    """What every rank must end with, straight from numpy."""
    p = inputs.shape[0]
    reduce = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}[op]
    if collective == "allgather":
        return [inputs.reshape(-1)] * p
    total = reduce(inputs, axis=0).astype(inputs.dtype)
    if collective == "reduce_scatter":
        return list(total.reshape(p, -1))
    return [total] * p


def _cases():
    for collective, algorithm in NVLS:
        most = _entry(collective, algorithm)["max_ranks"]
        yield from ((collective, algorithm, p, None) for p in RANKS if p <= most)
    for p in RANKS:
        for g in sorted({1, 2, 4, 8, p} & set(range(1, 9))):
            if p % g == 0:
                yield "allreduce", "collnet", p, g


@pytest.mark.parametrize(
    ("collective", "algorithm", "p", "g", "op"),
    [(*case, "sum") for case in _cases()] + [(*c, "max") for c in _cases() if c[2] in (3, 8)],
)
def test_the_switch_computes_what_numpy_computes(collective, algorithm, p, g, op):
    rng = np.random.default_rng(p)
    elements = 3 * p  # a multiple of p for the block collectives, uneven segments elsewhere
    inputs = rng.integers(-50, 50, size=(p, elements)).astype(np.int32)
    trace = simulate(
        collective, algorithm, ranks=p, elements=elements, op=op, inputs=inputs, ranks_per_node=g
    )
    for got, want in zip(trace.outputs, _numpy(collective, inputs, op), strict=True):
        np.testing.assert_array_equal(got, want)
    assert trace.verified


@pytest.mark.parametrize(("collective", "algorithm", "p", "g"), list(_cases()))
def test_the_switch_is_a_declared_node_after_the_ranks(collective, algorithm, p, g):
    trace = simulate(collective, algorithm, ranks=p, elements=4 * p, ranks_per_node=g)
    (switch,) = trace.switches
    assert switch["id"] == p and switch["kind"] in ("nvswitch", "sharp")
    ends = {end for s in trace.steps for t in s.transfers for end in (t.src, t.dst)}
    assert ends == (set(range(p + 1)) if p > 1 else set())  # one rank sends nothing
    # The switch keeps no state a view shows: every changed cell is a rank's.
    assert all(u.rank < p for s in trace.steps for u in s.updates)
    assert len(trace.bytes_sent) == p


@pytest.mark.parametrize("p", [2, 5, 8, 32])
def test_nvls_moves_the_message_once_each_way(p):
    itemsize, elements = 4, 8 * p
    m = elements * itemsize
    allreduce = simulate("allreduce", "nvls", ranks=p, elements=elements)
    assert list(allreduce.bytes_sent) == [m] * p
    assert list(allreduce.bytes_received()) == [m] * p  # in-network: not 2(p-1)/p·M
    rs = simulate("reduce_scatter", "nvls", ranks=p, elements=elements)
    assert list(rs.bytes_sent) == [m] * p and list(rs.bytes_received()) == [m // p] * p
    ag = simulate("allgather", "nvls", ranks=p, elements=elements)
    assert list(ag.bytes_sent) == [m] * p and list(ag.bytes_received()) == [m * p] * p
    assert len(rs.steps) == len(ag.steps) == 2


@pytest.mark.parametrize(("p", "g"), [(8, 1), (8, 4), (16, 8), (6, 3)])
def test_collnet_sends_each_node_sum_through_the_switch_once(p, g):
    trace = simulate("allreduce", "collnet", ranks=p, elements=4 * g * p, ranks_per_node=g)
    m = 4 * g * p * 4
    into = sum(t.elements * 4 for s in trace.steps for t in s.transfers if t.dst == p)
    out = sum(t.elements * 4 for s in trace.steps for t in s.transfers if t.src == p)
    nodes = p // g
    assert into == out == nodes * m  # each head sends M up and receives M back
    heads = {t.src for s in trace.steps for t in s.transfers if t.dst == p}
    assert heads == set(range(0, p, g))


def test_the_catalog_says_what_hardware_each_needs():
    for collective, algorithm in NVLS:
        entry = _entry(collective, algorithm)
        assert "NVSwitch" in entry["needs_switch"] and "switch" in entry["constraints"]
    assert _entry("allreduce", "nvls")["max_ranks"] == 72
    assert _entry("allgather", "nvls")["max_ranks"] == 32
    collnet = _entry("allreduce", "collnet")
    assert collnet["needs_ranks_per_node"] and collnet["max_ranks_per_node"] == 8
    assert "SHARP" in collnet["needs_switch"]
    assert _entry("allreduce", "ring")["needs_switch"] == ""


@pytest.mark.parametrize(
    ("params", "words"),
    [
        (
            {"collective": "allgather", "ranks": 33},
            "ranks must be an integer in 1..32 for allgather",
        ),
        (
            {"collective": "allreduce", "ranks": 73},
            "ranks must be an integer in 1..72 for allreduce",
        ),
        (
            {"algorithm": "collnet", "ranks": 32, "ranks_per_node": 16},
            "ranks_per_node must be an integer in 1..8 for allreduce/collnet; got 16",
        ),
    ],
)
def test_beyond_the_switch_domain_is_refused_by_name(params, words):
    base = {"collective": "allreduce", "algorithm": "nvls", "elements": 64}
    with pytest.raises(CollectiveError, match=words.replace("(", r"\(").replace(")", r"\)")):
        simulate(**{**base, **params})


def test_the_narration_says_the_switch_adds_and_multicasts():
    from app.collectives.narration import narrate

    # 8 ranks, 64 float32 values in 4 segments of 16 values (64 bytes); in step 2 segment B
    # goes in from all 8 ranks while the sum of segment A comes out to all of them.
    text = narrate(simulate("allreduce", "nvls", ranks=8, elements=64))[1]
    assert "every rank sends 1 chunk (64 bytes) into the NVSwitch" in text
    assert "adds the 8 contributions to chunk B" in text
    assert "multicasts the result of chunk A (64 bytes) to every rank" in text
    first = narrate(simulate("reduce_scatter", "nvls", ranks=4, elements=8))[0]
    assert "The NVSwitch now holds the sum of 4 blocks over all 4 ranks" in first
