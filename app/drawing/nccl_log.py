"""The picture of what NCCL built, from a log's reading (app/reading/nccl_log.py).

Ranks sit in one box per host the log names (ranks whose host it never names share a dashed
box); each channel gets its ring's hops and its tree's parent -> child links as curved arrows,
one CSS class per transport (templates/nccl_log/_drawing.html, static/css/nccl-log.css). A
curve bends to the left of its direction, so a -> b and b -> a stay two arrows.
"""

from __future__ import annotations

import math

from app.i18n import N_
from app.i18n.catalog import translate

MAX_RANKS = 128  # past this a picture is a blur; the page says so and keeps the tables
MAX_CHANNELS = 64
STEP, R, PAD, LABEL, GAP, WIDTH = 46, 14, 14, 18, 18, 900
MAX_COLS = 8
CHAR_W = 7.0  # a label's width per character at 12px
KIND_CLASS = {
    "P2P/IPC": "p2p-ipc",
    "P2P/direct": "p2p-direct",
    "SHM": "shm",
    "NET/IB": "net-ib",
    "NET/Socket": "net-socket",
    "COLLNET": "collnet",
}
UNKNOWN = N_("not in the log")


def kind_class(kind: str) -> str:
    """Return the CSS class suffix of a transport group (other networks share one)."""
    if kind in KIND_CLASS:
        return KIND_CLASS[kind]
    return "net-other" if kind.startswith("NET/") else "unknown"


def _groups(reading: dict) -> list[tuple[str | None, list[int]]]:
    """Return (host, ranks) per box; ranks no host names go last under None."""
    placed: set[int] = set()
    groups = []
    for node in reading["nodes"]:
        ranks = [r for r in node["ranks"] if r not in placed]
        placed.update(ranks)
        if ranks:
            groups.append((node["host"], ranks))
    rest = [r for r in reading["ranks_seen"] if r not in placed]
    if rest:
        groups.append((None, rest))
    return groups


def _boxes(groups, lang: str = "en") -> tuple[list[dict], dict[int, tuple[float, float]], float]:
    """Lay the boxes out left to right, wrapping at WIDTH; return boxes, rank centres, height."""
    boxes, pos = [], {}
    x, y, row_h = GAP, GAP + LABEL, 0.0
    for host, ranks in groups:
        cols = min(MAX_COLS, len(ranks))
        w, h = (
            cols * STEP + 2 * PAD - (STEP - 2 * R),
            math.ceil(len(ranks) / cols) * STEP + 2 * PAD - (STEP - 2 * R),
        )
        if not host:
            label = translate(lang, "host not named in the log")
        elif len(ranks) == 1:
            label = translate(lang, "%(host)s (1 rank)", host=host)
        else:
            label = translate(lang, "%(host)s (%(n)s ranks)", host=host, n=len(ranks))
        w = max(w, _width(label))  # the label above a box stays within its width
        if x + w > WIDTH and x > GAP:
            x, y, row_h = GAP, y + row_h + GAP + LABEL, 0.0
        boxes.append({"x": x, "y": y, "w": w, "h": h, "label": label, "named": host is not None})
        for i, rank in enumerate(ranks):
            pos[rank] = (x + PAD + R + (i % cols) * STEP, y + PAD + R + (i // cols) * STEP)
        x += w + GAP
        row_h = max(row_h, h)
    return boxes, pos, y + row_h + GAP


def _arrow(pos, src: int, dst: int, kind: str, label: str) -> dict | None:
    """Return a curved arrow from rank src to rank dst (None if either is not drawn)."""
    if src not in pos or dst not in pos or src == dst:
        return None
    (x1, y1), (x2, y2) = pos[src], pos[dst]
    dx, dy = x2 - x1, y2 - y1
    d = math.hypot(dx, dy)
    ux, uy = dx / d, dy / d
    bend = min(0.25 * d, 40.0)
    cx, cy = (x1 + x2) / 2 + uy * bend, (y1 + y2) / 2 - ux * bend
    # Start and end on the discs' rims, heading for the control point.
    sx, sy = _toward(x1, y1, cx, cy, R)
    ex, ey = _toward(x2, y2, cx, cy, R + 2)
    path = f"M{sx:.1f},{sy:.1f} Q{cx:.1f},{cy:.1f} {ex:.1f},{ey:.1f}"
    return {
        "src": src,
        "dst": dst,
        "kind": kind,
        "cls": kind_class(kind),
        "label": label,
        "d": path,
    }


def _toward(x: float, y: float, tx: float, ty: float, r: float) -> tuple[float, float]:
    d = math.hypot(tx - x, ty - y) or 1.0
    return x + (tx - x) / d * r, y + (ty - y) / d * r


def _transport(reading: dict, channel: dict | None, src: int, dst: int) -> tuple[str, str]:
    """Return (group, label) of the connection src -> dst: this channel's, else any channel's."""
    pools = [channel["edges"]] if channel else []
    pools.append([e for c in reading["channels"] for e in c["edges"]])
    for pool in pools:
        for e in pool:
            if e["src"] == src and e["dst"] == dst:
                return e["kind"], e["transport"]
    return UNKNOWN, UNKNOWN


def _said(label: str, lang: str) -> str:
    """A transport's label as the page says it: "not in the log" in `lang`, names as they are."""
    return translate(lang, UNKNOWN) if label == UNKNOWN else label


def _width(label: str) -> float:
    """A label's width at 12px: a Chinese character takes about two Latin ones."""
    return sum(2 if ord(ch) >= 0x2E80 else 1 for ch in label) * CHAR_W


def _ring_view(reading: dict, channel: dict, pos, lang: str = "en") -> dict:
    """Return one channel's ring arrows and the sentence that says them."""
    order, arrows, hops = channel["ring"], [], []
    if order:
        hops = list(zip(order, order[1:] + order[:1], strict=True)) if len(order) > 1 else []
    else:
        hops = [(e["src"], e["dst"]) for e in channel["edges"]]
        hops += [tuple(link) for link in channel["ring_links"] if tuple(link) not in hops]
    for src, dst in hops:
        kind, label = _transport(reading, channel, src, dst)
        if arrow := _arrow(pos, src, dst, kind, _said(label, lang)):
            arrows.append(arrow)
    c = channel["channel"]
    if order:
        crossing = next(
            (x["count"] for x in reading["crossings"]["per_channel"] if x["channel"] == c), None
        )
        ring = " → ".join(map(str, order + order[:1]))
        text = translate(lang, "Channel %(channel)s's ring: %(ring)s.", channel=c, ring=ring)
        if crossing == 1:
            text += translate(lang, " It crosses the network 1 time.")
        elif crossing is not None:
            text += translate(lang, " It crosses the network %(n)s times.", n=crossing)
    else:
        shown = ", ".join(f"{a} → {b}" for a, b in hops[:16]) + (" …" if len(hops) > 16 else "")
        text = translate(
            lang,
            "Channel %(channel)s: %(n)s connections in the log, not its whole ring: %(hops)s.",
            channel=c,
            n=len(hops),
            hops=shown,
        )
    return {"arrows": arrows, "text": text, "order": order or []}


def _tree_view(reading: dict, tree: dict, pos, lang: str = "en") -> dict:
    """Return one channel's tree arrows (parent -> child) and its sentence."""
    arrows = []
    for e in tree["edges"]:
        kind, label = _transport(reading, None, e["parent"], e["child"])
        if kind == UNKNOWN:
            kind, label = _transport(reading, None, e["child"], e["parent"])
        if arrow := _arrow(pos, e["parent"], e["child"], kind, _said(label, lang)):
            arrows.append(arrow)
    links = ", ".join(f"{e['parent']} → {e['child']}" for e in tree["edges"][:24])
    roots = ", ".join(map(str, tree["roots"])) or translate(lang, UNKNOWN)
    text = translate(
        lang,
        "Channel %(channel)s's tree (parent → child): root %(roots)s; %(links)s.",
        channel=tree["channel"],
        roots=roots,
        links=links or translate(lang, "no links"),
    )
    return {"arrows": arrows, "text": text}


def picture(reading: dict, lang: str = "en") -> dict:
    """Return the drawing's data: boxes, discs, and per channel its ring and tree views, their
    words in `lang`."""
    if len(reading["ranks_seen"]) > MAX_RANKS:
        return {"too_many": len(reading["ranks_seen"]), "max_ranks": MAX_RANKS}
    boxes, pos, height = _boxes(_groups(reading), lang)
    width = max([b["x"] + b["w"] for b in boxes], default=WIDTH) + GAP
    discs = [{"rank": r, "x": x, "y": y} for r, (x, y) in sorted(pos.items())]
    channels: dict[int, dict] = {}
    for channel in reading["channels"][:MAX_CHANNELS]:
        channels.setdefault(channel["channel"], {})["ring"] = _ring_view(
            reading, channel, pos, lang
        )
    for tree in reading["trees"][:MAX_CHANNELS]:
        channels.setdefault(tree["channel"], {})["tree"] = _tree_view(reading, tree, pos, lang)
    views = [{"channel": c, **v} for c, v in sorted(channels.items())]
    kinds = sorted(
        {
            a["kind"]
            for v in views
            for part in ("ring", "tree")
            if part in v
            for a in v[part]["arrows"]
        }
    )
    legend = [{"kind": _said(k, lang), "cls": kind_class(k)} for k in kinds]
    return {
        "view_box": f"0 0 {width:.0f} {height:.0f}",
        "r": R,
        "boxes": boxes,
        "discs": discs,
        "channels": views,
        "legend": legend,
    }
