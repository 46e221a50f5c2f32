"""The race's one sentence: who won, by how much, and why.

It says whether the winner's own time is mostly α (latency-bound) or bytes over links
(bandwidth-bound), then the term that separates it from the runner-up: α (more steps, or
longer paths), or bytes over the busiest links, naming the runner-up's bottleneck link.
Contention on an oversubscribed spine is said where it costs a run at least 5% of its time.
"""

from __future__ import annotations

from app.costs import units


def _steps(run) -> str:
    return f"{len(run.steps)} step{'s' if len(run.steps) != 1 else ''}"


def _bottleneck(run, topology) -> str:
    return topology.links[run.bottleneck].name if run.bottleneck >= 0 else "no link"


def verdict(runs, prepared, message_bytes: float) -> str:
    """Return the sentence for `runs` (Run objects with places) of one race."""
    topology = prepared.topology
    ranked = sorted(runs, key=lambda r: (r.place, r.time_s))
    size = units.size(message_bytes)
    first = ranked[0]
    if len(ranked) == 1:
        return (
            f"{first.algorithm} takes {units.seconds(first.time_s)} for {size}: "
            f"{first.bound}-bound, its busiest link {_bottleneck(first, topology)}."
        )
    second = ranked[1]
    if second.place == first.place:
        return (
            f"{first.algorithm} and {second.algorithm} tie at {units.seconds(first.time_s)} "
            f"for {size} on {topology.label}."
        )
    ratio = second.time_s / first.time_s if first.time_s else float("inf")
    head = (
        f"{first.algorithm} wins in {units.seconds(first.time_s)}, {ratio:.2f}× faster than "
        f"{second.algorithm} ({units.seconds(second.time_s)}): "
    )
    own = f"{first.algorithm} is {first.bound}-bound at {size}; "
    if second.latency_s - first.latency_s >= second.bandwidth_s - first.bandwidth_s:
        why = own + (
            f"it wins on latency, paying {units.seconds(first.latency_s)} of α in "
            f"{_steps(first)} against {units.seconds(second.latency_s)} in {_steps(second)}"
        )
    else:
        why = own + (
            f"it wins on bandwidth: {second.algorithm}'s bytes on its busiest links "
            f"({_bottleneck(second, topology)} the worst) take "
            f"{units.seconds(second.bandwidth_s)} against {units.seconds(first.bandwidth_s)}"
        )
    slowed = [r.algorithm for r in ranked if r.contention]
    if slowed:
        ratio_text = f"{topology.oversubscription:g}:1"
        why += (
            f", with contention on the {ratio_text} oversubscribed spine links slowing "
            f"{', '.join(slowed)}"
        )
    return head + why + "."
