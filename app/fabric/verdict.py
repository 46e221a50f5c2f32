"""The race's one sentence: who won, by how much, and why.

It says whether the winner's own time is mostly α (latency-bound) or bytes over links
(bandwidth-bound), then the term that separates it from the runner-up: α (more steps, or
longer paths), or bytes over the busiest links, naming the runner-up's bottleneck link.
Contention on an oversubscribed spine is said where it costs a run at least 5% of its time.
Every sentence is a whole message of the catalog, said in `language` (issue 20).
"""

from __future__ import annotations

import functools

from app.collectives.names import algorithm_name
from app.costs import units
from app.i18n.catalog import translate, translate_text


def _steps(run, _) -> str:
    return _("1 step") if len(run.steps) == 1 else _("%(n)s steps", n=len(run.steps))


def _bottleneck(run, topology, _) -> str:
    return topology.links[run.bottleneck].name if run.bottleneck >= 0 else _("no link")


def verdict(runs, prepared, message_bytes: float, language: str = "en") -> str:
    """Return the sentence for `runs` (Run objects with places) of one race, in `language`."""
    _ = functools.partial(translate, language)

    def name(run) -> str:
        return _(algorithm_name(run.algorithm))

    topology = prepared.topology
    ranked = sorted(runs, key=lambda r: (r.place, r.time_s))
    size = units.size(message_bytes)
    first = ranked[0]
    bound = {"latency": _("latency-bound"), "bandwidth": _("bandwidth-bound")}
    if len(ranked) == 1:
        return _(
            "%(a)s takes %(time)s for %(size)s: %(bound)s, its busiest link %(link)s.",
            a=name(first),
            time=units.seconds(first.time_s),
            size=size,
            bound=bound[first.bound],
            link=_bottleneck(first, topology, _),
        )
    second = ranked[1]
    if second.place == first.place:
        return _(
            "%(a)s and %(b)s tie at %(time)s for %(size)s on %(topology)s.",
            a=name(first),
            b=name(second),
            time=units.seconds(first.time_s),
            size=size,
            topology=translate_text(language, topology.label),
        )
    ratio = second.time_s / first.time_s if first.time_s else float("inf")
    head = _(
        "%(a)s wins in %(time)s, %(ratio)s× faster than %(b)s (%(time_b)s):",
        a=name(first),
        time=units.seconds(first.time_s),
        ratio=f"{ratio:.2f}",
        b=name(second),
        time_b=units.seconds(second.time_s),
    )
    own = _("%(a)s is %(bound)s at %(size)s;", a=name(first), bound=bound[first.bound], size=size)
    why = _why(ranked, topology, name, _)
    return _("%(head)s %(own)s %(why)s.", head=head, own=own, why=why)


def _why(ranked, topology, name, _) -> str:
    """Why the winner beat the runner-up: the term that separates them (α, or bytes over the
    busiest links), and the runs an oversubscribed spine slowed."""
    first, second = ranked[0], ranked[1]
    if second.latency_s - first.latency_s >= second.bandwidth_s - first.bandwidth_s:
        why = _(
            "it wins on latency, paying %(alpha)s of α in %(steps)s against %(alpha_b)s in "
            "%(steps_b)s",
            alpha=units.seconds(first.latency_s),
            steps=_steps(first, _),
            alpha_b=units.seconds(second.latency_s),
            steps_b=_steps(second, _),
        )
    else:
        why = _(
            "it wins on bandwidth: %(b)s's bytes on its busiest links (%(link)s the worst) take "
            "%(time_b)s against %(time)s",
            b=name(second),
            link=_bottleneck(second, topology, _),
            time_b=units.seconds(second.bandwidth_s),
            time=units.seconds(first.bandwidth_s),
        )
    slowed = [name(r) for r in ranked if r.contention]
    if slowed:
        why += _(
            ", with contention on the %(ratio)s oversubscribed spine links slowing %(slowed)s",
            ratio=f"{topology.oversubscription:g}:1",
            slowed=", ".join(slowed),
        )
    return why
