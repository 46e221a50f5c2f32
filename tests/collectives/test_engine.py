"""Every catalog entry, many rank counts, shapes and ops: outputs equal numpy ground truth.

These tests run over `catalog()`, so an algorithm added to the engine is covered the moment it
registers. Algorithm-specific step counts and byte counts live in the per-collective files.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.collectives import COLLECTIVES, OPS, CollectiveError, catalog, simulate

ENTRIES = [(e["collective"], e["algorithm"]) for e in catalog()]
RANK_COUNTS = [*range(1, 18), 32, 64]
# An in-network algorithm may allow fewer ranks than the engine (NVLS: one NVSwitch domain).
MOST = {(e["collective"], e["algorithm"]): e["max_ranks"] for e in catalog()}
NEEDS_NODES = {(e["collective"], e["algorithm"]) for e in catalog() if e["needs_ranks_per_node"]}


def allowed(collective: str, algorithm: str, ranks: int) -> None:
    """Skip a rank count beyond what the catalog allows the algorithm."""
    if ranks > MOST[(collective, algorithm)]:
        pytest.skip(f"{collective}/{algorithm} runs on at most {MOST[(collective, algorithm)]}")


def params(collective: str, algorithm: str, ranks: int) -> dict:
    """Return keyword arguments that make a valid run of `collective`/`algorithm` on `ranks`."""
    extra = {}
    if collective in ("reduce", "broadcast", "gather", "scatter"):
        extra["root"] = ranks // 3
    if (collective, algorithm) in NEEDS_NODES:  # hierarchical, collnet (at most 8 per node)
        extra["ranks_per_node"] = next(g for g in (4, 3, 2, 1) if ranks % g == 0)
    return extra


def element_counts(collective: str, ranks: int) -> list[int]:
    if COLLECTIVES[collective].needs_divisible:
        return [ranks, 3 * ranks]
    return [1, 5, 2 * ranks + 3]  # fewer than, and not a multiple of, the chunk count


def test_catalog_lists_every_collective_with_descriptions():
    assert {c for c, _ in ENTRIES} == set(COLLECTIVES)
    for entry in catalog():
        assert entry["description"], entry
        assert entry["constraints"]["ranks"] == f"1..{min(256, entry['max_ranks'])}"


@pytest.mark.parametrize(("collective", "algorithm"), ENTRIES)
@pytest.mark.parametrize("ranks", RANK_COUNTS)
def test_outputs_equal_numpy(collective, algorithm, ranks):
    allowed(collective, algorithm, ranks)
    sizes = element_counts(collective, ranks)
    for elements in sizes:
        # Every op on the largest size (uneven chunks); the smaller sizes test the chunking,
        # which no op changes, with sum alone.
        ops = OPS if COLLECTIVES[collective].reduces and elements == sizes[-1] else ("sum",)
        for op in ops:
            trace = simulate(
                collective,
                algorithm,
                ranks=ranks,
                elements=elements,
                op=op,
                **params(collective, algorithm, ranks),
            )
            assert trace.verified, (collective, algorithm, ranks, elements, op)
            for got, want in zip(trace.outputs, trace.expected, strict=True):
                assert (got is None) == (want is None)
                if got is not None:
                    np.testing.assert_allclose(got, want, rtol=1e-5 * ranks)


@pytest.mark.parametrize(("collective", "algorithm"), ENTRIES)
@pytest.mark.parametrize("ranks", [1, 2, 3, 5, 8, 12, 16])
def test_trace_invariants(collective, algorithm, ranks):
    allowed(collective, algorithm, ranks)
    elements = 4 * ranks
    trace = simulate(
        collective,
        algorithm,
        ranks=ranks,
        elements=elements,
        **params(collective, algorithm, ranks),
    )
    single_port = next(
        e["single_port"]
        for e in catalog()
        if (e["collective"], e["algorithm"]) == (collective, algorithm)
    )
    sent = np.zeros(ranks, dtype=np.int64)
    for i, step in enumerate(trace.steps):
        assert step.index == i
        assert step.phase
        assert step.transfers, "a step with no transfer would cost an alpha for nothing"
        writes: dict[tuple[int, int], list[str]] = {}
        for t in step.transfers:
            assert t.src != t.dst, "no rank sends to itself"
            # A switch that adds in the network is a node after the ranks, declared.
            nodes = ranks + len(trace.switches)
            assert 0 <= t.src < nodes and 0 <= t.dst < nodes
            assert t.src < ranks or t.dst < ranks, "switches talk only to ranks"
            assert t.op in ("copy", "reduce")
            start, stop = trace.chunks[t.chunk]
            assert t.elements == stop - start
            if t.src < ranks:  # bytes_sent is per rank
                sent[t.src] += t.elements * trace.itemsize
            writes.setdefault((t.dst, t.chunk), []).append(t.op)
        for ops in writes.values():
            # Two writes into one slice in one step are only allowed as concurrent reductions
            # of disjoint contributions (a tree parent taking both children at once).
            assert len(ops) == 1 or set(ops) == {"reduce"}
            if not single_port:
                continue
            assert len(ops) == 1
        if single_port:
            peers_out = {(t.src, t.dst) for t in step.transfers}
            senders = [s for s, _ in peers_out]
            receivers = [d for _, d in peers_out]
            assert len(senders) == len(set(senders)), f"step {i}: a rank sends to two peers"
            assert len(receivers) == len(set(receivers)), f"step {i}: a rank hears two peers"
    assert sent.tolist() == trace.bytes_sent.tolist()


def test_ring_allreduce_on_eight_ranks_takes_fourteen_steps():
    trace = simulate("allreduce", "ring", ranks=8, elements=64)
    assert trace.total_steps == 14
    assert trace.verified
    assert trace.bytes_sent.tolist() == [2 * 7 * 8 * 4] * 8  # 2(p-1)/p · M, M = 64 · 4 bytes


def test_holdings_grow_one_rank_per_ring_step():
    trace = simulate("allreduce", "ring", ranks=4, elements=8)
    after_two = trace.holdings_at(1)
    # Rank 2 receives chunk 1 from rank 1 in step 0 and chunk 0 from rank 1 in step 1.
    assert after_two[(2, 0)] == 0b0111  # r0 + r1 + r2, built by two hops around the ring
    assert trace.holdings_at(-1)[(2, 0)] == 0b0100


def test_dtype_of_given_inputs_is_kept_and_counted_in_bytes():
    data = np.arange(4 * 6, dtype=np.int64).reshape(4, 6)
    trace = simulate("allreduce", "ring", ranks=4, elements=6, inputs=data)
    assert trace.outputs[0].dtype == np.int64
    assert trace.outputs[0].tolist() == data.sum(axis=0).tolist()
    assert trace.bytes_sent.sum() == sum(t.elements * 8 for s in trace.steps for t in s.transfers)


@settings(max_examples=60, deadline=None)
@given(
    entry=st.sampled_from(ENTRIES),
    ranks=st.integers(1, 20),
    blocks=st.integers(1, 6),
    extra=st.integers(0, 5),
    op=st.sampled_from(OPS),
    seed=st.integers(0, 2**32 - 1),
    floats=st.booleans(),
)
def test_random_shapes_and_values(entry, ranks, blocks, extra, op, seed, floats):
    collective, algorithm = entry
    ranks = min(ranks, MOST[entry])
    elements = blocks * ranks + (0 if COLLECTIVES[collective].needs_divisible else extra)
    rng = np.random.default_rng(seed)
    if floats:
        data = rng.uniform(-1e3, 1e3, size=(ranks, elements))
    else:
        data = rng.integers(-50, 50, size=(ranks, elements), dtype=np.int32)
    if op == "prod":  # keep products finite and away from 0 so rounding stays relative
        data = np.where(data == 0, 1, data) if not floats else rng.uniform(0.5, 1.5, data.shape)
    trace = simulate(
        collective,
        algorithm,
        ranks=ranks,
        elements=elements,
        op=op,
        inputs=data,
        **params(collective, algorithm, ranks),
    )
    assert trace.verified, (collective, algorithm, ranks, elements, op)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"collective": "allreduse"}, "collective"),
        ({"algorithm": "spiral"}, "algorithm"),
        ({"ranks": 0}, "ranks"),
        ({"ranks": 257}, "ranks"),
        ({"ranks": 2.5}, "ranks"),
        ({"ranks": True}, "ranks"),
        ({"elements": -3}, "elements"),
        ({"elements": 0}, "elements"),
        ({"op": "mean"}, "op"),
        ({"collective": "reduce", "algorithm": "binomial_tree", "root": 4}, "root"),
        ({"collective": "reduce", "algorithm": "binomial_tree", "root": -1}, "root"),
        ({"collective": "reduce_scatter", "algorithm": "ring", "elements": 7}, "elements"),
        ({"collective": "all_to_all", "algorithm": "pairwise", "elements": 6}, "elements"),
        ({"algorithm": "hierarchical"}, "ranks_per_node"),
        ({"algorithm": "hierarchical", "ranks_per_node": 3}, "ranks_per_node"),
        ({"inputs": np.zeros((3, 8))}, "inputs"),
        ({"inputs": np.array([["a"] * 8] * 4)}, "inputs"),
    ],
)
def test_bad_parameters_raise_collective_error_naming_the_field(kwargs, field):
    args = {"collective": "allreduce", "algorithm": "ring", "ranks": 4, "elements": 8, **kwargs}
    collective, algorithm = args.pop("collective"), args.pop("algorithm")
    with pytest.raises(CollectiveError) as info:
        simulate(collective, algorithm, **args)
    assert field in str(info.value)
    assert isinstance(info.value, ValueError)
