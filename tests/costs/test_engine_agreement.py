"""The engine and the cost model agree: for every catalog entry and many p, the steps the
engine executes equal the model's count of alpha terms, and the bytes each rank sends in
`simulate` equal the model's per-rank bytes (REFERENCE § 1).

Elements are chosen so every chunk count divides them: lcm(4p, 2·pof2, 16), which covers p
blocks, p segments, pof2 Rabenseifner chunks, the double binary tree's two halves, the
bidirectional ring's 2p chunks, the pipelined tree's 2 x 8 chunks, NVLS's 4 segments and
CollNet's 4·g.
"""

from __future__ import annotations

import math

import pytest

from app.collectives import catalog, simulate
from app.collectives.hypercube import largest_power_of_two
from app.collectives.tree_pipelined import CHUNKS_PER_TREE
from app.costs import ALGORITHMS, algorithms, cost

RANKS = [*range(1, 18), 24, 32, 64]
ITEMSIZE = 4  # the engine's default inputs are float32


def _elements(p: int) -> int:
    return math.lcm(4 * p, 2 * largest_power_of_two(p), 2 * CHUNKS_PER_TREE)


def _message_bytes(collective: str, p: int, elements: int) -> int:
    # REFERENCE § 1: allgather and gather count the total output, p blocks of `elements`.
    total = p * elements if collective in ("allgather", "gather") else elements
    return total * ITEMSIZE


def _model(collective: str, algorithm: str, p: int, elements: int, **extra):
    """The cost model's prediction for the engine run of `elements` per rank on p ranks."""
    return cost(
        collective,
        algorithm,
        ranks=p,
        message_bytes=_message_bytes(collective, p, elements),
        latency_us=1,
        bandwidth_gbs=1,
        **extra,
    )


def _ranks_per_node(p: int) -> list[int]:
    return [g for g in (1, 2, 4, 8, 3, p) if p % g == 0]


def _cases():
    for entry in catalog():
        collective, algorithm = entry["collective"], entry["algorithm"]
        for p in RANKS:
            if p > entry["max_ranks"]:  # an NVSwitch domain's limit (catalog)
                continue
            if entry["needs_ranks_per_node"]:
                most = entry["max_ranks_per_node"] or p
                for g in sorted(g for g in set(_ranks_per_node(p)) if g <= most):
                    yield pytest.param(
                        collective, algorithm, p, g, id=f"{collective}-{algorithm}-p{p}-g{g}"
                    )
            else:
                yield pytest.param(
                    collective, algorithm, p, None, id=f"{collective}-{algorithm}-p{p}"
                )


def test_the_model_covers_exactly_the_catalog():
    assert {(e["collective"], e["algorithm"]) for e in catalog()} == set(ALGORITHMS)


@pytest.mark.parametrize(("collective", "algorithm", "p", "g"), list(_cases()))
def test_engine_steps_and_bytes_match_the_model(collective, algorithm, p, g):
    elements = _elements(p)
    trace = simulate(collective, algorithm, ranks=p, elements=elements, ranks_per_node=g)
    assert trace.verified
    model = _model(collective, algorithm, p, elements, ranks_per_node=g)
    assert len(trace.steps) == model.steps
    assert list(trace.bytes_sent) == pytest.approx(model.bytes_per_rank, rel=1e-9, abs=1e-9)


ROOTED = [e for e in catalog() if e["uses_root"]]


@pytest.mark.parametrize("entry", ROOTED, ids=lambda e: f"{e['collective']}-{e['algorithm']}")
@pytest.mark.parametrize("p", [2, 3, 5, 8, 13])
def test_every_root_sends_what_the_model_says(entry, p):
    collective, algorithm = entry["collective"], entry["algorithm"]
    elements = _elements(p)
    for root in range(p):
        trace = simulate(collective, algorithm, ranks=p, elements=elements, root=root)
        model = _model(collective, algorithm, p, elements, root=root)
        assert list(trace.bytes_sent) == pytest.approx(model.bytes_per_rank, rel=1e-9, abs=1e-9)
        assert len(trace.steps) == model.steps


def _critical_path(trace, algorithm: str, g: int | None) -> tuple[dict[str, float], float]:
    """Sum over the engine's steps of what the time rule charges, per link, and the reductions.

    A single-port step lasts as long as its largest message (one src → dst pair); a `direct`
    step, and one of an algorithm the model prices by its busiest port, as long as the busiest
    port (everything one rank sends or receives). The reduction term charges the most bytes
    any rank reduces in the step; a switch's adds (dst at or past p) cost the GPUs nothing.
    """
    beta = {"intra": 0.0, "inter": 0.0}
    gamma = 0.0
    for step in trace.steps:
        messages, sent, received, reduced = {}, {}, {}, {}
        intra = True
        for t in step.transfers:
            size = t.elements * ITEMSIZE
            messages[(t.src, t.dst)] = messages.get((t.src, t.dst), 0) + size
            sent[t.src] = sent.get(t.src, 0) + size
            received[t.dst] = received.get(t.dst, 0) + size
            if t.op == "reduce" and t.dst < trace.ranks:
                reduced[t.dst] = reduced.get(t.dst, 0) + size
            intra &= g is not None and t.src // g == t.dst // g
        if algorithm == "direct" or ALGORITHMS[(trace.collective, algorithm)].busiest_port:
            busiest = max(max(sent.values()), max(received.values()))
        else:
            busiest = max(messages.values())
        beta["intra" if intra else "inter"] += busiest
        gamma += max(reduced.values(), default=0)
    return beta, gamma


@pytest.mark.parametrize(("collective", "algorithm", "p", "g"), list(_cases()))
def test_the_time_terms_follow_the_engines_schedule(collective, algorithm, p, g):
    elements = _elements(p)
    trace = simulate(collective, algorithm, ranks=p, elements=elements, ranks_per_node=g)
    model = _model(collective, algorithm, p, elements, gamma_s_per_byte=1e-9, ranks_per_node=g)
    beta, gamma = _critical_path(trace, algorithm, g)
    per_link = {"intra": 0.0, "inter": 0.0}
    for phase in model.phases:
        per_link[phase.link] += phase.bandwidth_s * 1e9  # bytes at 1 GB/s
    if g is None or g == p or g == 1:  # one link class: nothing to tell apart
        per_link = {"intra": 0.0, "inter": per_link["intra"] + per_link["inter"]}
        beta = {"intra": 0.0, "inter": beta["intra"] + beta["inter"]}
    assert per_link == pytest.approx(beta, rel=1e-9, abs=1e-6)
    assert model.compute_s * 1e9 == pytest.approx(gamma, rel=1e-9, abs=1e-6)


def test_the_cost_model_lists_algorithms_in_the_catalogs_order():
    engine = [(e["collective"], e["algorithm"]) for e in catalog()]
    model = [(c, a) for c in dict.fromkeys(c for c, _ in engine) for a in algorithms(c)]
    assert model == engine
