"""The machine's rules, driven directly: concurrent rounds, holdings, previews and every refusal."""

from __future__ import annotations

import numpy as np
import pytest

from app.collectives import simulate
from app.collectives.machine import AlgorithmBug, Machine


def machine(ranks: int = 3, chunk_sizes=(4, 4), op: str = "sum", empty=()) -> Machine:
    """Rank r's buffer holds 10·r + 0, 1, 2, ...; every rank but `empty` holds its own part."""
    length = sum(chunk_sizes)
    buffers = (10 * np.arange(ranks)[:, None] + np.arange(length)).astype(np.float32)
    bounds = np.cumsum((0, *chunk_sizes)).tolist()
    chunks = list(zip(bounds, bounds[1:], strict=False))
    holdings = {(r, c): 1 << r for r in range(ranks) if r not in empty for c in range(len(chunks))}
    return Machine(buffers=buffers, chunks=chunks, holdings=holdings, op=op)


def test_a_swap_reads_both_sources_before_either_write():
    m = machine()
    with m.step("swap"):
        m.send(0, 1, 0, "copy")
        m.send(1, 0, 0, "copy")
    assert m.buffers[0, :4].tolist() == [10, 11, 12, 13]
    assert m.buffers[1, :4].tolist() == [0, 1, 2, 3]
    assert m.holders(0, 0) == 0b010 and m.holders(1, 0) == 0b001


def test_an_exchange_and_reduce_combines_the_values_from_before_the_round():
    m = machine()
    with m.step("exchange"):
        m.send(0, 1, 1, "reduce")
        m.send(1, 0, 1, "reduce")
    want = [0 + 10 + 2 * i for i in range(4, 8)]
    assert m.buffers[0, 4:].tolist() == want == m.buffers[1, 4:].tolist()
    assert m.holders(0, 1) == m.holders(1, 1) == 0b011
    assert m.buffers[2].tolist() == list(range(20, 28))  # untouched


def test_two_children_reduce_into_one_parent_in_one_round():
    m = machine(op="max")
    with m.step("up"):
        m.send(0, 2, 0, "reduce")
        m.send(1, 2, 0, "reduce")
    assert m.buffers[2, :4].tolist() == [20, 21, 22, 23]
    assert m.holders(2, 0) == 0b111


def test_each_step_records_transfers_updates_and_previews():
    m = machine(chunk_sizes=(6, 2))
    with m.step("a"):
        m.send(0, 1, 0, "reduce")
        m.send(2, 0, 1, "copy")
    step = m.steps[0]
    assert (step.index, step.phase) == (0, "a")
    assert [(t.src, t.dst, t.chunk, t.elements, t.op) for t in step.transfers] == [
        (0, 1, 0, 6, "reduce"),
        (2, 0, 1, 2, "copy"),
    ]
    by_cell = {(u.rank, u.chunk): u for u in step.updates}
    assert set(by_cell) == {(1, 0), (0, 1)}
    assert by_cell[(1, 0)].holders == 0b011
    assert by_cell[(1, 0)].preview == (10.0, 12.0, 14.0, 16.0)  # first four values only
    assert by_cell[(0, 1)].preview == (26.0, 27.0)  # a chunk shorter than a preview
    assert by_cell[(0, 1)].holders == 0b100
    assert m.bytes_sent.tolist() == [6 * 4, 0, 2 * 4]
    assert m.holdings[(1, 0)] == 0b011 and m.holdings[(0, 1)] == 0b100


def test_previews_of_long_chunks_match_the_buffer_after_the_step():
    m = machine(ranks=4, chunk_sizes=(5, 7, 9))
    for s in range(3):
        with m.step("ring"):
            for r in range(4):
                m.send(r, (r + 1) % 4, (r - s) % 3, "reduce" if s == 0 else "copy")
        for u in m.steps[-1].updates:
            start, stop = m.chunks[u.chunk]
            assert u.preview == tuple(m.buffers[u.rank, start : start + 4].tolist())
            assert all(isinstance(v, float) for v in u.preview)


@pytest.mark.parametrize(
    ("sends", "message"),
    [
        ([(0, 0, 0, "copy")], "rank 0 sends chunk 0 to itself"),
        ([(0, 1, 0, "move")], "transfer op must be copy or reduce"),
        ([(0, 1, 0, "copy"), (2, 1, 0, "copy")], "conflicting writes to rank 1 chunk 0"),
        ([(0, 1, 0, "copy"), (2, 1, 0, "reduce")], "conflicting writes to rank 1 chunk 0"),
        ([(0, 1, 0, "reduce"), (2, 1, 0, "copy")], "conflicting writes to rank 1 chunk 0"),
    ],
)
def test_refused_rounds(sends, message):
    m = machine()
    with pytest.raises(AlgorithmBug, match=message), m.step("bad"):
        for src, dst, chunk, op in sends:
            m.send(src, dst, chunk, op)


def test_sending_a_chunk_not_held_is_refused():
    m = machine(empty=(0,))
    with pytest.raises(AlgorithmBug, match="rank 0 sends chunk 1 it does not hold"), m.step("x"):
        m.send(0, 1, 1, "copy")


def test_a_contribution_is_never_reduced_in_twice():
    m = machine()
    with m.step("once"):
        m.send(0, 1, 0, "reduce")
    with pytest.raises(AlgorithmBug, match="count a contribution twice"), m.step("twice"):
        m.send(0, 1, 0, "reduce")
    m = machine()
    with m.step("spread"):
        m.send(0, 1, 0, "copy")  # rank 1 now holds {0}
    with pytest.raises(AlgorithmBug, match="count a contribution twice"), m.step("overlap"):
        m.send(0, 2, 0, "reduce")
        m.send(1, 2, 0, "reduce")  # both carry rank 0's contribution


def test_a_refused_round_changes_no_buffer_and_no_holding():
    m = machine()
    before = m.buffers.copy()
    with pytest.raises(AlgorithmBug), m.step("bad"):
        m.send(0, 1, 0, "reduce")
        m.send(2, 1, 0, "copy")
    assert np.array_equal(m.buffers, before)
    assert m.holders(1, 0) == 0b010 and m.steps == []


def test_sends_belong_inside_one_step():
    m = machine()
    with pytest.raises(AlgorithmBug, match="send outside a step"):
        m.send(0, 1, 0)
    with pytest.raises(AlgorithmBug, match="steps cannot nest"), m.step("a"), m.step("b"):
        pass
    with m.step("empty"):
        pass
    assert m.steps == []  # a round with no transfer is not a step


def test_a_trace_keeps_the_buffers_from_before_the_first_step():
    trace = simulate("allgather", "ring", ranks=4, elements=3)
    initial = trace.initial_buffers
    assert initial.shape == (4, 12) == (trace.ranks, trace.buffer_length)
    for r in range(4):
        assert initial[r, 3 * r : 3 * r + 3].tolist() == trace.inputs[r].tolist()
        assert not initial[r, : 3 * r].any() and not initial[r, 3 * r + 3 :].any()
    assert not initial.flags.writeable
    assert all(not out.flags.writeable for out in trace.outputs)
