"""The socket's compact step form carries exactly what the full form does (issue 17)."""

from __future__ import annotations

import json

import pytest

from app.collectives import catalog, simulate
from app.web import compact, serialize
from tests.web import compact_form

P_VALUES = (1, 2, 3, 17, 32)  # 64 ranks: the size test below; 32 costs a quarter of it


def cases():
    """Every catalog entry at p = 1, 2, 3, 17, 32, where its constraints allow that p."""
    for e in catalog():
        for p in P_VALUES:
            if e["power_of_two"] and p & (p - 1):
                continue
            rpn = None
            if e["needs_ranks_per_node"]:
                rpn = next(d for d in (4, 2, 1) if p % d == 0 and (p // d > 1 or d == p))
            elements = p * (3 if e["divisible"] else 1) + (0 if e["divisible"] else 5)
            root = p - 1 if e["uses_root"] else 0
            yield pytest.param(
                e["collective"], e["algorithm"], p, elements, rpn, root,
                id=f"{e['collective']}-{e['algorithm']}-p{p}",
            )  # fmt: skip


def roundtrip(payload: dict) -> dict:
    """Encode and decode as the socket does: the JSON text, not the Python objects."""
    return json.loads(json.dumps(payload, separators=(",", ":")))


CASES = list(cases())


@pytest.mark.parametrize(("collective", "algorithm", "ranks", "elements", "rpn", "root"), CASES)
def test_the_compact_form_expands_to_exactly_the_full_payloads(
    collective, algorithm, ranks, elements, rpn, root
):
    op = "max" if collective in ("reduce", "allreduce") else "sum"
    trace = simulate(
        collective, algorithm, ranks=ranks, elements=elements, op=op, root=root,
        ranks_per_node=rpn, seed=7,
    )  # fmt: skip
    sent = roundtrip(compact.start(trace))
    # The socket's one field of its own: the topology's picture (tests/web/test_topology_svg.py).
    assert sent["layout"].pop("topology_svg").startswith("<svg ")
    start = compact_form.start(sent)
    assert start == roundtrip(serialize.start(trace))
    texts = serialize.narrations(trace)
    chunks = start["layout"]["chunks"]
    for s, text in zip(trace.steps, texts, strict=True):
        got = compact_form.step(roundtrip(compact.step(trace, s, text)), chunks)
        assert got == roundtrip(serialize.step(trace, s, text)), s.index


@pytest.mark.parametrize(
    ("mask", "text"),
    [(0, ""), (1, "0"), (0b1011, "0-1,3"), (0b110, "1-2"), ((1 << 64) - 1, "0-63"),
     ((1 << 64) - 1 - (1 << 40), "0-39,41-63"), (0xAA, "1,3,5,7"), (1 << 255, "255")],
)  # fmt: skip
def test_holders_are_spelled_as_ascending_ranges(mask, text):
    assert compact.holders(mask) == text
    assert compact_form.holders(text) == [r for r in range(256) if mask >> r & 1]


def test_the_socket_form_of_a_64_rank_ring_is_a_fraction_of_the_full_one():
    trace = simulate("allreduce", "ring", ranks=64, elements=64)
    texts = serialize.narrations(trace)

    def size(form) -> int:
        steps = (form.step(trace, s, t) for s, t in zip(trace.steps, texts, strict=True))
        return len(json.dumps([form.start(trace), *steps], separators=(",", ":")))

    assert size(compact) < size(serialize) / 4
