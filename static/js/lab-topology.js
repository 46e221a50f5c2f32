// The topology view: the ranks where the server puts them (lab-geometry.js) and the arrows
// of the step at the cursor, coloured by chunk, dashed for a copy and solid for a reduce; with
// a flight time, the chunks fly from sender to receiver.
//
// Arrows are grouped into a few scatter traces (colour × op × width), not annotations, so 64
// ranks with thousands of transfers stay fast; the static traces keep their arrays so
// Plotly.react has little to diff.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const P = CL.palette;
  const V = CL.views;
  const FAN = 4; // a message of more chunks is one neutral arrow (palette.manyChunks)
  const TITLE_SIZE = 13; // px, the tree titles
  const MIN_ARROW_PX = 28; // shorter than this between two ranks, an arrow reads as a bow-tie
  const RUN_PX = 56; // an arrow along the circle covers at least this much of it
  const GAP_PX = 3; // between two arrows along the circle
  const MIN_SLOTS = 4; // arrow traces on the plot at least (a step has one per colour × op × width)

  let measurer = null;
  function textWidth(text, size, font) {
    measurer = measurer || document.createElement("canvas").getContext("2d");
    measurer.font = `${size}px ${font}`;
    return measurer.measureText(text).width;
  }
  function chunkBytes(run, c) { return (run.chunks[c][1] - run.chunks[c][0]) * run.itemsize; }

  const { addArrow, stretches, pieces, messagesOf, segment, bow, addPacket, arrowTrace, withFlightAxes, emptyArrows } = V.arrows;

  class TopologyView {
    constructor(el) { this.el = el; this.run = null; }

    reset(run) {
      this.run = run;
      this.t = CL.chartTheme();
      this.geo = V.geometry(run);
      const g = this.geo, p = run.p, t = this.t;
      const xs = g.nodes.map((n) => n.x), ys = g.nodes.map((n) => n.y);
      for (const b of g.boxes) { xs.push(b.x0, b.x1); ys.push(b.y0, b.y1); }
      const span = Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys), 1);
      const pad = Math.max(g.unit * 0.35, 0.08 * span);
      this.fitXr = [Math.min(...xs) - pad, Math.max(...xs) + pad];
      this.xr = this.fitXr.slice();
      this.yr = [Math.min(...ys) - pad, Math.max(...ys) + pad];
      this._measure();
      this._placeTitles();
      const edge = (list) => {
        const x = [], y = [];
        for (const [a, b] of list) { x.push(g.nodes[a].x, g.nodes[b].x, null); y.push(g.nodes[a].y, g.nodes[b].y, null); }
        return { x, y };
      };
      const e = edge(g.edges), f = edge(g.foldEdges);
      this.edgeTrace = {
        type: "scatter", mode: "lines", x: e.x, y: e.y, hoverinfo: "skip",
        line: { color: t.line, width: p > 32 ? 1 : 1.5 },
      };
      this.foldTrace = {
        type: "scatter", mode: "lines", x: f.x, y: f.y, hoverinfo: "skip",
        line: { color: t.muted, width: 1, dash: "dot" },
      };
      this._nodes();
      this.layout = V.layout(t, {
        xaxis: { visible: false, range: this.xr, fixedrange: true },
        yaxis: { visible: false, range: this.yr, fixedrange: true, scaleanchor: "x", scaleratio: 1 },
        shapes: g.boxes.map((b) => ({
          type: "rect", layer: "below", x0: b.x0, x1: b.x1, y0: b.y0, y1: b.y1,
          line: { color: t.muted, width: 1.2 }, fillcolor: "rgba(127,127,127,0.07)",
        })),
        annotations: g.boxes.map((b) => ({
          x: b.x0, y: b.y1, text: b.label, showarrow: false, xanchor: "left", yanchor: "bottom",
          font: { color: t.muted, size: 12 },
        })).concat(this._titles()),
      });
    }

    // Each tree's title sits on its root's row, at the tree's left edge, or further left when
    // the tree is too narrow for it there: clear of the root, its label and every other rank.
    // The plot widens on the left if a title needs the room.
    _placeTitles() {
      const labels = this.geo.labels;
      if (!labels.length) return;
      for (let pass = 0; pass < 3; pass++) {
        const gap = (this.nodePx / 2 + 12) / this.pxPerUnit;
        let left = this.xr[0];
        for (const l of labels) {
          const width = textWidth(l.text, TITLE_SIZE, this.t.font) / this.pxPerUnit;
          l.x = Math.min(l.left, l.root.x - gap - width);
          left = Math.min(left, l.x - 6 / this.pxPerUnit);
        }
        if (left >= this.xr[0]) return;
        this.xr[0] = left;
        this._measure();
      }
    }

    _titles() {
      return this.geo.labels.map((l) => ({
        x: l.x, y: l.root.y, text: l.text, showarrow: false, xanchor: "left", yanchor: "middle",
        font: { color: this.t.muted, size: TITLE_SIZE },
      }));
    }

    // The ranks: numbered inside the markers when they are big enough, else beside them.
    _nodes() {
      const g = this.geo, p = this.run.p, t = this.t;
      const rpn = (this.run.start.layout.topology || {}).ranks_per_node || p;
      const label = (n) => {
        let s = `rank ${n.rank}`;
        if (g.kind === "hierarchical") s += ` · node ${Math.floor(n.rank / rpn)}`;
        if (n.tree !== undefined) s += ` · tree ${n.tree + 1}`;
        return s;
      };
      const inside = this.nodePx >= 18;
      this.nodeTrace = {
        type: "scatter", mode: inside ? "markers+text" : "markers",
        x: g.nodes.map((n) => n.x), y: g.nodes.map((n) => n.y),
        text: g.nodes.map((n) => String(n.rank)), hovertext: g.nodes.map(label), hoverinfo: "text",
        textposition: "middle center", cliponaxis: false,
        textfont: { color: t.rank.text, size: this.nodePx > 24 ? 13 : 11, family: t.font },
        marker: {
          color: t.rank.fill, size: this.nodePx,
          line: { color: t.rank.line, width: this.nodePx > 12 ? 1.5 : this.nodePx >= 8 ? 1.2 : 0.6 },
        },
      };
      this.labelTrace = { type: "scatter", mode: "text", x: [], y: [], text: [], hoverinfo: "skip", cliponaxis: false };
      if (inside) return;
      // Label every k-th rank (k a power of two) so that labels keep ~18 px apart.
      let every = 1;
      while (every < p && g.unit * this.pxPerUnit * every < 18) every *= 2;
      const off = (this.nodePx / 2 + 8) / this.pxPerUnit;
      const round = V.isRound(g.kind);
      const x = [], y = [], text = [];
      for (const n of g.nodes) {
        if (n.rank % every) continue;
        const len = Math.hypot(n.x, n.y) || 1;
        x.push(round ? n.x + (n.x / len) * off * 1.2 : n.x);
        y.push(round ? n.y + (n.y / len) * off * 1.2 : n.y + off);
        text.push(String(n.rank));
      }
      Object.assign(this.labelTrace, { x, y, text, textfont: { size: 10, color: t.muted, family: t.font } });
    }

    // Data units per pixel, so node size and arrow shortening fit the space the plot has.
    _measure() {
      const w = Math.max(200, this.el.clientWidth - 16), h = Math.max(200, this.el.clientHeight - 16);
      const xs = this.xr[1] - this.xr[0], ys = this.yr[1] - this.yr[0];
      this.pxPerUnit = Math.min(w / xs, h / ys);
      // 9 px at least, unless neighbours sit closer than that: then dots, not one thick band.
      const spacing = this.geo.unit * this.pxPerUnit;
      this.nodePx = Math.max(Math.min(9, spacing * 0.7), Math.min(32, spacing * 0.42));
    }

    // The arrows of step `cursor` as traces, and where each chunk flies from and to.
    _arrows(cursor) {
      const run = this.run, g = this.geo;
      const groups = new Map();
      const packets = { x0: [], y0: [], x1: [], y1: [], color: [] };
      if (cursor < 0) return { traces: [], packets };
      const transfers = run.steps[cursor].transfers;
      const messages = messagesOf(transfers);
      // Hundreds of messages at once (an all-port step): thin, translucent lines, no heads.
      const style = {
        dense: messages.size > 300,
        segs: transfers.length > 800 ? 1 : transfers.length > 200 ? 3 : 8,
        thin: run.p > 32 ? 1.4 : 2.2,
        r: (this.nodePx / 2 + 3) / this.pxPerUnit,
      };
      const round = V.isRound(g.kind) && !style.dense;
      const short = [];
      for (const m of messages.values()) {
        const a = g.nodes[g.nodeOf(m.src, m.dst)], b = g.nodes[g.nodeOf(m.dst, m.src)];
        if (!a || !b) continue;
        const line = segment(a, b, style.r);
        // Too short to read between two neighbours on a circle: drawn along the circle, with
        // its neighbours' arrows, by _ringArrows.
        if (round && (line.len - 2 * style.r) * this.pxPerUnit < MIN_ARROW_PX) {
          short.push(m);
          for (const chunk of m.chunks.slice(0, FAN)) addPacket(packets, line, P.chunkColor(chunk, this.t.name));
          continue;
        }
        this._fan(m, line, style, groups, packets);
      }
      if (short.length) this._ringArrows(short, groups);
      return { traces: [...groups.values()].map((grp) => arrowTrace(grp, style.dense)), packets };
    }

    // One message's arrows, bowed apart: one per chunk up to FAN of them, else one neutral arrow.
    _fan(m, line, style, groups, packets) {
      const run = this.run, g = this.geo;
      const kind = g.linkKind(m.src, m.dst);
      const width = style.dense ? 0.7 : kind === "inter" ? 3.2 : kind === "intra" ? 1.3 : style.thin;
      const head = style.dense ? 0 : Math.max(8, Math.min(14, width * 3.2 + 4));
      const fan = m.chunks.length <= FAN ? m.chunks : [null];
      const bytes = m.elements * run.itemsize;
      fan.forEach((chunk, i) => {
        const color = chunk === null ? P.manyChunks(this.t.name) : P.chunkColor(chunk, this.t.name);
        const what = chunk === null
          ? `${m.chunks.length} chunks (${m.chunks.slice(0, 8).map(P.chunkLabel).join(", ")}${m.chunks.length > 8 ? ", …" : ""})`
          : `chunk ${P.chunkLabel(chunk)}`;
        const hover = `r${m.src} → r${m.dst} · ${what} · ${m.op}${kind ? ` · ${kind}-node` : ""} · ${CL.formatBytes(chunk === null ? bytes : chunkBytes(run, chunk))}`;
        const bend = Math.min(0.1 * line.len, 0.3 * g.unit) + 0.12 * g.unit * i;
        const { xs, ys } = bow(line, bend, style.segs);
        addArrow(groups, { color, op: m.op, width }, xs, ys, head, hover);
        addPacket(packets, line, color);
      });
    }

    // Messages between near neighbours on a circle (a ring's every step at 32 or 64 ranks):
    // one arrow per stretch of consecutive senders that send the same distance the same way,
    // drawn on an arc just inside the circle and cut into pieces at least RUN_PX long, so a
    // step reads as "each rank sends to its neighbour" instead of 64 bow-ties. The hover of
    // each arrow names every transfer it carries.
    _ringArrows(messages, groups) {
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
        const radius = 1 - (this.nodePx / 2 + 6 + lane * 7) / this.pxPerUnit;
        const hopPx = hop * radius * this.pxPerUnit;
        const span = Math.abs(way.d) - 1;
        let k = 1;
        while ((k + span) * hopPx < RUN_PX && k < n) k *= 2;
        for (const stretch of stretches(way.at, n)) {
          if (way.d < 0) stretch.reverse(); // counter-clockwise: start from the last sender
          for (const piece of pieces(stretch, k)) this._arc(piece, way, radius, groups);
        }
      });
    }

    _arc(piece, way, radius, groups) {
      const run = this.run, g = this.geo, n = g.nodes.length;
      const dir = Math.sign(way.d), hop = (2 * Math.PI) / n;
      const first = g.nodeOf(piece[0].src);
      let a0 = first * hop, a1 = a0 + (piece.length - 1 + Math.abs(way.d)) * hop * dir;
      const px = radius * this.pxPerUnit;
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
        xs.push(radius * Math.sin(a)); ys.push(radius * Math.cos(a));
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
      addArrow(groups, { color, op: way.op, width: 2.2 }, xs, ys, 12, hover);
    }

    // Draw the run at its cursor; with `flightMs`, chunks fly from sender to receiver.
    async render(flightMs, onDrawn) {
      const run = this.run;
      const { traces, packets } = this._arrows(run.cursor);
      const fly = flightMs > 0 && packets.x0.length > 0 && packets.x0.length <= 1200;
      const packetTrace = {
        type: "scatter", mode: "markers", hoverinfo: "skip", xaxis: "x2", yaxis: "y2",
        x: fly ? packets.x0 : [], y: fly ? packets.y0 : [],
        marker: { color: packets.color, size: Math.max(7, Math.min(13, this.nodePx * 0.5)), line: { color: this.t.fg, width: 1 } },
      };
      const last = await this._plot(traces, packetTrace);
      if (onDrawn) onDrawn(run.cursor);
      if (fly) {
        await this._move([{ x: packets.x1, y: packets.y1 }], [last], flightMs);
        // Landed: clear the packets so the arrowheads show while the step is on screen.
        await this._move([{ x: [], y: [] }], [last], 0);
      }
    }

    // Put this step's arrows and packets on the plot; return the packets' trace index.
    //
    // The edges, ranks and labels stay as they are from step to step: while they, the layout
    // and the number of arrow traces are the ones on the plot, the step goes in as an animation
    // frame with no transition, which redraws only the arrow and packet traces (Plotly.react
    // restyles every trace, axis and shape: most of a step's time at 64 ranks). Arrow traces
    // are slots: a step with fewer groups empties the rest, one with more replots with more.
    async _plot(traces, packetTrace) {
      const statics = [this.edgeTrace, this.foldTrace, this.nodeTrace, this.labelTrace, this.layout];
      const same = this.el._fullLayout && this.drawn && this.drawn.statics.every((s, i) => s === statics[i]);
      if (same && traces.length <= this.drawn.slots) {
        const slots = traces.concat(Array.from({ length: this.drawn.slots - traces.length }, emptyArrows));
        // [edges, folds, ...slots, nodes, labels, packets]
        const packetIndex = slots.length + 4;
        await this._move(slots.concat([packetTrace]), slots.map((_, i) => 2 + i).concat([packetIndex]), 0);
        return packetIndex;
      }
      const slots = traces.concat(Array.from({ length: Math.max(0, MIN_SLOTS - traces.length) }, emptyArrows));
      const data = [this.edgeTrace, this.foldTrace, ...slots, this.nodeTrace, this.labelTrace, packetTrace];
      await global.Plotly.react(this.el, data, withFlightAxes(this.layout), CL.CHART_CONFIG);
      this.drawn = { statics, slots: slots.length };
      return data.length - 1;
    }

    // Change traces `indices` to `data` without replotting the rest; over `ms`, eased, if > 0.
    _move(data, indices, ms) {
      return global.Plotly.animate(this.el, { data, traces: indices }, {
        transition: { duration: ms, easing: "cubic-in-out" }, frame: { duration: ms, redraw: false }, mode: "immediate",
      });
    }

    resize() {
      if (!this.run) return;
      this.xr = this.fitXr.slice();
      this._measure();
      this._placeTitles();
      this._nodes();
      if (!this.geo.labels.length) return;
      const boxes = this.layout.annotations.slice(0, this.geo.boxes.length);
      this.layout = Object.assign({}, this.layout, {
        xaxis: Object.assign({}, this.layout.xaxis, { range: this.xr.slice() }),
        annotations: boxes.concat(this._titles()),
      });
    }
  }

  V.TopologyView = TopologyView;
})(window);
