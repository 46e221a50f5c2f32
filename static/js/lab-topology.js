// The topology view: the run's first picture, drawn once by the server (sim_start's
// layout.topology_svg, the `topology_svg` macro the embed's HTML already holds), with the arrows
// of the step at the cursor added to it, coloured by chunk, dashed for a copy and solid for a
// reduce; with a flight time, the chunks fly from sender to receiver.
//
// The script draws nothing static: ranks, links, boxes and titles stay as the server drew them,
// in one viewBox that scales with the box, so nothing needs redrawing on a resize and nothing
// in the picture can come to overlap. Each step replaces two layers: the arrows (a <g> of the
// SVG, one <g> per arrow with its hover text as a <title>) and the packets (one dot per chunk
// in flight, moved by the Web Animations API). Sizes are in the picture's nominal pixels: `px`
// plot units each, and `r` the discs' radius (data-px and data-r on the <svg>,
// app/drawing/topology.py).
//
// The packets are HTML elements laid over the SVG, not SVG circles: Chromium runs a transform
// animation of an SVG element on the main thread, laying out and repainting the picture every
// frame, and an HTML element's on the compositor. For a 64-rank ring on a phone
// (bench/frame.py) a step's main-thread task time was a median 379 ms with circles, 170 ms
// with dots, and its long tasks 82 ms against none.
//
// Where the browser can hand a canvas to a worker (transferControlToOffscreen), the packets are
// drawn there instead, by static/js/lab-flight-worker.js: the dots' 64 Element.animate calls,
// style recalc and compositor layers cost ~35 ms of main thread a step at 64 ranks, and a canvas
// drawn by the page costs a main-thread frame per animation frame (bench/RESULTS.md, issue 17);
// the page posts a step's packets once and the worker's frames skip its main thread. The dots
// stay for other browsers. Both draw the same discs on the same paths, timed and eased alike.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const P = CL.palette;
  const V = CL.views;
  const FAN = 4; // a message of more chunks is one neutral arrow (palette.manyChunks)
  const MIN_ARROW_PX = 28; // shorter than this between two ranks, an arrow reads as a bow-tie
  const RUN_PX = 56; // an arrow along the circle covers at least this much of it
  const GAP_PX = 3; // between two arrows along the circle
  const MAX_PACKETS = 1200; // more chunks than this in one step: the arrows alone, no flight
  const NS = "http://www.w3.org/2000/svg";
  const OPS = { copy: _("copy"), reduce: _("reduce") };
  const KINDS = { intra: _("intra-node"), inter: _("inter-node") };

  function chunkBytes(run, c) { return (run.chunks[c][1] - run.chunks[c][0]) * run.itemsize; }

  const { addArrow, stretches, pieces, messagesOf, segment, bow, addPacket, arrowMarkup, packetMarkup } = V.arrows;
  const WORKER_URL = document.currentScript ? new URL("lab-flight-worker.js", document.currentScript.src).href : null;
  const OFFSCREEN = !!WORKER_URL && typeof Worker === "function" && typeof OffscreenCanvas === "function"
    && typeof HTMLCanvasElement.prototype.transferControlToOffscreen === "function";
  // A flight the worker has not landed this long after its end is landed here: a worker's
  // requestAnimationFrame stops while its canvas is scrolled out of view, and the views after
  // the topology (drawn once the chunks land) must not wait for it.
  const LATE_MS = 60;

  // The packets' canvas, drawn by the worker; `onFail` when the worker cannot run (the view then
  // goes back to the dots). `fly` settles once the worker has landed the flight, or it was cut short.
  class WorkerFlight {
    constructor(canvas, onFail) {
      this.canvas = canvas; this.onFail = onFail; this.worker = null; this.ids = 0; this.pending = null;
    }

    start() {
      if (this.worker) return;
      try {
        this.worker = new Worker(WORKER_URL);
        const off = this.canvas.transferControlToOffscreen();
        this.worker.postMessage({ type: "canvas", canvas: off }, [off]);
      } catch (err) {
        this.fail();
        return;
      }
      this.worker.onmessage = (e) => {
        if (e.data.type === "landed" && this.pending && this.pending.id === e.data.id) this._settle();
      };
      this.worker.onerror = () => this.fail();
    }

    fly(flight) {
      this.land();
      const id = ++this.ids;
      this.worker.postMessage({ type: "fly", id, ...flight });
      return new Promise((resolve) => {
        this.pending = { id, resolve, late: setTimeout(() => this.land(), flight.ms + LATE_MS) };
      });
    }

    land() {
      if (!this.pending) return;
      this.worker.postMessage({ type: "land" });
      this._settle();
    }

    _settle() {
      clearTimeout(this.pending.late);
      this.pending.resolve();
      this.pending = null;
    }

    fail() {
      if (this.pending) this._settle();
      if (this.worker) this.worker.terminate();
      this.onFail();
    }
  }

  class TopologyView {
    constructor(el) {
      this.el = el; this.run = null; this.svg = null; this.markup = null; this.flight = [];
      this.packetLayer = this._layer(OFFSCREEN ? "canvas" : "div");
      this.drawer = OFFSCREEN ? new WorkerFlight(this.packetLayer, () => this._dots()) : null;
    }

    _layer(tag) {
      const layer = document.createElement(tag);
      layer.className = "t-packets";
      layer.setAttribute("aria-hidden", "true");
      return layer;
    }

    // The worker could not start: fly the packets as dots from now on.
    _dots() {
      const div = this._layer("div");
      this.packetLayer.replaceWith(div);
      this.packetLayer = div;
      this.drawer = null;
    }

    reset(run) {
      this.run = run;
      this.t = CL.chartTheme();
      this.geo = V.geometry(run);
      if (this.drawer) this.drawer.start();
      this._land();
      const markup = run.start.layout.topology_svg;
      if (markup !== this.markup || !this.svg || !this.svg.isConnected) this._insert(markup);
      this.markup = markup;
      this.arrowLayer.replaceChildren();
      this.packetLayer.replaceChildren();
      this.svg.setAttribute("aria-label", this.firstLabel);
    }

    // Put the server's picture in the box; in the embed, keep the one its HTML already holds
    // when it is this very picture (no new markup, no repaint of the first picture).
    _insert(markup) {
      const tpl = document.createElement("template");
      tpl.innerHTML = markup;
      const fresh = tpl.content.querySelector("svg");
      const there = this.el.querySelector('svg[data-role="topology-svg"]');
      const keep = there && !this.svg && there.isEqualNode(fresh);
      const svg = keep ? there : fresh;
      if (!keep) {
        if (there) there.remove();
        this.el.appendChild(svg);
      }
      this.svg = svg;
      this.px = Number(svg.dataset.px);
      this.nodePx = (2 * Number(svg.dataset.r)) / this.px;
      this.firstLabel = svg.getAttribute("aria-label");
      this.arrowLayer = document.createElementNS(NS, "g");
      this.arrowLayer.setAttribute("class", "t-arrows");
      // Arrows under the discs (they end at their rims), packets over everything.
      svg.insertBefore(this.arrowLayer, svg.querySelector(".s0-nodes"));
      svg.after(this.packetLayer);
    }

    // The arrows of step `cursor`, and where each chunk flies from and to.
    _arrows(cursor) {
      const run = this.run, g = this.geo;
      const arrows = [], packets = [];
      if (cursor < 0) return { arrows, packets, dense: false };
      const transfers = run.steps[cursor].transfers;
      const messages = messagesOf(transfers);
      // Hundreds of messages at once (an all-port step): thin, translucent lines, no heads.
      const style = {
        dense: messages.size > 300,
        segs: transfers.length > 800 ? 1 : transfers.length > 200 ? 3 : 8,
        thin: run.p > 32 ? 1.4 : 2.2,
        r: (this.nodePx / 2 + 3) * this.px,
      };
      const round = V.isRound(g.kind) && !style.dense;
      const short = [];
      for (const m of messages.values()) {
        const a = g.nodes[g.nodeOf(m.src, m.dst)], b = g.nodes[g.nodeOf(m.dst, m.src)];
        if (!a || !b) continue;
        const line = segment(a, b, style.r);
        // Too short to read between two neighbours on a circle: drawn along the circle, with
        // its neighbours' arrows, by _ringArrows.
        if (round && (line.len - 2 * style.r) / this.px < MIN_ARROW_PX) {
          short.push(m);
          for (const chunk of m.chunks.slice(0, FAN)) addPacket(packets, line, P.chunkColor(chunk, this.t.name));
          continue;
        }
        this._fan(m, line, style, arrows, packets);
      }
      if (short.length) this._ringArrows(short, arrows);
      return { arrows, packets, dense: style.dense };
    }

    // One message's arrows, bowed apart: one per chunk up to FAN of them, else one neutral arrow.
    _fan(m, line, style, arrows, packets) {
      const run = this.run, g = this.geo;
      const kind = g.linkKind(m.src, m.dst);
      const width = style.dense ? 0.7 : kind === "inter" ? 3.2 : kind === "intra" ? 1.3 : style.thin;
      const head = style.dense ? 0 : Math.max(8, Math.min(14, width * 3.2 + 4));
      const fan = m.chunks.length <= FAN ? m.chunks : [null];
      const bytes = m.elements * run.itemsize;
      fan.forEach((chunk, i) => {
        const color = chunk === null ? P.manyChunks(this.t.name) : P.chunkColor(chunk, this.t.name);
        const what = chunk === null
          ? _("{n} chunks ({list})", { n: m.chunks.length, list: m.chunks.slice(0, 8).map(P.chunkLabel).join(", ") + (m.chunks.length > 8 ? ", …" : "") })
          : _("chunk {chunk}", { chunk: P.chunkLabel(chunk) });
        const where = kind ? ` · ${KINDS[kind] || `${kind}-node`}` : "";
        const hover = `${run.nodeName(m.src)} → ${run.nodeName(m.dst)} · ${what} · ${OPS[m.op] || m.op}${where} · ${CL.formatBytes(chunk === null ? bytes : chunkBytes(run, chunk))}`;
        const bend = Math.min(0.1 * line.len, 0.3 * g.unit) + 0.12 * g.unit * i;
        const { xs, ys } = bow(line, bend, style.segs);
        addArrow(arrows, { color, op: m.op, width }, xs, ys, head, hover);
        addPacket(packets, line, color);
      });
    }

    // Messages between near neighbours on a circle (a ring's every step at 32 or 64 ranks):
    // one arrow per stretch of consecutive senders that send the same distance the same way,
    // drawn on an arc just inside the circle and cut into pieces at least RUN_PX long, so a
    // step reads as "each rank sends to its neighbour" instead of 64 bow-ties. The hover of
    // each arrow names every transfer it carries.
    _ringArrows(messages, arrows) {
      const g = this.geo, n = g.nodes.length;
      const byWay = new Map();
      for (const m of messages) {
        const i = g.nodeOf(m.src), j = g.nodeOf(m.dst);
        let d = (((j - i) % n) + n) % n;
        if (d > n / 2) d -= n;
        const key = `${d}|${m.op}`;
        if (!byWay.has(key)) byWay.set(key, { d, op: m.op, at: new Map() });
        byWay.get(key).at.set(i, m);
      }
      const ways = [...byWay.values()].sort((a, b) => (b.d > 0) - (a.d > 0) || Math.abs(a.d) - Math.abs(b.d));
      const hop = (2 * Math.PI) / n;
      ways.forEach((way, lane) => {
        const radius = 1 - (this.nodePx / 2 + 6 + lane * 7) * this.px;
        const hopPx = (hop * radius) / this.px;
        const span = Math.abs(way.d) - 1;
        let k = 1;
        while ((k + span) * hopPx < RUN_PX && k < n) k *= 2;
        for (const stretch of stretches(way.at, n)) {
          if (way.d < 0) stretch.reverse(); // counter-clockwise: start from the last sender
          for (const piece of pieces(stretch, k)) this._arc(piece, way, radius, arrows);
        }
      });
    }

    _arc(piece, way, radius, arrows) {
      const run = this.run, g = this.geo, n = g.nodes.length;
      const dir = Math.sign(way.d), hop = (2 * Math.PI) / n;
      const first = g.nodeOf(piece[0].src);
      let a0 = first * hop, a1 = a0 + (piece.length - 1 + Math.abs(way.d)) * hop * dir;
      const px = radius / this.px;
      // Leave a gap between neighbouring pieces; stretch a lone short one to a readable length.
      const gap = GAP_PX / px, least = MIN_ARROW_PX / px;
      a0 += gap * dir; a1 -= gap * dir;
      if (Math.abs(a1 - a0) < least) {
        const mid = (a0 + a1) / 2;
        a0 = mid - (least / 2) * dir; a1 = mid + (least / 2) * dir;
      }
      const steps = Math.max(4, Math.ceil((Math.abs(a1 - a0) * px) / 6));
      const xs = [], ys = [];
      for (let s = 0; s <= steps; s++) {
        const a = a0 + ((a1 - a0) * s) / steps;
        xs.push(radius * Math.sin(a)); ys.push(-radius * Math.cos(a)); // rank 0 on top, y down
      }
      const chunks = piece.flatMap((m) => m.chunks);
      const colors = new Set(chunks.map((c) => P.chunkColor(c, this.t.name)));
      const color = colors.size === 1 ? [...colors][0] : P.manyChunks(this.t.name);
      const path = Math.abs(way.d) === 1
        ? [piece[0].src, ...piece.map((m) => m.dst)].map((q) => `r${q}`).join(" → ")
        : piece.map((m) => `r${m.src} → r${m.dst}`).join(", ");
      const labels = chunks.slice(0, 16).map(P.chunkLabel).join(", ") + (chunks.length > 16 ? ", …" : "");
      const bytes = piece.reduce((sum, m) => sum + m.elements * run.itemsize, 0);
      const hover = `${path} · ${piece.length} transfer${piece.length > 1 ? "s" : ""} · chunk${chunks.length > 1 ? "s" : ""} ${labels} · ${way.op} · ${CL.formatBytes(bytes)}`;
      addArrow(arrows, { color, op: way.op, width: 2.2 }, xs, ys, 12, hover);
    }

    // Draw the run at its cursor; with `flightMs`, chunks fly from sender to receiver, and the
    // promise settles once they have landed.
    async render(flightMs, onDrawn) {
      const run = this.run;
      this._land();
      const { arrows, packets, dense } = this._arrows(run.cursor);
      const fly = flightMs > 0 && packets.length > 0 && packets.length <= MAX_PACKETS;
      // Where the picture is in the packets' layer, read before the arrows change the SVG (the
      // box keeps its size: the arrows are drawn inside the picture).
      const m = fly ? this.svg.getScreenCTM() : null;
      const box = fly ? this.el.getBoundingClientRect() : null;
      const at = fly ? this._packetsAt(m, box) : null;
      this.arrowLayer.classList.toggle("dense", dense);
      this.arrowLayer.innerHTML = arrows.map((a) => arrowMarkup(a, this.px)).join("");
      this.svg.setAttribute("aria-label", this._label(run.cursor));
      if (fly && !this.drawer) {
        this.packetLayer.style.setProperty("--packet", `${at.size.toFixed(1)}px`);
        this.packetLayer.innerHTML = packetMarkup(packets, at.xy);
      }
      if (onDrawn) onDrawn(run.cursor);
      if (!fly) return;
      if (this.drawer) {
        const flying = packets.map((p) => [...at.xy(p.x0, p.y0), ...at.xy(p.x1, p.y1), p.color]);
        await this.drawer.fly({ ...at.canvas, size: at.size, ms: flightMs, packets: flying });
        return;
      }
      const dots = this.packetLayer.children;
      this.flight = packets.map((p, i) => dots[i].animate(
        [{ transform: "translate(0px, 0px)" }, { transform: `translate(${m.a * (p.x1 - p.x0)}px, ${m.d * (p.y1 - p.y0)}px)` }],
        { duration: flightMs, easing: "ease-in-out", fill: "forwards" },
      ));
      await Promise.all(this.flight.map((a) => a.finished.catch(() => null)));
      this._land();
    }

    // Where the packets go in their layer's pixels: `xy(x, y)` of a point of the picture, the
    // discs' `size` across, and the worker's canvas (the box's size, pixel ratio, the dots' ring).
    _packetsAt(m, box) {
      const ox = m.e - box.left - this.el.clientLeft, oy = m.f - box.top - this.el.clientTop;
      const size = Math.max(7, Math.min(13, this.nodePx * 0.5)) * this.px * m.a;
      const canvas = this.drawer && {
        width: this.el.clientWidth, height: this.el.clientHeight, dpr: global.devicePixelRatio || 1,
        ring: getComputedStyle(this.packetLayer).getPropertyValue("--fg").trim() || "#1c1d21",
      };
      return { xy: (x, y) => [ox + m.a * x, oy + m.d * y], size, canvas };
    }

    // Landed (or cut short by a new step or run): clear the packets so the arrowheads show.
    _land() {
      for (const a of this.flight) a.cancel();
      this.flight = [];
      if (this.drawer) this.drawer.land();
      else this.packetLayer.replaceChildren();
    }

    _label(cursor) {
      if (cursor < 0) return this.firstLabel;
      const n = this.run.steps[cursor].transfers.length;
      const k = cursor + 1, total = this.run.total;
      if (this.run.switches.length) {
        return n === 1 ? _("Step {k} of {total}: 1 transfer, drawn as arrows between the ranks and the switch, coloured by chunk", { k, total })
          : _("Step {k} of {total}: {n} transfers, drawn as arrows between the ranks and the switch, coloured by chunk", { k, total, n });
      }
      return n === 1 ? _("Step {k} of {total}: 1 transfer, drawn as arrows between the ranks, coloured by chunk", { k, total })
        : _("Step {k} of {total}: {n} transfers, drawn as arrows between the ranks, coloured by chunk", { k, total, n });
    }
  }

  V.TopologyView = TopologyView;
})(window);
