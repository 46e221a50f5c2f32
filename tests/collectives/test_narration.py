"""The narration: one sentence per step, and every number in it a fact of that step.

The facts are computed here from the trace, independently of the narration's own code: the
step's transfers (ranks, chunks, distances, messages and their bytes), the holdings after the
step (`trace.holdings_at`: k of p contributions, finished chunks), the topology and the step
numbers where the engine's phases end. Any number a sentence invents, or takes from another
step, fails.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

import pytest

from app.collectives import catalog, chunk_label, simulate
from app.collectives.narration import narrate

RANKS = (1, 2, 3, 5, 6, 8, 12)
OUTPUT_EVERYWHERE = ("allreduce", "broadcast", "allgather", "reduce_scatter", "scatter")


def cases(ranks: tuple[int, ...] = RANKS) -> list[tuple[dict, dict]]:
    """Every catalog entry at every rank count it allows, at several roots and node sizes."""
    out = []
    for entry in catalog():
        for p in ranks:
            if not entry["min_ranks"] <= p <= entry["max_ranks"]:
                continue
            if entry["power_of_two"] and p & (p - 1):
                continue
            elements = 2 * p if entry["divisible"] else 5 + p  # uneven chunks where allowed
            base = {"ranks": p, "elements": elements}
            if entry["uses_root"]:
                variants = [{**base, "root": r} for r in sorted({0, p // 2, p - 1})]
            elif entry["needs_ranks_per_node"]:
                most = entry["max_ranks_per_node"] or p
                sizes = sorted({g for g in (1, 2, 3, 4, p) if p % g == 0 and g <= most})
                variants = [{**base, "ranks_per_node": g} for g in sizes]
            else:
                variants = [base]
            out += [(entry, v) for v in variants]
    return out


CASES = cases()


def case_id(entry: dict, params: dict) -> str:
    return "-".join([entry["collective"], entry["algorithm"], *map(str, params.values())])


def run(entry: dict, params: dict):
    return simulate(entry["collective"], entry["algorithm"], **params)


def size_text(nbytes: int) -> str:
    """Write a byte count as the lab does: decimal units, four significant digits."""
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.4g} {unit}"
    return f"{nbytes} byte" + ("" if nbytes == 1 else "s")


def outputs(trace, rank: int) -> list[int]:
    """The chunks of `rank`'s result (none where the collective leaves it nothing)."""
    if trace.collective in ("reduce", "gather") and rank != trace.root:
        return []
    if trace.collective == "sendrecv" and rank == 0:
        return []
    return [c for c, d in enumerate(trace.chunk_dest) if d is None or d == rank]


def final_counts(trace, holdings) -> list[int]:
    """Each rank's count of result chunks that hold their final contributions."""
    reduces = trace.collective in ("allreduce", "reduce", "reduce_scatter")
    full = (1 << trace.ranks) - 1

    def want(c: int) -> int:
        return full if reduces else 1 << trace.chunk_source[c]

    return [
        sum(1 for c in outputs(trace, r) if holdings.get((r, c), 0) == want(c))
        for r in range(trace.ranks)
    ]


def step_facts(trace, index: int) -> tuple[set[int], set[int], set[str]]:
    """Return the integers, the ranks and the sizes (as text) that step `index` may quote."""
    p, step = trace.ranks, trace.steps[index]
    itemsize = trace.itemsize
    ranks = {trace.root}
    ints = {index + 1, trace.total_steps, p, p - 1, trace.root, trace.elements}
    ints |= {trace.chunk_count, trace.parts}
    messages: dict[tuple[int, int], list] = defaultdict(list)
    for t in step.transfers:
        messages[(t.src, t.dst)].append(t)
        ranks |= {t.src, t.dst}
        ints |= {t.chunk, (t.dst - t.src) % p, (t.src - t.dst) % p, t.elements}
    sizes = {trace.elements * itemsize, trace.message_bytes}
    sizes |= {t.elements * itemsize for t in step.transfers}
    sizes |= {sum(t.elements for t in ts) * itemsize for ts in messages.values()}
    ints |= {len(ts) for ts in messages.values()} | {len(messages)}
    for end in (0, 1):
        per_rank = Counter(pair[end] for pair in messages)
        ints |= set(per_rank.values())
        totals = Counter()
        for pair, ts in messages.items():
            totals[pair[end]] += sum(t.elements for t in ts) * itemsize
        sizes |= set(totals.values())
        ints.add(len(per_rank))
    ranks |= _topology_ranks(trace, messages)
    ints |= _topology_numbers(trace, messages)
    holdings = trace.holdings_at(index)
    ints |= {holdings[(u.rank, u.chunk)].bit_count() for u in step.updates}
    finals = final_counts(trace, holdings)
    ints |= set(finals) | {len(outputs(trace, r)) for r in range(p)}
    ints.add(sum(1 for r in range(p) if outputs(trace, r) and finals[r] == len(outputs(trace, r))))
    ints.add(sum(1 for r in range(p) if outputs(trace, r)))
    phases = [s.phase for s in trace.steps]
    ints |= {j + 1 for j in range(index, len(phases) - 1) if phases[j] != phases[j + 1]}
    ints |= {stop - start for start, stop in trace.chunks}
    return ints | ranks, ranks, {size_text(n) for n in sizes}


def _topology_ranks(trace, messages) -> set[int]:
    """Ranks the topology names: chain ends, folded pairs, ranks missing from a step."""
    topology, p = trace.topology, trace.ranks
    out = set()
    if "order" in topology:
        out |= {topology["order"][0], topology["order"][-1]}
    out |= {int(k) for k in topology.get("folded", {})} | set(topology.get("folded", {}).values())
    for end in (0, 1):
        involved = {pair[end] for pair in messages}
        if len(involved) == p - 1:
            out |= set(range(p)) - involved
    return out


def _topology_numbers(trace, messages) -> set[int]:
    """Counts the topology gives: hypercube size and partner distance, nodes, links."""
    topology = trace.topology
    out = set()
    if topology["kind"] == "hypercube":
        survivors = [r for r in range(trace.ranks) if r not in topology["folded"]]
        number = {r: n for n, r in enumerate(survivors)}
        out.add(len(survivors))
        out |= {number[s] ^ number[d] for s, d in messages if s in number and d in number}
    if topology["kind"] in ("hierarchical", "switch") and "nodes" in topology:
        out |= {topology["nodes"], topology["ranks_per_node"]}
    if topology["kind"] == "torus":
        out |= {topology["rows"], topology["columns"]}
    if "order" in topology:
        out.add(len(topology["order"]) - 1)
    return out


SIZE = re.compile(r"(\d+(?:\.\d+)?) (bytes?|kB|MB|GB)\b")
SPAN = re.compile(r"(\d+)–(\d+)")
LABEL = re.compile(r"\bC(\d+)\b")
NUMBER = re.compile(r"\d+")


def check_numbers(text: str, ints: set[int], ranks: set[int], sizes: set[str]) -> None:
    """Assert every number in `text` is one of the step's facts."""
    for match in SIZE.finditer(text):
        assert match.group(0) in sizes, f"{match.group(0)!r} is no size of this step: {text}"
    text = SIZE.sub(" ", text)
    for match in SPAN.finditer(text):
        low, high = int(match.group(1)), int(match.group(2))
        assert set(range(low, high + 1)) <= ranks, f"ranks {low}–{high} are not all in: {text}"
    text = SPAN.sub(" ", text)
    for match in NUMBER.finditer(text):
        assert int(match.group(0)) in ints, f"{match.group(0)} is no fact of this step: {text}"


@pytest.mark.parametrize(
    ("entry", "params"),
    CASES,
    ids=[case_id(*case) for case in CASES],
)
def test_each_step_is_narrated_with_its_own_numbers(entry, params):
    trace = run(entry, params)
    texts = narrate(trace)

    assert len(texts) == trace.total_steps
    for index, text in enumerate(texts):
        assert text.startswith(f"Step {index + 1} of {trace.total_steps}, "), text
        ints, ranks, sizes = step_facts(trace, index)
        check_numbers(text, ints, ranks, sizes)
        labels = set(re.findall(r"(?:chunk|block|segment|micro-batch|half) ([A-Z]\w*)", text))
        assert labels <= {chunk_label(t.chunk) for t in trace.steps[index].transfers}, text


def test_the_first_and_last_steps_say_where_the_run_starts_and_ends():
    for entry, params in CASES:
        trace = run(entry, params)
        texts = narrate(trace)
        if not texts:
            continue
        assert "starts with" in texts[0], texts[0]
        assert all("starts with" not in t for t in texts[1:]), entry
        assert texts[-1].split(". ")[-1].startswith("Now "), texts[-1]
        assert all("Now " not in t for t in texts[:-1]), entry


def test_a_run_without_steps_has_no_narration():
    assert narrate(simulate("allreduce", "ring", ranks=1, elements=4)) == []


def test_ring_allreduce_on_four_ranks_step_one():
    trace = simulate("allreduce", "ring", ranks=4, elements=8)
    # 8 float32 values in 4 chunks: 2 values, 8 bytes each. Rank 0 sends chunk A to rank 1,
    # which then holds rank 0's and its own contribution: 2 of 4. The reduce-scatter is the
    # first 3 steps.
    assert narrate(trace)[0] == (
        "Step 1 of 6, reduce-scatter: each of the 4 ranks starts with its own 8 values "
        "(32 bytes). Every rank sends 1 chunk (8 bytes) to its right neighbour, which adds what "
        "arrives to its own copy, so each partial sum gains one contribution per hop. Rank 1's "
        "chunk A now holds 2 of 4 contributions; after step 3, each rank owns one fully reduced "
        "chunk."
    )


def test_rabenseifner_on_six_ranks_folds_the_two_extra_ranks_in_first():
    trace = simulate("allreduce", "rabenseifner", ranks=6, elements=12)
    # 6 = 4 + 2: ranks 0 and 2 hand all 4 chunks (12 values, 48 bytes) to ranks 1 and 3 and sit
    # out; the 4 survivors (1, 3, 4, 5) form the hypercube.
    text = narrate(trace)[0]
    assert text.startswith("Step 1 of 6, fold-in: each of the 6 ranks starts with its own 12")
    assert (
        "6 is not a power of two, so ranks 0 and 2 hand 4 chunks (48 bytes) to ranks 1 and 3, "
        "which add what arrives to their own copies, and sit out, so that the other 4 ranks "
        "form a hypercube." in text
    )
    assert "Rank 1's chunk A now holds 2 of 6 contributions" in text
    last = narrate(trace)[-1]
    assert last.startswith("Step 6 of 6, fold-out: ranks 1 and 3 send 4 chunks (48 bytes) back")
    assert last.endswith("Now every rank holds the sum of all 6 inputs.")


def test_binomial_broadcast_from_root_three():
    trace = simulate("broadcast", "binomial_tree", ranks=8, root=3, elements=16)
    texts = narrate(trace)
    # Relative to root 3, the first round sends to relative rank 4: rank 7. Then 3 -> 5 and
    # 7 -> 1, then four messages: after each step 2, 4, 8 ranks hold the data.
    assert texts[0].startswith(
        "Step 1 of 3, broadcast down the tree: the root, rank 3, starts with 16 values "
        "(64 bytes), the other ranks with nothing. Rank 3 sends its whole vector (64 bytes) "
        "down to rank 7"
    )
    assert "2 of 8 ranks now have their final result" in texts[0]
    assert "ranks 3 and 7 send their whole vectors (64 bytes) down to ranks 1 and 5" in texts[1]
    assert "4 of 8 ranks now have their final result" in texts[1]
    assert texts[2].endswith("Now every rank holds the root's 16 values.")


@pytest.mark.parametrize(
    ("collective", "algorithm"),
    [("allreduce", "ring"), ("allgather", "direct"), ("all_to_all", "bruck")],
)
def test_large_runs_are_summarised_not_listed(collective, algorithm):
    trace = simulate(collective, algorithm, ranks=256, elements=256)
    texts = narrate(trace)
    assert len(texts) == trace.total_steps
    assert max(len(t) for t in texts) < 600
    assert all(len(re.findall(r"\d+", t)) < 30 for t in texts)
