// The pieces of the topology view's arrows (CollectiveLab.views.arrows): a step's transfers
// grouped into messages, the polylines and packets drawn for them, and the scatter traces that
// hold them. Plain functions of their inputs; lab-topology.js decides where each arrow goes.
(function (global) {
  "use strict";
  const V = global.CollectiveLab.views;

  // One arrow: a polyline added to the trace of its colour, op and width, with its head (a
  // marker size, 0 for none) on the last point.
  function addArrow(groups, style, xs, ys, head, hover) {
    const key = `${style.color}|${style.op}|${style.width}`;
    let grp = groups.get(key);
    if (!grp) {
      grp = Object.assign({}, style, { x: [], y: [], size: [], text: [] });
      groups.set(key, grp);
    }
    xs.forEach((x, i) => {
      grp.x.push(x); grp.y.push(ys[i]);
      grp.size.push(i === xs.length - 1 ? head : 0);
      grp.text.push(hover);
    });
    grp.x.push(null); grp.y.push(null); grp.size.push(0); grp.text.push("");
  }

  // Runs of consecutive circle positions present in `at` (position → item), in order; a full
  // circle is one run from position 0.
  function stretches(at, n) {
    const starts = [...at.keys()].filter((i) => !at.has((i - 1 + n) % n)).sort((a, b) => a - b);
    if (!starts.length && at.size) starts.push(Math.min(...at.keys()));
    return starts.map((i0) => {
      const run = [];
      for (let i = i0; at.has(i) && run.length < n; i = (i + 1) % n) run.push(at.get(i));
      return run;
    });
  }

  // A run cut into pieces of k, the last folded into the one before when it is under k / 2.
  function pieces(list, k) {
    const out = [];
    for (let i = 0; i < list.length; i += k) out.push(list.slice(i, i + k));
    if (out.length > 1 && out[out.length - 1].length < k / 2) out[out.length - 2].push(...out.pop());
    return out;
  }

  // A step's transfers as messages, one per (sender, receiver, op), with their chunks.
  function messagesOf(transfers) {
    const messages = new Map();
    for (const t of transfers) {
      const k = `${t.src},${t.dst},${t.op}`;
      const m = messages.get(k) || { src: t.src, dst: t.dst, op: t.op, chunks: [], elements: 0 };
      m.chunks.push(t.chunk);
      m.elements += t.elements;
      messages.set(k, m);
    }
    return messages;
  }

  // From the rim of a's disc (radius r) to the rim of b's: ends, length, and the unit normal to
  // the right of travel.
  function segment(a, b, r) {
    const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
    const ux = dx / len, uy = dy / len;
    return { len, nx: uy, ny: -ux, sx: a.x + ux * r, sy: a.y + uy * r, ex: b.x - ux * r, ey: b.y - uy * r };
  }

  // The segment bowed `bend` to its right: a quadratic Bézier curve in `segs` pieces.
  function bow(line, bend, segs) {
    const { sx, sy, ex, ey } = line;
    const cx = (sx + ex) / 2 + line.nx * bend * 2, cy = (sy + ey) / 2 + line.ny * bend * 2;
    const xs = [], ys = [];
    for (let s = 0; s <= segs; s++) {
      const tt = s / segs, u = 1 - tt;
      xs.push(u * u * sx + 2 * u * tt * cx + tt * tt * ex);
      ys.push(u * u * sy + 2 * u * tt * cy + tt * tt * ey);
    }
    return { xs, ys };
  }

  // A chunk in flight along `line`.
  function addPacket(packets, line, color) {
    packets.x0.push(line.sx); packets.y0.push(line.sy); packets.x1.push(line.ex); packets.y1.push(line.ey);
    packets.color.push(color);
  }

  // The scatter trace of one group of arrows: dashed for a copy, solid for a reduce.
  function arrowTrace(grp, dense) {
    return {
      type: "scatter", mode: dense ? "lines" : "lines+markers", opacity: dense ? 0.35 : 1, x: grp.x, y: grp.y, hoverinfo: "text", text: grp.text,
      line: { color: grp.color, width: grp.width, dash: grp.op === "copy" ? "dash" : "solid" },
      marker: { size: grp.size, color: grp.color, symbol: "arrow", angleref: "previous", line: { width: 0 } },
    };
  }

  // The packets fly on axes of their own, laid exactly over the plot's: Plotly animates every
  // scatter trace on the axes of the traces it moves, so on the plot's own axes each frame of
  // a flight would rewrite every arrow, rank and label too.
  function withFlightAxes(layout) {
    return Object.assign({}, layout, {
      xaxis2: { overlaying: "x", matches: "x", visible: false, fixedrange: true },
      yaxis2: { overlaying: "y", matches: "y", visible: false, fixedrange: true },
    });
  }

  // An arrow trace with nothing in it: a slot this step does not use.
  function emptyArrows() { return { x: [], y: [], text: [], marker: { size: [] } }; }

  V.arrows = { addArrow, stretches, pieces, messagesOf, segment, bow, addPacket, arrowTrace, withFlightAxes, emptyArrows };
})(window);
