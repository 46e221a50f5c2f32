"""The socket's compact step form (app/web/compact.py) expanded back, as static/js/lab-client.js
expands it: the tests then read the same objects as `POST /api/simulate` gives."""

from __future__ import annotations

OPS = ("copy", "reduce")


def holders(text: str) -> list[int]:
    """Expand "0-3,7" into [0, 1, 2, 3, 7]."""
    out: list[int] = []
    for part in text.split(",") if text else ():
        low, _, high = part.partition("-")
        out.extend(range(int(low), int(high or low) + 1))
    return out


def cell(a: list) -> dict:
    return {"rank": a[0], "chunk": a[1], "holders": holders(a[2]), "values": a[3:]}


def start(payload: dict) -> dict:
    return {**payload, "initial_state": [cell(a) for a in payload["initial_state"]]}


def step(payload: dict, chunks: list[list[int]]) -> dict:
    """Expand a sim_step; `chunks` is its run's `layout.chunks` (a transfer moves a chunk)."""
    flat = payload["transfers"]
    transfers = [
        {
            "src": flat[i],
            "dst": flat[i + 1],
            "chunk": flat[i + 2],
            "elements": chunks[flat[i + 2]][1] - chunks[flat[i + 2]][0],
            "op": OPS[flat[i + 3]],
        }
        for i in range(0, len(flat), 4)
    ]
    return {**payload, "transfers": transfers, "state": [cell(a) for a in payload["state"]]}


def events(received: list[dict]) -> list[dict]:
    """Expand the sim_start and sim_step payloads of a test client's `get_received()` list."""
    chunks: dict[str, list] = {}
    out = []
    for e in received:
        name, args = e["name"], e["args"]
        if name == "sim_start":
            chunks[args[0]["run_id"]] = args[0]["layout"]["chunks"]
            args = [start(args[0])]
        elif name == "sim_step":
            args = [step(args[0], chunks[args[0]["run_id"]])]
        out.append({**e, "args": args})
    return out
