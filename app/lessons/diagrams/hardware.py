"""Hardware diagrams: nodes of GPUs on network rails, and the inside of one DGX-like server."""

from __future__ import annotations

from .base import Diagram, DiagramError, Params
from .canvas import Canvas, chunk_color, text_color_on

# hierarchical: GPU boxes in a row inside each node box, node boxes stacked.
GPU_W, GPU_H, GPU_GAP, BOX_PAD = 44, 34, 12, 14
BOX_H, BOX_GAP = GPU_H + 26, 36
BOX_X, BOX_TOP = 70, 16

# node: the server's layers from top to bottom, and its side margin and room per GPU.
MARGIN, SLOT = 30, 64
Y_SWITCH, Y_GPU, Y_PCIE, Y_NIC, Y_CPU = 30, 110, 200, 280, 360


def hierarchical(params: Params, uid: str) -> Diagram:
    """Nodes of GPUs joined by NVLink inside, and by one network rail per local GPU index."""
    nodes = params.integer("nodes", 4, 1, 8)
    gpus = params.integer("gpus", 4, 1, 8)
    params.finish()
    # Nodes are stacked, GPUs in a row inside each: rail i is then the vertical line of GPU i.
    box_w = BOX_PAD * 2 + gpus * GPU_W + (gpus - 1) * GPU_GAP
    _ = params.translate
    c = Canvas(uid)
    for n in range(nodes):
        _draw_node_box(c, n, nodes, gpus, box_w, _("node %(n)s", n=n))
    width = BOX_X + box_w + 20
    height = BOX_TOP + nodes * BOX_H + (nodes - 1) * BOX_GAP + 16
    p = nodes * gpus
    title = _(
        "%(nodes)s of %(gpus)s (%(p)s ranks)",
        nodes=_("%(n)s nodes", n=nodes) if nodes > 1 else _("1 node"),
        gpus=_("%(n)s GPUs", n=gpus) if gpus > 1 else _("1 GPU"),
        p=p,
    )
    desc = _(
        "%(title)s. Inside each node the GPUs share NVLink (the solid line through them).",
        title=title,
    )
    if nodes > 1:
        desc += " " + _(
            "Between nodes, dashed network rails join the GPUs with the same local index: "
            "%(gpus)s rails of %(nodes)s GPUs each.",
            gpus=gpus,
            nodes=nodes,
        )
    caption = _(
        "%(nodes)s × %(gpus)s GPUs. Solid: NVLink inside a node; dashed: the network, one rail "
        "per local GPU index. A GPU's colour is the shard it owns, as chunks are coloured in the "
        "lab: hierarchical allreduce reduce-scatters inside each node, allreduces shard i (M/g "
        "bytes) across nodes on rail i, then allgathers inside each node.",
        nodes=nodes,
        gpus=gpus,
    )
    return Diagram(c.svg(width, height, title, desc, "hierarchical"), caption)


def _draw_node_box(c: Canvas, n: int, nodes: int, gpus: int, box_w: float, name: str) -> None:
    """Draw node n: its box, its NVLink, its GPUs, and each GPU's rail down to the next node."""
    y0 = BOX_TOP + n * (BOX_H + BOX_GAP)
    c.rect(BOX_X, y0, box_w, BOX_H, cls="dg-box dg-node-box", rx=8)
    c.text(BOX_X - 10, y0 + BOX_H / 2, name, size=12, anchor="end", weight="bold")
    mid = y0 + BOX_H / 2
    if gpus > 1:
        c.line(
            BOX_X + BOX_PAD + GPU_W / 2,
            mid,
            BOX_X + box_w - BOX_PAD - GPU_W / 2,
            mid,
            cls="dg-link dg-nvlink",
            width=5,
        )
    for g in range(gpus):
        gx = BOX_X + BOX_PAD + g * (GPU_W + GPU_GAP)
        c.rect(gx, mid - GPU_H / 2, GPU_W, GPU_H, fill=chunk_color(g), cls="dg-gpu")
        c.text(gx + GPU_W / 2, mid, f"r{n * gpus + g}", size=12, fill=text_color_on(chunk_color(g)))
        if n + 1 < nodes:
            below = BOX_TOP + (n + 1) * (BOX_H + BOX_GAP) + BOX_H / 2 - GPU_H / 2
            c.line(
                gx + GPU_W / 2,
                mid + GPU_H / 2,
                gx + GPU_W / 2,
                below,
                color=chunk_color(g),
                width=2.5,
                dash="5 3",
            )


def node(params: Params, uid: str) -> Diagram:
    """One DGX-like server: GPUs, NVSwitch, PCIe switches, NICs and CPUs, and their links."""
    gpus = params.integer("gpus", 8, 1, 16)
    nics = params.integer("nics", 8, 0, 16)
    nvswitch = params.flag("nvswitch", True)
    switches = params.integer("pcie", 4, 1, 8)
    cpus = params.integer("cpus", 2, 1, 2)
    params.finish()
    if switches > gpus:
        raise DiagramError(f"node: pcie ({switches}) cannot exceed gpus ({gpus})")

    _ = params.translate
    width = MARGIN * 2 + gpus * SLOT
    c = Canvas(uid)
    _draw_gpus(c, width, gpus, switches, nvswitch, _)
    # NICs hang under their PCIe switch, leaving a gap for the switch's link down to its CPU.
    groups: list[list[int]] = [[] for _ in range(switches)]
    for n in range(nics):
        groups[n * switches // nics].append(n)
    for s in range(switches):
        _draw_pcie_switch(c, width, s, switches, groups[s], cpus, _("PCIe switch"))
    _draw_cpus(c, width, cpus, _("CPU link"))
    height = Y_CPU + 40
    if nics:
        c.text(MARGIN, Y_NIC + 34, _("↓ network"), size=10, anchor="start", cls="dg-text dg-muted")
    title, desc, caption = _node_words(gpus, nics, nvswitch, switches, cpus, _)
    return Diagram(c.svg(width, height, title, desc, "node"), caption)


def _x_of(i: int, count: int, width: float) -> float:
    """Return the centre of slot i of `count` equal slots across the server."""
    return MARGIN + (i + 0.5) * (width - 2 * MARGIN) / count


def _draw_gpus(c: Canvas, width: float, gpus: int, switches: int, nvswitch: bool, _) -> None:
    """Draw the NVSwitch (if any), the GPUs on it, and each GPU's PCIe link to its switch."""
    if nvswitch:
        c.rect(MARGIN, Y_SWITCH - 16, width - 2 * MARGIN, 32, cls="dg-box dg-switch", rx=6)
        label = _("NVSwitch: every GPU to every GPU over NVLink") if gpus >= 6 else "NVSwitch"
        c.text(width / 2, Y_SWITCH, label, size=12)
    for g in range(gpus):
        gx = _x_of(g, gpus, width)
        if nvswitch:
            c.line(gx, Y_SWITCH + 16, gx, Y_GPU - 18, cls="dg-link dg-nvlink", width=5)
        c.rect(gx - 24, Y_GPU - 18, 48, 36, fill=chunk_color(4), cls="dg-gpu")
        c.text(gx, Y_GPU, f"GPU{g}", size=11, fill=text_color_on(chunk_color(4)))
        sw = g * switches // gpus
        c.line(gx, Y_GPU + 18, _x_of(sw, switches, width), Y_PCIE - 14, cls="dg-link dg-pcie")


def _draw_pcie_switch(c: Canvas, width: float, s: int, switches: int, members, cpus: int, name):
    """Draw PCIe switch s with its NICs below it and its link down to its CPU."""
    sx = _x_of(s, switches, width)
    lane = sx if len(members) % 2 == 0 else sx + 30
    for k, n in enumerate(members):
        nx = sx + (k - (len(members) - 1) / 2) * 60
        c.line(sx, Y_PCIE + 14, nx, Y_NIC - 12, cls="dg-link dg-pcie")
        c.rect(nx - 22, Y_NIC - 12, 44, 24, fill=chunk_color(1), cls="dg-nic")
        c.text(nx, Y_NIC, f"NIC{n}", size=10, fill=text_color_on(chunk_color(1)))
        c.line(nx, Y_NIC + 12, nx, Y_NIC + 26, cls="dg-link dg-net", dash="3 2", arrow=True)
    cpu = s * cpus // switches
    c.add(
        f'<path d="M{sx:.1f},{Y_PCIE + 14} L{lane:.1f},{Y_NIC} L{lane:.1f},{Y_NIC + 24} '
        f'L{_x_of(cpu, cpus, width):.1f},{Y_CPU - 16}" class="dg-link dg-pcie"/>'
    )
    c.rect(sx - 40, Y_PCIE - 14, 80, 28, cls="dg-box dg-switch", rx=5)
    c.text(sx, Y_PCIE, name, size=11)


def _draw_cpus(c: Canvas, width: float, cpus: int, link: str) -> None:
    """Draw the CPU sockets, and the link between two of them."""
    for k in range(cpus):
        kx = _x_of(k, cpus, width)
        c.rect(kx - 60, Y_CPU - 16, 120, 32, cls="dg-box dg-cpu", rx=6)
        c.text(kx, Y_CPU, f"CPU{k}", size=12, weight="bold")
    if cpus == 2:
        c.line(
            _x_of(0, 2, width) + 60,
            Y_CPU,
            _x_of(1, 2, width) - 60,
            Y_CPU,
            cls="dg-link dg-pcie",
            dash="2 3",
        )
        c.text(width / 2, Y_CPU - 12, link, size=10, cls="dg-text dg-muted")


def _node_words(gpus: int, nics: int, nvswitch: bool, switches: int, cpus: int, _):
    """Return the title, description and caption of a server."""
    title = _(
        "A server with %(gpus)s GPUs, %(nics)s NICs and %(switches)s PCIe switches",
        gpus=gpus,
        nics=nics,
        switches=switches,
    )
    if nvswitch:
        links = _("An NVSwitch connects every GPU to every other over NVLink.")
    else:
        links = _(
            "There is no NVLink: GPU-to-GPU traffic crosses the PCIe switches, and between "
            "sockets the CPU link."
        )
    if nics:
        serves = _(
            "Each PCIe switch serves %(gpus)s GPU(s) and about %(nics)s NIC(s), so a GPU "
            "reaches the network through the NIC beside it (GPUDirect RDMA).",
            gpus=gpus // switches or 1,
            nics=max(1, nics // switches),
        )
    else:
        serves = _("Each PCIe switch serves %(gpus)s GPU(s).", gpus=gpus // switches or 1)
    sockets = _("%(cpus)s CPU socket(s) sit below the PCIe switches.", cpus=cpus)
    desc = " ".join((f"{title}.", links, serves, sockets))
    caption = _("A DGX-like server. Thick: NVLink; thin: PCIe; dashed: network.") + " "
    if nvswitch:
        caption += _("Every GPU pair has the full NVLink bandwidth through the NVSwitch.")
    else:
        caption += _("Without NVLink, GPU pairs under different CPUs cross the CPU link.")
    return title, desc, caption
