// The pieces of the topology view's arrows (CollectiveLab.views.arrows): a step's transfers
// grouped into messages, the polylines and packets drawn for them, and their SVG markup. Plain
// functions of their inputs; lab-topology.js decides where each arrow goes. Sizes are in nominal
// pixels (the picture's own, app/drawing/topology.py) times `px`, the plot units of one of them.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const V = CL.views;

  // One arrow: a polyline of its colour, op and width, with its head (a length in nominal
  // pixels, 0 for none) on the last point, and its hover text.
  function addArrow(arrows, style, xs, ys, head, hover) {
    arrows.push(Object.assign({}, style, { xs, ys, head, hover }));
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

  // From the rim of a's disc (radius r) to the rim of b's: ends, length, and a unit normal to
  // the travel (each direction of a pair bows to its own side).
  function segment(a, b, r) {
    const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
    const ux = dx / len, uy = dy / len;
    return { len, nx: uy, ny: -ux, sx: a.x + ux * r, sy: a.y + uy * r, ex: b.x - ux * r, ey: b.y - uy * r };
  }

  // The segment bowed `bend` to its side: a quadratic Bézier curve in `segs` pieces.
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
    packets.push({ x0: line.sx, y0: line.sy, x1: line.ex, y1: line.ey, color });
  }

  const num = (v) => Math.round(v * 1e4) / 1e4; // plot units to four decimals, as the server's

  // One arrow as an SVG group: its hover text as a <title>, the shaft (dashed for a copy, solid
  // for a reduce) and the head, a triangle whose tip is the polyline's last point.
  function arrowMarkup(a, px) {
    const n = a.xs.length - 1;
    const xs = a.xs.slice(), ys = a.ys.slice();
    const w = a.width * px;
    let head = "";
    if (a.head > 0) {
      const len = a.head * px, half = len * 0.42;
      const dx = xs[n] - xs[n - 1], dy = ys[n] - ys[n - 1], d = Math.hypot(dx, dy) || 1;
      const ux = dx / d, uy = dy / d, bx = xs[n] - ux * len, by = ys[n] - uy * len;
      head = `<path class="head" fill="${a.color}" d="M${num(xs[n])},${num(ys[n])}L${num(bx - uy * half)},${num(by + ux * half)}L${num(bx + uy * half)},${num(by - ux * half)}Z"/>`;
      xs[n] -= ux * len * 0.6; ys[n] -= uy * len * 0.6; // the shaft ends under the head
    }
    const d = "M" + xs.map((x, i) => `${num(x)},${num(ys[i])}`).join("L");
    const dash = a.op === "copy" ? ` stroke-dasharray="${num(Math.max(3, 3 * a.width) * px)} ${num(Math.max(3, 2.4 * a.width) * px)}"` : "";
    return `<g class="arrow" data-op="${a.op}" stroke="${a.color}"><title>${CL.escapeHtml(a.hover)}</title>`
      + `<path class="shaft" d="${d}" stroke-width="${num(w)}"${dash}/>${head}</g>`;
  }

  // The packets of a flight at their senders, as HTML dots over the picture: `at(x, y)` is a
  // point of the picture in the layer's pixels.
  function packetMarkup(packets, at) {
    return packets.map((p) => {
      const [left, top] = at(p.x0, p.y0);
      return `<i style="left:${left.toFixed(1)}px;top:${top.toFixed(1)}px;background:${p.color}"></i>`;
    }).join("");
  }

  V.arrows = { addArrow, stretches, pieces, messagesOf, segment, bow, addPacket, arrowMarkup, packetMarkup };
})(window);
