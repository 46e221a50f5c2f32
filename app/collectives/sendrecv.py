"""Point-to-point send/recv along a pipeline: activations flowing through p stages.

This is the forward pass of pipeline parallelism with GPipe's fill/drain schedule (Huang et al.
2019): stage 0 holds a batch cut into m micro-batches (chunk i = micro-batch i) and injects one
per step; every other stage forwards the micro-batch it received in the previous step to the next
stage. Micro-batch i crosses the link s → s+1 in step i + s, so the run takes (p-1) + (m-1)
steps and every stage but the last sends all of M = elements · itemsize.

m = p micro-batches, or `elements` when there are fewer elements than stages (a micro-batch of
no data would cost a step and move nothing).
"""

from __future__ import annotations

from ..i18n import N_
from .machine import Machine
from .registry import algorithm


def micro_batches(ranks: int, elements: int) -> int:
    """Return the micro-batch count: one per stage, but never an empty one."""
    return max(1, min(ranks, elements))


def _phase(step: int, ranks: int, batches: int) -> str:
    """Name the pipeline phase of `step`: filling, full, or draining after the last injection."""
    if step >= batches:
        front = max(0, step - (ranks - 2))  # the micro-batch furthest down the pipeline
        stage = step - front + 1
        where = "the last stage" if stage == ranks - 1 else f"stage {stage}"
        return f"drain: micro-batch {front} reaches {where}"
    # The pipeline is full once the last link, (p-2) → (p-1), carries a micro-batch.
    state = "steady" if step >= ranks - 2 else "fill"
    return f"{state}: micro-batch {step} enters"


@algorithm(
    "sendrecv",
    "pipeline",
    N_(
        "Micro-batches flow stage to stage (GPipe fill/drain): (p-1)+(m-1) steps; "
        "each stage sends M."
    ),
    parts=micro_batches,
)
def pipeline(m: Machine) -> None:
    p, batches = m.ranks, len(m.chunks)
    m.topology = {"kind": "chain", "order": list(range(p))}
    steps = (p - 1) + (batches - 1) if p > 1 else 0  # one stage has nobody to send to
    for step in range(steps):
        with m.step(_phase(step, p, batches)):
            for stage in range(max(0, step - batches + 1), min(p - 2, step) + 1):
                m.send(stage, stage + 1, step - stage)
