"""Every calculator's work and answer are bounded, and no legal input breaks one.

Work is counted, never timed: a fixture wraps the cost model's entry points (`cost` and
`cost_line`, each O(p) in the ranks) wherever a calculator or the ranking reaches them, and
counts the calls; it stops a calculator that goes past its bound at once, so the old
one-allreduce-per-bucket DDP fails in seconds instead of running for hours. The answer's
size is its count of values (table cells, chart points, words). docs/lab.md ("Calculators:
bounded work") states the same bounds.
"""

from __future__ import annotations

import json
import math
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.costs import CostError, model, ranking
from app.costs.calculators import CALCULATORS, ddp_overlap
from app.costs.calculators.fields import BOOL, CHOICE, FLOAT, INT, LIST, PRESET
from app.costs.nccl_tests import MAX_RANKS
from app.costs.terms import ALGORITHMS

TINY = math.nextafter(0.0, 1.0)  # the smallest legal value of a (0, high] field
NDR = dict(latency_us=2.7, bandwidth_gbs=50)

# Calls to cost() and cost_line() per request, at most (docs/lab.md).
ALLREDUCE_ALGORITHMS = len(model.algorithms("allreduce"))
MAX_CALLS = {
    "compare": 2 * ALLREDUCE_ALGORITHMS,  # two prices per algorithm
    "compression": 7,
    "crossover": 2,
    "ddp_overlap": 3,
    "hierarchical": 5,
    "moe": 1,
    "nccl_model": 16,
    "parallelism_3d": 3,
    "step_budget": 4,
    "zero": 13,
}
MAX_VALUES = 2000  # numbers and words in one answer (docs/lab.md)
MAX_TABLE_ROWS = 100

# The most work each calculator can be asked for: every count, rank and size at its limit.
WORST = {
    "compare": dict(
        collective="allreduce", ranks=MAX_RANKS, ranks_per_node=1024, include_direct=True
    ),
    "compression": dict(
        params=1e13, rows=1 << 24, cols=1 << 24, powersgd_rank=1 << 16, ranks=MAX_RANKS
    ),
    "crossover": dict(collective="allreduce", algorithm="double_binary_tree", ranks=MAX_RANKS),
    "ddp_overlap": dict(
        params=1e13,
        grad_bytes=8,
        layers=10000,
        tensors_per_layer=1000,
        bucket_mib=TINY,
        first_bucket_mib=TINY,
        ranks=MAX_RANKS,
        algorithm="double_binary_tree",
    ),
    "hierarchical": dict(gpus_per_node=64, nodes=1024, message_bytes=float(1 << 40)),
    "nccl_model": dict(
        collective="allreduce", system="dgx_h100", ranks=32768, nodes=4096, message_bytes=2.0**40
    ),
    "moe": dict(
        tokens=1 << 26,
        hidden=1 << 20,
        top_k=64,
        capacity_factor=64,
        ep=1 << 16,
        dtype_bytes=8,
        moe_layers=10000,
        micro_batches=100000,
    ),
    "parallelism_3d": dict(
        layers=10000, tp=1024, pp=1000, dp=1 << 16, micro_batches=1 << 16, params=1e13
    ),
    "step_budget": dict(
        params=1e13,
        layers=10000,
        hidden=1 << 16,
        seq=1 << 16,
        global_batch=1 << 24,
        tp=8,
        pp=8,
        dp=1024,
        nodes=8192,
        zero_stage=3,
    ),
    "zero": dict(
        params=1e11, ranks=MAX_RANKS, gpus_per_node=1024, stage=3, qwz=True, hpz=True, qgz=True
    ),
}


class Calls:
    """Counts the cost model's calls and stops a calculator that makes more than `limit`."""

    def __init__(self) -> None:
        self.count, self.limit = 0, math.inf

    def wrap(self, function):
        def counted(*args, **kwargs):
            self.count += 1
            if self.count > self.limit:
                raise AssertionError(f"more than {self.limit} calls to the cost model")
            return function(*args, **kwargs)

        return counted


@pytest.fixture
def calls(monkeypatch) -> Calls:
    """Count every call to `cost` and `cost_line`, under whatever name a module imported them."""
    counter = Calls()
    counted = {f: counter.wrap(f) for f in (model.cost, model.cost_line)}
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith("app.costs"):
            continue
        for attr, value in list(vars(module).items()):
            if callable(value) and value in counted:
                monkeypatch.setattr(module, attr, counted[value])
    return counter


def values_in(data: object) -> int:
    """Count the numbers and words in a JSON-ready answer."""
    if isinstance(data, dict):
        return sum(values_in(v) for v in data.values())
    if isinstance(data, (list, tuple)):
        return sum(values_in(v) for v in data)
    return 1


def run(name: str, inputs: dict, calls: Calls):
    """Run calculator `name`; return its answer as strict JSON data, or the CostError."""
    calls.count, calls.limit = 0, MAX_CALLS[name]
    spec = CALCULATORS[name]
    try:
        result = spec(**inputs)
    except CostError as error:
        named = [f.name for f in spec.fields if f.name in str(error)]
        assert named, f"{name}: the error names none of its inputs: {error}"
        return error
    data = json.loads(json.dumps(result.as_dict(), allow_nan=False))  # no NaN, no Infinity
    assert values_in(data) <= MAX_VALUES, f"{name} answers with {values_in(data)} values"
    assert len(data["table"].get("rows", [])) <= MAX_TABLE_ROWS
    return data


@pytest.mark.parametrize("name", list(CALCULATORS))
def test_the_worst_legal_input_costs_a_bounded_number_of_allreduces(name, calls):
    answer = run(name, WORST[name], calls)
    assert calls.count <= MAX_CALLS[name]
    if name == "ddp_overlap":  # ten million buckets, one per tensor, counted in the answer
        assert {o["key"]: o["value"] for o in answer["outputs"]}["buckets"] == 10**7


def test_ddp_overlap_groups_equal_buckets_instead_of_pricing_each(calls):
    calls.limit = MAX_CALLS["ddp_overlap"]
    result = ddp_overlap(
        layers=1000, tensors_per_layer=100, bucket_mib=TINY, first_bucket_mib=TINY, ranks=64
    )
    assert result.output("buckets") == 100_000
    assert calls.count <= 3  # the first bucket, the full ones, the last
    rows = result.table["rows"]
    assert [r[0] for r in rows] == [*range(50), *range(100_000 - 50, 100_000)]
    assert any("left out of the table" in note for note in result.notes)
    # The timeline still covers every bucket: the buckets between are one bar.
    bars = result.charts[0]["rows"]
    assert "buckets 50–99,949" in [bar["label"] for bar in bars]
    assert bars[-1]["end"] == pytest.approx(rows[-1][4])


def test_the_cost_api_prices_each_algorithm_once(calls):
    # /api/cost/compare: every allreduce algorithm at the most ranks, with GPUs per node;
    # the in-network ones cannot run there (one NVSwitch domain; 8 GPUs per node for CollNet).
    calls.limit = ALLREDUCE_ALGORITHMS
    costs, unavailable = ranking.rank_algorithms(
        "allreduce", ranks=MAX_RANKS, message_bytes=2**30, ranks_per_node=1024, **NDR
    )
    assert calls.count == len(costs) == ALLREDUCE_ALGORITHMS - 2
    assert {u["algorithm"] for u in unavailable} == {"nvls", "collnet"}


# -- the schedule is the one the old per-bucket loop computed ------------------------------------


def reference_ddp(values: dict) -> tuple[list, float]:
    """Schedule DDP bucket by bucket, as the calculator did before grouping: (rows, comm_s)."""
    tensors = values["layers"] * values["tensors_per_layer"]
    tensor_bytes = values["params"] * values["grad_bytes"] / tensors
    t_tensor = values["backward_ms_per_layer"] * 1e-3 / values["tensors_per_layer"]
    plan, size, cap = [], 0, values["first_bucket_mib"] * 2**20
    for j in range(tensors):
        size += 1
        if size * tensor_bytes >= cap:
            plan.append((size * tensor_bytes, j))
            size, cap = 0, values["bucket_mib"] * 2**20
    if size:
        plan.append((size * tensor_bytes, tensors - 1))
    rows, end = [], 0.0
    for i, (bucket, last) in enumerate(plan):
        c = model.cost(
            "allreduce",
            values["algorithm"],
            ranks=values["ranks"],
            message_bytes=bucket,
            latency_us=values["latency_us"],
            bandwidth_gbs=values["bandwidth_gbs"],
        ).time_s
        ready = (last + 1) * t_tensor
        start = max(ready, end)
        end = start + c
        rows.append([i, bucket, ready, start, end, c])
    return rows, sum(r[5] for r in rows)


@pytest.mark.parametrize(
    "inputs",
    [
        {},  # the defaults: 288 tensors of 17 MiB; the first alone, then pairs, one left over
        dict(params=3e8, layers=48, tensors_per_layer=7, bucket_mib=40),  # 12 tensors a bucket
        dict(params=1e6, layers=10, tensors_per_layer=3, first_bucket_mib=100),  # one bucket
        dict(params=2e9, layers=64, tensors_per_layer=50, bucket_mib=0.5, ranks=8),  # 3,200
        dict(params=1e8, backward_ms_per_layer=0.01, latency_us=50, algorithm="binary_tree"),
        dict(params=7e9, layers=32, tensors_per_layer=9, bucket_mib=300, grad_bytes=2),
    ],
)
def test_ddp_overlap_schedules_exactly_as_bucket_by_bucket(inputs):
    result = ddp_overlap(**inputs)
    rows, comm_s = reference_ddp(result.inputs)
    assert result.output("buckets") == len(rows)
    listed = {r[0]: r for r in result.table["rows"]}
    for i, row in listed.items():
        assert row == pytest.approx(rows[i], rel=1e-12), f"bucket {i}"
    assert len(listed) == min(len(rows), MAX_TABLE_ROWS)
    assert result.output("comm_s") == pytest.approx(comm_s, rel=1e-12)
    backward_s = result.output("backward_s")
    assert result.output("exposed_overlap_s") == pytest.approx(
        max(0.0, rows[-1][4] - backward_s), rel=1e-9, abs=1e-15
    )


# -- no legal input breaks a calculator ----------------------------------------------------------


def field_values(f) -> st.SearchStrategy:
    """Draw a legal value of `f`: its edges (low, just above low, high, just below) or between."""
    if f.kind == INT:
        low, high = int(f.low), int(f.high)
        edges = {low, min(low + 1, high), max(high - 1, low), high, f.default}
        return st.sampled_from(sorted(edges))
    if f.kind == FLOAT:
        low = f.low if f.low_inclusive else math.nextafter(f.low, math.inf)
        high = min(f.high, 1e300)
        edges = st.sampled_from([low, math.nextafter(low, math.inf), high, f.default])
        return st.one_of(edges, st.floats(low, high))
    if f.kind in (CHOICE, PRESET):
        return st.sampled_from(f.choices)
    if f.kind == LIST:  # names of any collective's algorithms: another collective's is an error
        names = sorted({algorithm for _, algorithm in ALGORITHMS})
        return st.lists(st.sampled_from(names), max_size=4).map(",".join)
    assert f.kind == BOOL
    return st.booleans()


def legal_inputs(name: str) -> st.SearchStrategy:
    """Draw some of a calculator's inputs, each legal on its own; the rest stay default."""
    fields = CALCULATORS[name].fields
    return st.fixed_dictionaries({}, optional={f.name: field_values(f) for f in fields})


@pytest.mark.parametrize("name", list(CALCULATORS))
def test_inputs_inside_their_ranges_get_an_answer_or_an_error_naming_one(name, calls):
    @settings(
        max_examples=60,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(inputs=legal_inputs(name))
    def check(inputs):
        run(name, inputs, calls)  # CostError naming a field, or finite JSON; bounded work

    check()


# -- degenerate shapes ---------------------------------------------------------------------------


def test_hierarchical_on_one_gpu_takes_no_time_and_says_why():
    result = CALCULATORS["hierarchical"](gpus_per_node=1, nodes=1)
    for key in ("flat_s", "leader_s", "hierarchical_s"):
        assert result.output(key) == 0
    assert result.output("speedup") == 1
    assert "one GPU" in result.interpretation and "nothing to communicate" in result.interpretation


def test_hierarchical_on_one_node_runs_the_flat_ring_on_the_node_link():
    # No network at all: every hop of the flat ring is an intra-node hop.
    result = CALCULATORS["hierarchical"](gpus_per_node=8, nodes=1, message_bytes=2**30)
    intra = model.cost(
        "allreduce", "ring", ranks=8, message_bytes=2**30, latency_us=0.6, bandwidth_gbs=450
    )
    inputs = result.inputs
    assert (inputs["intra_latency_us"], inputs["intra_bandwidth_gbs"]) == (0.6, 450)
    assert result.output("flat_s") == pytest.approx(intra.time_s)


def test_hierarchical_over_the_rank_limit_names_both_inputs():
    with pytest.raises(CostError, match=r"gpus_per_node × nodes .* at most 65536"):
        CALCULATORS["hierarchical"](gpus_per_node=1024, nodes=1 << 14)


# -- the cost model's own memory -----------------------------------------------------------------


def test_the_terms_cache_holds_a_bounded_count_of_per_rank_values(monkeypatch):
    # One Terms holds a value per rank; many rank counts near 65,536 once filled 1.4 GB.
    cache = model.TermsCache(entries=512, ranks=5000)
    monkeypatch.setattr(model, "TERMS_CACHE", cache)
    for ranks in range(1000, 1020):
        model.cost("gather", "binomial_tree", ranks=ranks, message_bytes=1, **NDR)
    held = [len(terms.bytes_per_rank) for terms in cache._items.values()]
    assert sum(held) <= 5000
    assert held == [1016, 1017, 1018, 1019]  # as many of the most recent as fit


def test_a_comparison_at_the_most_ranks_computes_each_algorithm_once(monkeypatch):
    # Ranking the algorithms, then drawing their lines, asks for each one's terms twice: the
    # cache must hold them all, or each is evicted just before it is asked for again.
    monkeypatch.setattr(model, "TERMS_CACHE", model.TermsCache())
    computed = []
    real = model.TermsCache.get

    def counted(cache, key, compute):
        return real(cache, key, lambda: computed.append(key) or compute())

    monkeypatch.setattr(model.TermsCache, "get", counted)
    CALCULATORS["compare"](ranks=1 << 16)
    assert computed, "the comparison asked the cache for nothing"
    assert len(computed) == len(set(computed)), sorted(computed)
