"""Pipeline send/recv: the GPipe fill/drain schedule, step counts, bytes, and stage outputs.

With m micro-batches on p stages, micro-batch i crosses the link s → s+1 in step i + s, so the
run takes (p-1) + (m-1) steps; m = p by default. Every stage but the last sends M.
"""

from __future__ import annotations

import numpy as np
import pytest

from app.collectives import simulate

RANK_COUNTS = [*range(1, 18), 32, 64]
ITEMSIZE = 4


def run(ranks: int, elements: int, **kwargs):
    return simulate("sendrecv", "pipeline", ranks=ranks, elements=elements, **kwargs)


@pytest.mark.parametrize("ranks", RANK_COUNTS)
def test_steps_are_fill_plus_drain_and_every_stage_but_the_last_sends_m(ranks):
    elements = 3 * ranks
    trace = run(ranks, elements)
    assert trace.chunk_count == ranks  # one micro-batch per stage
    assert trace.total_steps == ((ranks - 1) + (ranks - 1) if ranks > 1 else 0)
    m_bytes = elements * ITEMSIZE
    assert trace.bytes_sent.tolist() == [m_bytes] * (ranks - 1) + [0]


@pytest.mark.parametrize("ranks", [2, 3, 4, 7])
def test_micro_batch_i_crosses_link_s_in_step_i_plus_s(ranks):
    trace = run(ranks, 2 * ranks)
    crossings = {(t.chunk, t.src): s.index for s in trace.steps for t in s.transfers}
    assert crossings == {(i, s): i + s for i in range(ranks) for s in range(ranks - 1)}
    for s in trace.steps:
        for t in s.transfers:
            assert t.dst == t.src + 1


def test_phases_fill_then_steady_then_drain():
    trace = run(5, 10)
    kinds = [s.phase.split(":")[0] for s in trace.steps]
    assert kinds == ["fill"] * 3 + ["steady"] * 2 + ["drain"] * 3
    assert trace.steps[0].phase == "fill: micro-batch 0 enters"
    assert "micro-batch 4" in trace.steps[-1].phase


@pytest.mark.parametrize("ranks", [1, 2, 5, 9])
def test_every_stage_but_the_first_ends_with_the_whole_batch(ranks):
    data = np.arange(ranks * 6, dtype=np.int64).reshape(ranks, 6) * 7
    trace = run(ranks, 6, inputs=data)
    assert trace.outputs[0] is None
    for stage in range(1, ranks):
        assert trace.outputs[stage].tolist() == data[0].tolist()
    assert trace.verified


def test_fewer_elements_than_stages_uses_one_micro_batch_per_element():
    trace = run(6, 2)
    assert trace.chunk_count == 2
    assert trace.total_steps == (6 - 1) + (2 - 1)
    assert all(t.elements == 1 for s in trace.steps for t in s.transfers)
    assert trace.verified


def test_topology_is_a_chain():
    assert run(4, 8).topology == {"kind": "chain", "order": [0, 1, 2, 3]}


def test_256_stages():
    trace = run(256, 256)
    assert trace.total_steps == 255 + 255
    assert trace.bytes_sent.tolist() == [256 * ITEMSIZE] * 255 + [0]
    assert trace.verified
