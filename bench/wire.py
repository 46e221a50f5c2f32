"""Wire: the bytes a whole run puts on the websocket, against the size of its compact trace.

For ring allreduce at 8x64, 64x64 and 64x4096 (ranks x elements):

- compact trace: the run's information as compact binary (`compact_trace`): the chunk table
  once; per step its transfers and the cells it changed, with the holdings as deltas; the
  initial cells; the value previews the lab shows, in the trace's dtype. Narration is not in
  it (it is text the page shows, not the trace); its bytes are printed apart.
- on the websocket: what a real client receives from the `simulate` emit to `sim_done`,
  counted on the TCP stream by a loopback proxy between `python -m app` and the client
  (`CountingProxy`: websocket frame headers included, after the 101 handshake). Two clients:
  headless Chromium on the lab page (Playwright with Debian's chromium, as bench/page.py), so
  permessage-deflate is whatever Chromium and the server negotiate (the proxy reads the offer
  and the answer from the handshake), and python-socketio's client (which offers no deflate).

The target (issue 17): the websocket bytes at most 5x the compact trace.
"""

from __future__ import annotations

import argparse
import re
import socket
import struct
import sys
import threading
import time

from .common import HOST, ServerProcess, loadavg
from .page import BADGE, CHROMIUM_ARGS, chromium_path

SIZES = ((8, 64), (64, 64), (64, 4096))
TARGET_RATIO = 5.0
TIMEOUT_S = 120.0
STARTUP_S = 120.0


# --------------------------------------------------------------------------- the compact trace


def compact_trace(trace) -> bytes:
    """Encode `trace`'s transfers, holdings and previews as compact binary; return the bytes.

    Little-endian. Chunk table: u32 count, then start and stop u32 per chunk (a transfer's
    elements are its chunk's length). Initial cells: u32 count, then each cell. Each step: u16
    transfers and u32 cells, then per transfer src u16, dst u16, chunk u32, op u8 (copy or
    reduce); then per cell: rank u16, chunk u32, its holders, and its previews: u8 count, then
    each value in the trace's dtype (float32: 4 bytes). Holders: a u8 tag, then whichever is
    smaller: a p-bit bitset (ceil(p/8) bytes), or, when the cell only gained ranks since its
    previous state, u16 count and the added ranks as u16 each.
    """
    import numpy as np

    from app.collectives.trace import ranks_in
    from app.web.serialize import initial_cells

    out = bytearray(struct.pack("<I", len(trace.chunks)))
    for start, stop in trace.chunks:
        out += struct.pack("<II", start, stop)
    bitset = (trace.ranks + 7) // 8
    held: dict[tuple[int, int], int] = {}

    def cell(rank: int, chunk: int, mask: int, preview) -> None:
        old = held.get((rank, chunk), 0)
        added = ranks_in(mask & ~old) if old & ~mask == 0 else None
        if added is not None and 2 + 2 * len(added) < bitset:  # tag 1: the added ranks
            out.extend(struct.pack(f"<HIBH{len(added)}H", rank, chunk, 1, len(added), *added))
        else:  # tag 0: the bitset
            out.extend(struct.pack("<HIB", rank, chunk, 0) + mask.to_bytes(bitset, "little"))
        out.extend(struct.pack("<B", len(preview)))
        out.extend(np.asarray(preview, dtype=trace.dtype).tobytes())
        held[(rank, chunk)] = mask

    initial = list(initial_cells(trace))
    out += struct.pack("<I", len(initial))
    for rank, chunk, mask, preview in initial:
        cell(rank, chunk, mask, preview)
    for s in trace.steps:
        out += struct.pack("<HI", len(s.moves), len(s.changed))
        for src, dst, chunk, op in s.moves:
            out += struct.pack("<HHIB", src, dst, chunk, op == "reduce")
        for u in s.updates:
            cell(u.rank, u.chunk, u.holders, u.preview)
    return bytes(out)


# --------------------------------------------------------------------------- the counting proxy


class Connection:
    """One proxied TCP connection: the client's request head, the server's head, bytes down."""

    def __init__(self) -> None:
        self.request = b""  # the client's first bytes (the HTTP request head)
        self.response = b""  # the server's first bytes, up to the end of its head
        self.down = 0  # server -> client bytes after the response head

    @property
    def websocket(self) -> bool:
        return self.response.startswith(b"HTTP/1.1 101")

    def header(self, head: bytes, name: str) -> str:
        match = re.search(rb"(?im)^" + name.encode() + rb":\s*(.*?)\r?$", head)
        return match.group(1).decode("latin-1") if match else ""


class CountingProxy:
    """A loopback TCP proxy to `port` that counts what the server sends on each connection."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.listener = socket.create_server((HOST, 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://{HOST}:{self.port}"
        self.connections: list[Connection] = []
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection((HOST, self.target))
            for s in (client, server):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = Connection()
            self.connections.append(conn)
            self._sockets += [client, server]
            threading.Thread(target=self._up, args=(client, server, conn), daemon=True).start()
            threading.Thread(target=self._down, args=(server, client, conn), daemon=True).start()

    @staticmethod
    def _up(src: socket.socket, dst: socket.socket, conn: Connection) -> None:
        with _closing(src, dst):
            while data := src.recv(65536):
                if b"\r\n\r\n" not in conn.request:
                    conn.request += data
                dst.sendall(data)

    @staticmethod
    def _down(src: socket.socket, dst: socket.socket, conn: Connection) -> None:
        with _closing(src, dst):
            while data := src.recv(65536):
                if b"\r\n\r\n" not in conn.response:
                    head, sep, rest = (conn.response + data).partition(b"\r\n\r\n")
                    conn.response = head + sep
                    conn.down += len(rest)
                else:
                    conn.down += len(data)  # counted before it is forwarded
                dst.sendall(data)

    def websockets(self) -> list[Connection]:
        return [c for c in self.connections if c.websocket]

    def close(self) -> None:
        self.listener.close()
        for s in self._sockets:
            try:
                s.close()
            except OSError:
                pass


class _closing:
    def __init__(self, *socks: socket.socket) -> None:
        self.socks = socks

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> bool:
        for s in self.socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        return exc[0] is not None and issubclass(exc[0], OSError)


# --------------------------------------------------------------------------- the two clients


def params(ranks: int, elements: int) -> dict:
    return {"collective": "allreduce", "algorithm": "ring", "ranks": ranks, "elements": elements}


def python_client_bytes(proxy: CountingProxy, ranks: int, elements: int) -> dict:
    """Run once with python-socketio's client on the websocket; return its bytes and handshake."""
    import socketio

    done = threading.Event()
    client = socketio.Client(reconnection=False)
    client.on("sim_done", lambda payload: done.set())
    client.on("sim_error", lambda payload: done.set())
    client.connect(proxy.url, transports=["websocket"], wait_timeout=20)
    try:
        conn = proxy.websockets()[-1]
        before = conn.down
        client.emit("simulate", {**params(ranks, elements), "seed": 0, "interval_ms": 0})
        if not done.wait(TIMEOUT_S):
            raise TimeoutError("python-socketio: no sim_done")
        return _figures(conn, conn.down - before)
    finally:
        client.disconnect()


def chromium_bytes(browser, proxy: CountingProxy, ranks: int, elements: int) -> dict:
    """Run once on the lab page in Chromium (the Run button); return its bytes and handshake.

    The lab runs its form's parameters when it opens; that run is let finish first, and the
    bytes are counted from the Run click until the connection has been quiet for a while.
    """
    query = "&".join(f"{k}={v}" for k, v in params(ranks, elements).items())
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{proxy.url}/lab?{query}", wait_until="load")
        page.wait_for_function("() => document.documentElement.dataset.socket === 'connected'")
        page.wait_for_function(f"() => window.labMetrics.simulateEmits >= 1 && {RUN_DONE}")
        conn = proxy.websockets()[-1]
        before = quiet(conn)
        emits = page.evaluate("() => window.labMetrics.simulateEmits")
        page.click("#run")
        page.wait_for_function(RUN_DONE_JS, timeout=TIMEOUT_S * 1000)
        after = quiet(conn)
        extra = page.evaluate("() => window.labMetrics.simulateEmits") - emits
        assert extra == 1, f"the Run click sent {extra} simulate events, not one"
        return _figures(conn, after - before)
    finally:
        context.close()


# The lab's badge once sim_done has arrived (it says "ok" only when the last step is shown).
RUN_DONE = (
    f"(b => b.dataset.state === 'ok' || b.textContent === 'checked against numpy at the end')"
    f"(document.querySelector('{BADGE}'))"
)
RUN_DONE_JS = f"() => {RUN_DONE}"


def quiet(conn: Connection, seconds: float = 0.5) -> int:
    """Wait until nothing has come down `conn` for `seconds`; return its byte count then."""
    last = conn.down
    while True:
        time.sleep(seconds)
        if conn.down == last:
            return last
        last = conn.down


def _figures(conn: Connection, nbytes: int) -> dict:
    return {
        "bytes": nbytes,
        "offered": conn.header(conn.request, "Sec-WebSocket-Extensions"),
        "accepted": conn.header(conn.response, "Sec-WebSocket-Extensions"),
    }


# --------------------------------------------------------------------------- the benchmark


def run(sizes=SIZES) -> dict:
    """Measure every size with both clients; print and return the figures."""
    from playwright.sync_api import sync_playwright

    from app.collectives import simulate
    from app.collectives.narration import narrate

    rows = []
    chromium = chromium_path()
    # Byte counts do not depend on timing: allow a slow start on a loaded machine.
    server = ServerProcess(["-m", "app"], ready_path="/healthz", timeout=STARTUP_S)
    with server, sync_playwright() as pw:
        proxy = CountingProxy(server.port)
        browser = (
            pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS) if chromium else None
        )
        try:
            for ranks, elements in sizes:
                trace = simulate("allreduce", "ring", ranks=ranks, elements=elements)
                row = {
                    "ranks": ranks,
                    "elements": elements,
                    "steps": trace.total_steps,
                    "compact": len(compact_trace(trace)),
                    "narration": sum(len(t.encode()) for t in narrate(trace)),
                    "python": python_client_bytes(proxy, ranks, elements),
                    "chromium": chromium_bytes(browser, proxy, ranks, elements)
                    if browser
                    else None,
                }
                rows.append(row)
                print_row(row)
        finally:
            if browser:
                browser.close()
            proxy.close()
    return {"rows": rows, "load": loadavg()}


def print_row(r: dict) -> None:
    compact = r["compact"]
    print(
        f"ring allreduce {r['ranks']}x{r['elements']} ({r['steps']} steps): compact trace "
        f"{compact / 1e3:.1f} kB (+ narration {r['narration'] / 1e3:.1f} kB of text)"
    )
    for name in ("python", "chromium"):
        f = r[name]
        if f is None:
            print(f"  {name}: SKIPPED, no chromium on PATH")
            continue
        ratio = f["bytes"] / compact
        print(
            f"  {name}: {f['bytes'] / 1e3:.1f} kB on the websocket = {ratio:.2f}x the compact "
            f"trace (target <= {TARGET_RATIO:g}x: {'met' if ratio <= TARGET_RATIO else 'NOT met'});"
            f" deflate offered: {f['offered'] or 'none'}; accepted: {f['accepted'] or 'none'}"
        )


def summary(result: dict) -> None:
    """One line: the ratio per size and client."""
    parts = []
    for r in result["rows"]:
        for name in ("python", "chromium"):
            if r[name]:
                parts.append(
                    f"{r['ranks']}x{r['elements']} {name} {r[name]['bytes'] / 1e3:.0f} kB = "
                    f"{r[name]['bytes'] / r['compact']:.2f}x"
                )
    print(
        f"wire: websocket bytes / compact trace: {', '.join(parts)} (target <= {TARGET_RATIO:g}x)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.wire", description=__doc__)
    parser.parse_args(argv)
    print(f"wire (load average {loadavg()})")
    start = time.monotonic()
    summary(run())
    print(f"wire: {time.monotonic() - start:.0f} s, load average {loadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
