"""Predict-the-next-step templates: cases checked against the engine, draws made and verified.

`cases` name collectives, algorithms and rank counts; a draw picks one, runs the engine, picks a
step k and a rank, and asks what happens in step k. The buffer state after step k-1 is the
question; the trace's step k is the answer (`predict_answers`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

from app.collectives import COLLECTIVES, CollectiveError, simulate
from app.collectives.trace import Trace

from .expressions import TemplateError

ASKS = {
    "sends": "which chunks a rank sends in the next step",
    "peers": "which ranks a rank sends to in the next step",
    "contributions": "whose contributions a rank's copy of a chunk holds after the next step",
    "holds": "which chunks a rank holds after the next step (gathers, broadcasts)",
    "complete": "which chunks are fully reduced at a rank after the next step (reductions)",
}
MAX_PREDICT_RANKS = 16
MAX_PREDICT_CHUNKS = 16
CASE_KEYS = {"collective", "algorithm", "ranks", "root", "ranks_per_node"}


@dataclass(frozen=True)
class Case:
    """One (collective, algorithm) with the rank counts, roots and node sizes it may draw."""

    collective: str
    algorithm: str
    ranks: tuple[int, ...]
    roots: tuple[int, ...] = (0,)
    ranks_per_node: tuple[int, ...] = ()


@dataclass(frozen=True)
class PredictSpec:
    ask: str
    cases: tuple[Case, ...]


def elements_for(ranks: int) -> int:
    """Return the `elements` a predict question simulates: small, and a multiple of ranks."""
    return 4 * ranks


@lru_cache(maxsize=256)
def trace_for(collective: str, algorithm: str, ranks: int, root: int, ranks_per_node) -> Trace:
    """Run (and remember) the small simulation a predict question is drawn from."""
    return simulate(
        collective,
        algorithm,
        ranks=ranks,
        elements=elements_for(ranks),
        root=root,
        ranks_per_node=ranks_per_node,
    )


def instance(spec: PredictSpec, values: dict) -> tuple[Case, Trace]:
    """Return the case and the trace a draw `values` asks about."""
    case = spec.cases[values["case"]]
    trace = trace_for(
        case.collective,
        case.algorithm,
        values["ranks"],
        values["root"],
        values.get("ranks_per_node"),
    )
    return case, trace


# -- checking a template -------------------------------------------------------------------------


def _int_list(raw, field: str, low: int, high: int) -> tuple[int, ...]:
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = [raw]
    if (
        not isinstance(raw, list)
        or not raw
        or not all(isinstance(v, int) and not isinstance(v, bool) and low <= v <= high for v in raw)
    ):
        raise TemplateError(
            f"field '{field}' must be an integer or a list of integers in {low}..{high}"
        )
    return tuple(raw)


def parse_predict(raw) -> PredictSpec:
    """Check a question's `predict` mapping: ask and cases, each of which must yield draws."""
    if not isinstance(raw, dict):
        raise TemplateError("field 'predict' must be a mapping with ask and cases")
    ask = raw.get("ask")
    if ask not in ASKS:
        raise TemplateError(f"field 'predict.ask' must be one of {', '.join(ASKS)}, got {ask!r}")
    raw_cases = raw.get("cases")
    if not isinstance(raw_cases, list) or not raw_cases:
        raise TemplateError("field 'predict.cases' must list {collective, algorithm, ranks}")
    cases = []
    for i, rc in enumerate(raw_cases, start=1):
        where = f"predict.cases[{i}]"
        case = _case(rc, where)
        _check_case(case, ask, where)
        cases.append(case)
    extra = set(raw) - {"ask", "cases"}
    if extra:
        raise TemplateError(f"field 'predict': unknown keys {sorted(extra)}")
    return PredictSpec(ask, tuple(cases))


def _case(rc, where: str) -> Case:
    """Read one case mapping: collective, algorithm, ranks, and optional root, ranks_per_node."""
    if not isinstance(rc, dict):
        raise TemplateError(f"field '{where}' must be a mapping")
    extra = set(rc) - CASE_KEYS
    if extra:
        raise TemplateError(f"field '{where}': unknown keys {sorted(extra)}")
    return Case(
        str(rc.get("collective")),
        str(rc.get("algorithm")),
        _int_list(rc.get("ranks"), f"{where}.ranks", 2, MAX_PREDICT_RANKS),
        _int_list(rc.get("root", 0), f"{where}.root", 0, MAX_PREDICT_RANKS - 1),
        _int_list(rc["ranks_per_node"], f"{where}.ranks_per_node", 1, MAX_PREDICT_RANKS)
        if "ranks_per_node" in rc
        else (),
    )


def _check_case(case: Case, ask: str, where: str) -> None:
    """Raise TemplateError unless every shape of `case` runs, fits the page and fits `ask`."""
    known = COLLECTIVES.get(case.collective)  # an unknown one: the engine names it below
    reduces = known is not None and known.reduces
    if ask == "complete" and not reduces:
        raise TemplateError(f"field '{where}': ask 'complete' needs a reducing collective")
    if ask == "holds" and reduces:
        raise TemplateError(f"field '{where}': ask 'holds' is for collectives that copy")
    for shape in shapes(case):
        try:
            trace = trace_for(case.collective, case.algorithm, *shape)
        except CollectiveError as exc:
            raise TemplateError(f"field '{where}': {exc}") from None
        if trace.chunk_count > MAX_PREDICT_CHUNKS:
            raise TemplateError(
                f"field '{where}': {trace.chunk_count} chunks are too many to show "
                f"(at most {MAX_PREDICT_CHUNKS})"
            )
        if not any(targets(trace, ask, k) for k in range(trace.total_steps)):
            raise TemplateError(f"field '{where}': no step of {shape} fits ask {ask!r}")


def shapes(case: Case):
    """Yield every (ranks, root, ranks_per_node) a case may draw."""
    for p in case.ranks:
        for root in case.roots:
            if root >= p:
                continue
            if case.ranks_per_node:
                for g in case.ranks_per_node:
                    if p % g == 0:
                        yield p, root, g
            else:
                yield p, root, None


def targets(trace: Trace, ask: str, step: int) -> list[tuple[int, int | None]]:
    """List the (rank, chunk) a question about step `step` may ask about."""
    s = trace.steps[step]
    if ask in ("sends", "peers"):
        return [(r, None) for r in sorted({t.src for t in s.transfers})]
    if ask == "contributions":
        return sorted({(u.rank, u.chunk) for u in s.updates})
    return [(r, None) for r in sorted({t.dst for t in s.transfers})]


# -- drawing and checking a draw -----------------------------------------------------------------


def draw_predict(spec: PredictSpec, rng: random.Random) -> dict:
    """Draw one predict instance: case, shape, step and the rank (and chunk) asked about."""
    index = rng.randrange(len(spec.cases))
    shape = rng.choice(list(shapes(spec.cases[index])))
    return _draw_at(spec, index, shape, None, rng)


def draw_predict_for(
    spec: PredictSpec,
    rng: random.Random,
    collective: str,
    algorithm: str,
    shape: tuple[int, int, int | None] | None = None,
    step: int | None = None,
) -> dict | None:
    """Draw an instance about (collective, algorithm), at `shape` and `step` when given.

    `shape` is a run's (ranks, root, ranks_per_node) and `step` the index of the step to predict:
    a classroom asks about the run on its screen. None when no case of the question fits.
    """
    fits = []
    for index, case in enumerate(spec.cases):
        if (case.collective, case.algorithm) != (collective, algorithm):
            continue
        for drawn in shapes(case):
            if shape is not None and drawn != shape:
                continue
            trace = trace_for(case.collective, case.algorithm, *drawn)
            if step is None or (step < trace.total_steps and targets(trace, spec.ask, step)):
                fits.append((index, drawn))
    if not fits:
        return None
    index, drawn = rng.choice(fits)
    return _draw_at(spec, index, drawn, step, rng)


def _draw_at(
    spec: PredictSpec, index: int, shape: tuple, step: int | None, rng: random.Random
) -> dict:
    """Draw the step (unless given) and the rank (and chunk) of case `index` at `shape`."""
    case = spec.cases[index]
    ranks, root, rpn = shape
    trace = trace_for(case.collective, case.algorithm, ranks, root, rpn)
    if step is None:
        step = rng.choice([k for k in range(trace.total_steps) if targets(trace, spec.ask, k)])
    rank, chunk = rng.choice(targets(trace, spec.ask, step))
    values = {"case": index, "ranks": ranks, "root": root, "step": step, "rank": rank}
    if rpn is not None:
        values["ranks_per_node"] = rpn
    if chunk is not None:
        values["chunk"] = chunk
    return values


def check_predict(spec: PredictSpec, values) -> str | None:
    """Return None if `values` is a draw `draw_predict` could make, else what is wrong."""
    if not isinstance(values, dict):
        return "params must be an object"
    for key, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int):
            return f"params.{key} must be an integer"
    case_index = values.get("case")
    if case_index is None or not 0 <= case_index < len(spec.cases):
        return "params.case is not a case of this question"
    case = spec.cases[case_index]
    shape = (values.get("ranks"), values.get("root"), values.get("ranks_per_node"))
    if shape not in set(shapes(case)):
        return "params.ranks/root/ranks_per_node are not a shape this question draws"
    expected = (
        {"case", "ranks", "root", "step", "rank"}
        | ({"ranks_per_node"} if case.ranks_per_node else set())
        | ({"chunk"} if spec.ask == "contributions" else set())
    )
    if set(values) != expected:
        return f"params must have exactly the fields {sorted(expected)}"
    trace = trace_for(case.collective, case.algorithm, *shape)
    step = values["step"]
    if not 0 <= step < trace.total_steps:
        return "params.step is out of range"
    if (values["rank"], values.get("chunk")) not in targets(trace, spec.ask, step):
        return "params.rank/chunk are not asked about in this step"
    return None
