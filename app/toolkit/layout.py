"""Check a parallel layout (TP × PP × DP, ZeRO stage) for the course's running case.

The case is docs/course-case.md: a 7B model (L = 32, h = 4096, s = 4096), BF16, Adam in mixed
precision (16 bytes of state per parameter: 2 weights + 2 gradients + 12 optimizer), a global
batch of 1024 sequences, on 16 nodes × 8 H100 80 GB with NVLink 4 and NDR InfiniBand. The
communication numbers come from the parallelism_3d calculator; memory counts model states only
(activations come on top, which is why the rubric asks for room to spare). Labels and details
come in `lang` (the UI catalog); the calculator's own interpretation is its own text.
"""

from __future__ import annotations

from app.costs import CostError
from app.costs.calculators import CALCULATORS
from app.costs.calculators.step_plan import FLOP_PER_PARAM_TOKEN, state_bytes
from app.i18n import DEFAULT
from app.i18n.catalog import translate

PARAMS = 7e9
LAYERS, HIDDEN, SEQ = 32, 4096, 4096
GLOBAL_BATCH = 1024  # sequences per step; micro-batch 1 sequence
GPUS_PER_NODE, NODES = 8, 16
GPUS = GPUS_PER_NODE * NODES
GPU_MEMORY_BYTES = 80e9
WEIGHT_BYTES = 2  # BF16 weights and gradients; Adam adds 12 (step_plan)
# Compute per step (docs/course-case.md): 6·Ψ·tokens FLOP at 40 % of 989 TFLOP/s per GPU.
FLOP_PER_STEP = FLOP_PER_PARAM_TOKEN * PARAMS * GLOBAL_BATCH * SEQ
COMPUTE_S = FLOP_PER_STEP / (GPUS * 0.4 * 989e12)
LIMITS = {"tp": (1, GPUS), "pp": (1, GPUS), "dp": (1, GPUS), "zero": (0, 3)}


class LayoutError(ValueError):
    """A layout field is missing or out of range; the message names it."""


def read(body: object) -> dict[str, int]:
    """Return the layout's four integers from a JSON object, or raise LayoutError."""
    if not isinstance(body, dict):
        raise LayoutError("body: must be a JSON object with tp, pp, dp and zero")
    unknown = [k for k in body if k not in LIMITS]
    if unknown:
        raise LayoutError(f"unknown field {str(unknown[0])[:40]!r}; allowed: tp, pp, dp, zero")
    out = {}
    for name, (low, high) in LIMITS.items():
        value = body.get(name)
        if type(value) is not int or not low <= value <= high:
            raise LayoutError(
                f"{name}: must be an integer from {low} to {high}, got {str(value)[:40]!r}"
            )
        out[name] = value
    return out


def memory_bytes(tp: int, pp: int, dp: int, zero: int) -> float:
    """Model-state bytes per GPU: the GPU's share of the model, its state sharded by ZeRO."""
    case = {"params": PARAMS, "dtype_bytes": WEIGHT_BYTES, "tp": tp, "pp": pp, "dp": dp}
    return state_bytes({**case, "zero_stage": zero})  # the step-budget calculator's count


def communication(tp: int, pp: int, dp: int) -> dict:
    """Run the parallelism_3d calculator on the case with this layout."""
    result = CALCULATORS["parallelism_3d"](
        layers=LAYERS,
        hidden=HIDDEN,
        seq=SEQ,
        micro_batch=1,
        micro_batches=GLOBAL_BATCH // dp,
        dtype_bytes=WEIGHT_BYTES,
        params=PARAMS,
        tp=tp,
        pp=pp,
        dp=dp,
        gpus_per_node=GPUS_PER_NODE,
        hardware="ib_ndr",
        intra_hardware="nvlink4",
    )
    outputs = {o.key: o.value for o in result.outputs}
    return {"outputs": outputs, "interpretation": result.interpretation}


def _criterion(key: str, label: str, ok: bool, detail: str) -> dict:
    return {"id": key, "label": label, "ok": ok, "detail": detail}


def _shape_criteria(tp: int, pp: int, dp: int, lang: str) -> list[dict]:
    """The layout's shape: all GPUs used, TP inside a node, PP over layers, DP over the batch."""
    gpus = tp * pp * dp
    if pp > 1:
        stages = translate(lang, "32 layers over %(pp)s stages", pp=pp)
    else:
        stages = translate(lang, "32 layers over %(pp)s stage", pp=pp)
    if GLOBAL_BATCH % dp == 0:
        batch = translate(lang, "1024 / %(dp)s = %(n)s per replica", dp=dp, n=GLOBAL_BATCH // dp)
    else:
        batch = translate(lang, "1024 / %(dp)s: not whole", dp=dp)
    return [
        _criterion(
            "gpus",
            translate(lang, "TP × PP × DP uses all 128 GPUs"),
            gpus == GPUS,
            f"{tp} × {pp} × {dp} = {gpus}",
        ),
        _criterion(
            "tp_in_node",
            translate(lang, "The TP group fits inside one node (NVLink)"),
            tp <= GPUS_PER_NODE and GPUS_PER_NODE % tp == 0,
            translate(lang, "tp = %(tp)s; a node has %(n)s GPUs", tp=tp, n=GPUS_PER_NODE),
        ),
        _criterion(
            "pp_layers", translate(lang, "PP divides the 32 layers"), LAYERS % pp == 0, stages
        ),
        _criterion(
            "batch",
            translate(lang, "DP divides the global batch of 1024 sequences"),
            GLOBAL_BATCH % dp == 0,
            batch,
        ),
    ]


def check(layout: dict[str, int], lang: str = DEFAULT) -> dict:
    """Check each numeric criterion of the rubric and price the layout's communication."""
    tp, pp, dp, zero = layout["tp"], layout["pp"], layout["dp"], layout["zero"]
    memory = memory_bytes(tp, pp, dp, zero)
    criteria = _shape_criteria(tp, pp, dp, lang)
    shape_ok = all(c["ok"] for c in criteria)
    criteria.append(
        _criterion(
            "memory",
            translate(lang, "Model states fit in 80 GB per GPU, with room for activations"),
            memory <= 0.75 * GPU_MEMORY_BYTES,
            translate(
                lang,
                "%(gb)s GB of weights, gradients and optimizer state per GPU (ZeRO-%(zero)s); "
                "keep ≤ 60 GB so activations fit",
                gb=f"{memory / 1e9:.1f}",
                zero=zero,
            ),
        )
    )
    out = {"layout": layout, "criteria": criteria, "memory_gb": memory / 1e9}
    out["compute_s"] = COMPUTE_S
    if not shape_ok:
        return out
    try:
        comm = communication(tp, pp, dp)
    except CostError as exc:  # the calculator's own limits
        out["communication_error"] = str(exc)
        return out
    comm_s = comm["outputs"]["comm_s"]
    if zero == 3:  # a second parameter allgather in backward: 1.5× DP's volume ([ZeRO] § 7)
        comm["interpretation"] += " " + translate(
            lang, "ZeRO-3 adds a parameter allgather: 1.5× the DP bytes."
        )
    out["communication"] = comm
    criteria.append(
        _criterion(
            "comm_vs_compute",
            translate(
                lang, "Communication per step (serial, no overlap) is below compute per step"
            ),
            comm_s < COMPUTE_S,
            translate(
                lang,
                "%(comm)s s of communication against ≈ %(compute)s s of compute",
                comm=f"{comm_s:.3g}",
                compute=f"{COMPUTE_S:.2g}",
            ),
        )
    )
    return out
