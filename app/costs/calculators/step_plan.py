"""When the data-parallel / ZeRO collectives of a step run, and what the training state costs.

A step of m micro-batches per replica. Forward is 2 of the 6 FLOP per parameter per token and
backward 4 (Kaplan et al. 2020), so forward takes a third of the compute and backward two
thirds. Each collective runs behind the pass it belongs to; only what outlasts that window is
exposed:

- ZeRO-0 (DDP): gradients accumulate locally (`no_sync`) and one allreduce runs behind the
  last micro-batch's backward (PyTorch DDP notes).
- ZeRO-1: the same, as a reduce-scatter, and the updated weights are allgathered behind the
  first micro-batch's forward.
- ZeRO-2: each rank keeps only its shard of the gradients, so it reduce-scatters after every
  micro-batch's backward.
- ZeRO-3: the weights are gathered again for every micro-batch, in forward and in backward,
  and the gradients reduce-scattered every time: 3 passes (the paper's 1.5× DDP) × m.
"""

from __future__ import annotations

from typing import NamedTuple

from app.i18n import N_

from .. import units

FLOP_PER_PARAM_TOKEN = 6  # forward 2, backward 4 (Kaplan et al. 2020)
ADAM_STATE_BYTES = 12  # FP32 master weights and two moments (Rajbhandari et al., ZeRO)
NAMES = {
    0: N_("data (DDP)"),
    1: N_("data (ZeRO-1)"),
    2: N_("data (ZeRO-2)"),
    3: N_("data (ZeRO-3)"),
}
PRETTY = {"allreduce": "allreduce", "reduce_scatter": "reduce-scatter", "allgather": "allgather"}


class Window(NamedTuple):
    """Collectives that run behind one stretch of compute: (collective, runs per step)."""

    phase: str  # what hides them, e.g. "the last micro-batch's backward"
    window_s: float
    calls: tuple[tuple[str, int], ...]


class Exposure(NamedTuple):
    """The DP/ZeRO collectives of a step, set against their windows."""

    name: str
    link: str
    count: int
    sent: float  # bytes per GPU per step
    total_s: float
    exposed_s: float
    how: str
    note: str


class Plan(NamedTuple):
    """The DP/ZeRO collectives of one ZeRO stage and the windows that hide them."""

    stage: int
    windows: tuple[Window, ...]
    note: str

    def collectives(self) -> list[str]:
        """Each collective the plan runs, once."""
        return sorted({name for w in self.windows for name, _ in w.calls})

    def expose(self, priced: dict, link: str, dp: int) -> Exposure:
        """Set each window's collectives (priced: one Cost per collective) against it."""
        name = NAMES[self.stage]
        if dp == 1:
            return Exposure(
                name, N_("none"), 0, 0.0, 0.0, 0.0, "dp = 1: no data parallelism", self.note
            )
        total = exposed = sent = 0.0
        count, parts = 0, []
        for w in self.windows:
            busy = sum(n * priced[c].time_s for c, n in w.calls)
            total += busy
            exposed += max(0.0, busy - w.window_s)
            sent += sum(n * max(priced[c].bytes_per_rank) for c, n in w.calls)
            count += sum(n for _, n in w.calls)
            runs = " + ".join(f"{n} {PRETTY[c]}" for c, n in w.calls)
            parts.append(
                f"{runs} ({units.seconds(busy)}) behind {w.phase} ({units.seconds(w.window_s)})"
            )
        message = units.size(priced[self.collectives()[0]].message_bytes)
        how = f"{name}, {message} over {dp} GPUs: " + "; ".join(parts)
        return Exposure(name, link, count, sent, total, exposed, how, self.note)


def dp_plan(stage: int, m: int, compute_s: float) -> Plan:
    """Return the collectives of ZeRO `stage` over a step of `m` micro-batches per replica."""
    forward, backward = compute_s / 3, 2 * compute_s / 3
    last_backward = ("the last micro-batch's backward", backward / m)
    first_forward = ("the first micro-batch's forward", forward / m)
    if stage == 0:
        return Plan(
            0,
            (Window(*last_backward, (("allreduce", 1),)),),
            N_(
                "DDP accumulates gradients locally (no_sync) and allreduces them once, behind "
                "the last micro-batch's backward (PyTorch DDP notes)."
            ),
        )
    if stage == 1:
        return Plan(
            1,
            (
                Window(*last_backward, (("reduce_scatter", 1),)),
                Window(*first_forward, (("allgather", 1),)),
            ),
            N_(
                "ZeRO-1 reduce-scatters the accumulated gradients behind the last micro-batch's "
                "backward and allgathers the updated weights behind the next step's first "
                "forward."
            ),
        )
    if stage == 2:
        return Plan(
            2,
            (
                Window("backward", backward, (("reduce_scatter", m),)),
                Window(*first_forward, (("allgather", 1),)),
            ),
            N_(
                "ZeRO-2 keeps only its shard of the gradients, so it reduce-scatters after "
                "every micro-batch's backward."
            ),
        )
    return Plan(
        3,
        (
            Window("forward", forward, (("allgather", m),)),
            Window("backward", backward, (("allgather", m), ("reduce_scatter", m))),
        ),
        N_(
            "ZeRO-3 gathers the weights again for every micro-batch, in forward and in "
            "backward, and reduce-scatters the gradients each time: the paper's 1.5× DDP, "
            "times m."
        ),
    )


def state_bytes(values: dict) -> float:
    """Weights, gradients and Adam state per GPU: 2·dtype + 12 bytes per parameter, over tp·pp,
    with ZeRO stage k sharding the optimizer (k ≥ 1), gradients (k ≥ 2), weights (k = 3)."""
    stage, dp = values["zero_stage"], values["dp"]
    weights = values["dtype_bytes"] / (dp if stage >= 3 else 1)
    gradients = values["dtype_bytes"] / (dp if stage >= 2 else 1)
    optimizer = ADAM_STATE_BYTES / (dp if stage >= 1 else 1)
    return values["params"] / (values["tp"] * values["pp"]) * (weights + gradients + optimizer)
