"""What a predict draw shows and what answers it, read from the engine's trace.

The prompt's names and the buffer figure come from the state before the step; the options,
the right ones and the feedback's words come from the step itself.
"""

from __future__ import annotations

from app.collectives import chunk_label
from app.collectives.trace import ranks_in
from app.i18n import N_
from app.i18n.catalog import translate

from .predict import PredictSpec, instance
from .predict_words import algorithm_name, collective_name, title

PREDICT_NAMES = {
    "collective", "algorithm", "title", "ranks", "root", "step", "done", "total", "rank",
    "chunk", "ranks_per_node",
}  # fmt: skip
NONE = "none"  # the option "no chunk", for asks whose right answer may be no option at all
NONE_LABELS = {"complete": N_("none: no chunk is complete")}


def predict_env(spec: PredictSpec, values: dict, lang: str = "en") -> dict:
    """Return the names a predict prompt may use: title, ranks, step, rank, chunk, root, ...
    (the names of the algorithm and the collective in `lang`)."""
    case, trace = instance(spec, values)
    env = {
        "collective": collective_name(case.collective, lang),
        "algorithm": algorithm_name(case.algorithm, lang),
        "ranks": values["ranks"],
        "root": values["root"],
        "step": values["step"] + 1,  # the step to predict, counted from 1
        "done": values["step"],  # steps already done
        "total": trace.total_steps,
        "rank": values["rank"],
        "chunk": chunk_label(values["chunk"]) if "chunk" in values else "",
        "ranks_per_node": values.get("ranks_per_node", ""),
    }
    env["title"] = title(case.collective, case.algorithm, lang)
    return env


def figure(spec: PredictSpec, values: dict) -> dict:
    """Return the buffer view before the step: contributions per (rank, chunk), last moves."""
    case, trace = instance(spec, values)
    step = values["step"]
    state = trace.holdings_at(step - 1)
    rows = [
        [ranks_in(state.get((r, c), 0)) for c in range(trace.chunk_count)]
        for r in range(trace.ranks)
    ]
    last = []
    if step > 0:
        last = [
            {"src": t.src, "dst": t.dst, "chunk": chunk_label(t.chunk), "op": t.op}
            for t in trace.steps[step - 1].transfers
        ]
    return {
        "collective": case.collective,
        "algorithm": case.algorithm,
        "ranks": trace.ranks,
        "chunks": [chunk_label(c) for c in range(trace.chunk_count)],
        "holdings": rows,
        "steps_done": step,
        "total_steps": trace.total_steps,
        "last_step": last,
        "last_phase": trace.steps[step - 1].phase if step > 0 else None,
        "topology": trace.topology,
        "root": trace.root,
        "ranks_per_node": trace.ranks_per_node,
    }


def predict_options(spec: PredictSpec, values: dict, lang: str = "en") -> list[tuple[str, str]]:
    """Return (id, label) of every option, labelled in `lang`: chunks or ranks, depending on
    the ask.

    A `complete` question's answer is often no chunk (about a third of draws), which a form
    of checkboxes cannot send: it ends with NONE, on every draw so it gives nothing away.
    """
    _, trace = instance(spec, values)
    if spec.ask in ("peers", "contributions"):
        return [
            (f"r{q}", translate(lang, "rank %(rank)s", rank=q))
            for q in range(trace.ranks)
            if not (spec.ask == "peers" and q == values["rank"])
        ]
    chunks = [
        (f"c{c}", translate(lang, "chunk %(chunk)s", chunk=chunk_label(c)))
        for c in range(trace.chunk_count)
    ]
    none = [(NONE, translate(lang, NONE_LABELS[spec.ask]))] if spec.ask in NONE_LABELS else []
    return chunks + none


def predict_truth(spec: PredictSpec, values: dict) -> frozenset[str]:
    """Return the option ids that are right, read from the engine's trace."""
    _, trace = instance(spec, values)
    step, rank = values["step"], values["rank"]
    moves = trace.steps[step].transfers
    if spec.ask == "sends":
        return frozenset(f"c{t.chunk}" for t in moves if t.src == rank)
    if spec.ask == "peers":
        return frozenset(f"r{t.dst}" for t in moves if t.src == rank)
    after = trace.holdings_at(step)
    if spec.ask == "contributions":
        return frozenset(f"r{q}" for q in ranks_in(after.get((rank, values["chunk"]), 0)))
    full = (1 << trace.ranks) - 1
    return frozenset(
        f"c{c}"
        for c in range(trace.chunk_count)
        if (after.get((rank, c), 0) == full if spec.ask == "complete" else after.get((rank, c), 0))
    )


def describe_step(spec: PredictSpec, values: dict, lang: str = "en") -> list[str]:
    """Say in words (in `lang`) what rank `rank` does in the step, from the trace (feedback)."""
    _, trace = instance(spec, values)
    step, rank = values["step"], values["rank"]
    s = trace.steps[step]
    lines = [
        translate(
            lang,
            "Step %(step)s of %(total)s (%(phase)s):",
            step=step + 1,
            total=trace.total_steps,
            phase=s.phase,
        )
    ]
    moves = {
        "copy": N_(
            "rank %(src)s → rank %(dst)s: chunk %(chunk)s (copied over rank %(dst)s's copy)"
        ),
        "reduce": N_(
            "rank %(src)s → rank %(dst)s: chunk %(chunk)s (reduced into rank %(dst)s's copy)"
        ),
    }
    mine = [t for t in s.transfers if rank in (t.src, t.dst)]
    for t in mine:
        lines.append(translate(lang, moves[t.op], src=t.src, dst=t.dst, chunk=chunk_label(t.chunk)))
    if not mine:
        lines.append(translate(lang, "rank %(rank)s neither sends nor receives.", rank=rank))
    after = trace.holdings_at(step)
    everyone = translate(lang, "all ranks")
    cells = []
    for c in range(trace.chunk_count):
        held = ranks_in(after.get((rank, c), 0))
        shown = everyone if len(held) == trace.ranks > 2 else "+".join(map(str, held)) or "—"
        cells.append(f"{chunk_label(c)}: {shown}")
    separator = translate(lang, ", ")
    lines.append(
        translate(
            lang,
            "After the step, rank %(rank)s holds %(cells)s.",
            rank=rank,
            cells=separator.join(cells),
        )
    )
    return lines
