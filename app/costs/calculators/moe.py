"""MoE all-to-all: bytes and time of the token dispatch and combine per MoE layer.

Each GPU sends its tokens' hidden vectors to the GPUs holding their top-k experts (dispatch)
and gets the expert outputs back (combine). With a capacity factor c, every expert's buffer
holds c·T·k/E slots and the all-to-all moves the padded buffers, c·T·k·h·s bytes per GPU;
tokens over capacity at the busiest expert are dropped. Without capacity (dropless, c = 0)
the busiest GPU's load, imbalance × the mean, sets the time. Forward has a dispatch and a
combine, backward two more: 4 all-to-alls per MoE layer per step (REFERENCE § 6 Q38).
"""

from __future__ import annotations

from typing import NamedTuple

from app.i18n import N_, sentences

from .. import units
from ..model import Cost, cost
from .fields import FLOAT, INT, Field, link_fields, link_inputs, within_one_message
from .registry import calculator
from .result import BYTES, PERCENT, TIME, Output, Result, stacked_chart, table

FIELDS = (
    Field(
        "tokens",
        N_("Tokens per GPU per micro-batch"),
        INT,
        8192,
        low=1,
        high=1 << 26,
        scale="log2",
        help=N_("T = micro-batch × sequence length on one GPU."),
    ),
    Field("hidden", N_("Hidden size h"), INT, 4096, low=1, high=1 << 20, scale="log2"),
    Field("top_k", N_("Experts per token k"), INT, 2, low=1, high=64),
    Field(
        "capacity_factor",
        N_("Capacity factor c"),
        FLOAT,
        1.25,
        low=0,
        high=64,
        help=N_("Slots per expert = c·T·k/E; 0 means dropless (no padding, no drops)."),
    ),
    Field(
        "imbalance",
        N_("Load imbalance"),
        FLOAT,
        1.0,
        low=1,
        high=1e4,
        help=N_("Tokens routed to the busiest expert ÷ the mean."),
    ),
    Field("ep", N_("Expert-parallel GPUs"), INT, 16, low=1, high=1 << 16, scale="log2"),
    Field("dtype_bytes", N_("Bytes per activation"), INT, 2, low=1, high=8),
    Field("moe_layers", N_("MoE layers"), INT, 16, low=1, high=10000),
    Field("micro_batches", N_("Micro-batches per step"), INT, 1, low=1, high=100000),
    *link_fields("ib_ndr"),
)

PASSES = (
    N_("dispatch (forward)"),
    N_("combine (forward)"),
    N_("combine gradient (backward)"),
    N_("dispatch gradient (backward)"),
)


@calculator(
    "moe",
    N_("MoE: what do the all-to-alls cost?"),
    N_("Dispatch and combine bytes and time per MoE layer and per step."),
    FIELDS,
    sizes=units.DECIMAL,
)
def moe(**values) -> Result:
    """Return the bytes and time of one all-to-all and of all four per layer and per step."""
    buffer = _buffer(values)
    one = cost(
        "all_to_all",
        "pairwise",
        ranks=values["ep"],
        message_bytes=buffer.bytes,
        **link_inputs(values),
    )
    sent = max(one.bytes_per_rank)
    per_layer = 4 * one.time_s
    per_step = per_layer * values["moe_layers"] * values["micro_batches"]
    return Result(
        calculator="moe",
        inputs=values,
        outputs=(
            Output("buffer_bytes", N_("Buffer per all-to-all per GPU"), buffer.bytes, BYTES),
            Output("sent_bytes", N_("Bytes leaving each GPU"), sent, BYTES),
            Output("all_to_all_s", N_("One all-to-all"), one.time_s, TIME),
            Output("per_layer_s", N_("Per MoE layer (4 all-to-alls)"), per_layer, TIME),
            Output("per_step_s", N_("Per step, all MoE layers"), per_step, TIME),
            Output("dropped_pct", N_("Dropped at the busiest expert"), buffer.dropped_pct, PERCENT),
        ),
        formula="M = c·T·k·h·s (padded) or imbalance·T·k·h·s (dropless); "
        + one.formula
        + "; ×4 per MoE layer per step",
        substituted=(
            f"M = {buffer.sizing} = {units.size(buffer.bytes)}; {one.formula_substituted}"
        ),
        interpretation=_sentence(values, buffer, one, sent, per_layer, per_step),
        table=table(
            [(N_("all-to-all"), "text"), (N_("bytes sent per GPU"), BYTES), (N_("time"), TIME)],
            [[name, sent, one.time_s] for name in PASSES],
        ),
        charts=(
            stacked_chart(
                N_("The four all-to-alls of one MoE layer"),
                list(PASSES),
                {N_("latency"): [one.latency_s] * 4, N_("bandwidth"): [one.bandwidth_s] * 4},
            ),
        ),
        notes=(
            N_(
                "Hierarchical all-to-all mainly cuts message count and latency; cross-node "
                "bytes fall only if tokens bound for several experts on one node are sent once "
                "(see the lesson MoE All-to-All)."
            ),
        ),
    )


class Buffer(NamedTuple):
    """The all-to-all buffer per GPU: its bytes, the tokens dropped, how it was sized."""

    bytes: float
    dropped_pct: float
    sizing: str  # the formula with the numbers in


def _buffer(values: dict) -> Buffer:
    """Size the buffer: padded to capacity, or dropless at the busiest GPU's load."""
    t, h, k, c = values["tokens"], values["hidden"], values["top_k"], values["capacity_factor"]
    s, imbalance = values["dtype_bytes"], values["imbalance"]
    mean_bytes = t * k * h * s
    if c > 0:
        buffer = Buffer(
            c * mean_bytes,
            100 * max(0.0, 1 - c / imbalance),
            f"capacity-padded: c·T·k·h·s = {c:g}·{t}·{k}·{h}·{s}",
        )
    else:
        buffer = Buffer(
            imbalance * mean_bytes,
            0.0,
            f"dropless, busiest GPU: imbalance·T·k·h·s = {imbalance:g}·{t}·{k}·{h}·{s}",
        )
    scale = "capacity_factor" if c > 0 else "imbalance"
    within_one_message(
        buffer.bytes, f"the all-to-all buffer, {scale} × tokens × top_k × hidden × dtype_bytes"
    )
    return buffer


def _sentence(values: dict, buffer: Buffer, one: Cost, sent, per_layer, per_step) -> str:
    """Say what one all-to-all moves, what a layer and a step cost, and what is dropped."""
    c, imbalance = values["capacity_factor"], values["imbalance"]
    count = 4 * values["moe_layers"] * values["micro_batches"]
    moves = N_(
        "Each all-to-all moves a %(buffer)s buffer per GPU, of which %(sent)s leaves the GPU "
        "((ep−1)/ep of it), in %(time)s.",
        buffer=units.size(buffer.bytes),
        sent=units.size(sent),
        time=units.seconds(one.time_s),
    )
    adds = N_(
        "Four per MoE layer (dispatch and combine, forward and backward) make %(layer)s per "
        "layer and %(step)s per step over %(count)s all-to-alls.",
        layer=units.seconds(per_layer),
        step=units.seconds(per_step),
        count=count,
    )
    if buffer.dropped_pct > 0:
        drops = N_(
            "With imbalance %(imbalance)s above capacity %(c)s, %(dropped)s%% of the busiest "
            "expert's tokens are dropped.",
            imbalance=f"{imbalance:g}",
            c=f"{c:g}",
            dropped=f"{buffer.dropped_pct:.3g}",
        )
    else:
        drops = N_("No tokens are dropped.")
    if c > 1:
        return sentences(
            moves, adds, drops, N_("Padding to capacity costs bytes even when routing is balanced.")
        )
    return sentences(moves, adds, drops)
