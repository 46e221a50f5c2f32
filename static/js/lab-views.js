// The lab's views of one run, drawn with Plotly: topology with this step's transfers, the
// rank × chunk buffer grid, link traffic, bytes per rank, the cell inspector and the legend.
//
// Views draw the LabRun's state at its cursor; they compute nothing the engine is the authority
// for. Arrows are grouped into a few scatter traces (colour × op × width), not annotations, so
// 64 ranks with thousands of transfers stay fast; static traces keep their arrays so Plotly.react
// has little to diff, and the buffer grid is updated only in the cells that changed.
(function (global) {
  "use strict";
  const P = global.Palette;
  const CONFIG = { displayModeBar: false, responsive: true, scrollZoom: false, doubleClick: false };
  const FAN = 4; // a message of more chunks is one neutral arrow (Palette.manyChunks)
  const TITLE_SIZE = 13; // px, the tree titles
  const ROUND = new Set(["ring", "circulant", "complete", undefined]); // ranks on a circle
  const MIN_ARROW_PX = 28; // shorter than this between two ranks, an arrow reads as a bow-tie
  const RUN_PX = 56; // an arrow along the circle covers at least this much of it
  const GAP_PX = 3; // between two arrows along the circle

  // ---- small helpers ---------------------------------------------------------------------
  function cssVar(name) {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  }
  function theme() {
    const name = document.documentElement.dataset.theme === "dark" ? "dark" : "light";
    return {
      name, rank: P.rankTone(name),
      fg: cssVar("--fg") || "#1c1d21", muted: cssVar("--muted") || "#5b5f6a",
      line: cssVar("--line") || "#d9dbe0", panel: cssVar("--panel") || "#fff",
      accent: cssVar("--accent") || "#0b5cad", font: cssVar("--font") || "sans-serif",
    };
  }
  function baseLayout(t) {
    // Chart text follows the page's type size (larger on projectors, smaller on phones).
    const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 17;
    return {
      paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
      font: { family: t.font, color: t.fg, size: Math.round(rem * 0.76) },
      margin: { l: 8, r: 8, t: 8, b: 8 }, showlegend: false, dragmode: false,
      hovermode: "closest", hoverlabel: { font: { family: t.font, size: 13 } },
    };
  }
  function range(n) { return Array.from({ length: n }, (_, i) => i); }
  let measurer = null;
  function textWidth(text, size, font) {
    measurer = measurer || document.createElement("canvas").getContext("2d");
    measurer.font = `${size}px ${font}`;
    return measurer.measureText(text).width;
  }
  function isDisplayed(el) {
    if (!el.isConnected || !el.clientWidth || !el.clientHeight) return false;
    const display = getComputedStyle(el).display;
    return display !== "" && display !== "none";
  }
  // Label every k-th row or column, k a power of two, so at most `most` labels show.
  function tickStep(n, most) { let k = 1; while (n / k > most) k *= 2; return k; }
  function formatBytes(b) {
    if (b === null || b === undefined || !isFinite(b)) return "–";
    const abs = Math.abs(b);
    if (abs < 1000) return `${Math.round(b)} B`;
    if (abs < 1e6) return `${(b / 1e3).toPrecision(3)} kB`;
    if (abs < 1e9) return `${(b / 1e6).toPrecision(3)} MB`;
    return `${(b / 1e9).toPrecision(3)} GB`;
  }
  function formatValue(v) {
    if (v === null || v === undefined) return "non-finite";
    if (Number.isInteger(v) && Math.abs(v) < 1e7) return v.toFixed(1);
    if (Math.abs(v) >= 1e7 || (v !== 0 && Math.abs(v) < 1e-3)) return v.toExponential(3);
    return String(Number(v.toPrecision(6)));
  }
  // "r0+r1+r2", or with runs folded once the list is long: "r0…r15+r32…r47 (32 of 64)".
  function holderList(holders, p) {
    if (!holders || !holders.length) return "empty";
    if (holders.length <= 6) return holders.map((r) => `r${r}`).join("+");
    const runs = [];
    let a = holders[0], b = a;
    for (let i = 1; i <= holders.length; i++) {
      const h = holders[i];
      if (h === b + 1) { b = h; continue; }
      runs.push(a === b ? `r${a}` : b === a + 1 ? `r${a}+r${b}` : `r${a}…r${b}`);
      a = b = h;
    }
    const text = runs.length > 6 ? runs.slice(0, 5).join("+") + "+…" : runs.join("+");
    return `${text} (${holders.length} of ${p})`;
  }
  // What the engine's catalog says of the run's collective, from the page's lab-config.
  let catalog = null;
  function collectiveEntry(run) {
    catalog = catalog || JSON.parse(document.getElementById("lab-config").textContent).catalog;
    return catalog.find((e) => e.collective === run.start.collective);
  }
  function chunkColor(c, t) { return P.chunkColor(c, t.name); }
  function chunkBytes(run, c) { return (run.chunks[c][1] - run.chunks[c][0]) * run.itemsize; }
  function reduces(run) { return collectiveEntry(run).reduces; }
  function isAllToAll(run) { return run.start.collective === "all_to_all"; }

  // ---- geometry: where each rank sits, per topology kind (docs/engine.md § Topology) --------
  function circle(order, radius) {
    const n = order.length, pos = [];
    order.forEach((rank, i) => {
      const a = (2 * Math.PI * i) / n;
      pos[i] = { rank, x: radius * Math.sin(a), y: radius * Math.cos(a) };
    });
    return pos;
  }
  function ringEdges(n) { return n < 2 ? [] : range(n).map((i) => [i, (i + 1) % n]); }

  function treeLayout(parent, p) {
    const children = range(p).map(() => []);
    const roots = [];
    parent.forEach((q, r) => (q >= 0 && q < p && q !== r ? children[q].push(r) : roots.push(r)));
    const x = new Array(p), depth = new Array(p), seen = new Set();
    let leaf = 0, maxDepth = 0;
    function visit(r, d) {
      if (seen.has(r)) return;
      seen.add(r);
      depth[r] = d;
      maxDepth = Math.max(maxDepth, d);
      const kids = children[r].filter((c) => !seen.has(c));
      if (!kids.length) { x[r] = leaf++; return; }
      kids.forEach((c) => visit(c, d + 1));
      x[r] = (x[kids[0]] + x[kids[kids.length - 1]]) / 2;
    }
    roots.forEach((r) => visit(r, 0));
    range(p).forEach((r) => visit(r, 0)); // anything a cycle left out
    return { x, depth, width: Math.max(leaf, 1), maxDepth };
  }

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

  const CUBE = [[1, 0], [0, -1], [0.5, 0.42]];

  // Grid spots for `count` things in ring order, so that neighbours on the ring, the last and
  // the first included, sit side by side: along the top row, back and forth over the other
  // columns (a comb), and up the first column to the start. At most `maxCols` per row.
  // A grid with spots to spare leaves them on the way back up, under the closing link.
  function ringSpots(count, maxCols) {
    if (count <= 2) return { cols: Math.max(count, 1), rows: 1, spots: range(count).map((i) => ({ col: i, row: 0 })) };
    let rows = Math.ceil(count / Math.max(2, maxCols));
    rows += rows % 2; // the comb closes only over an even number of rows
    const cols = Math.max(2, Math.ceil(count / rows));
    const path = range(cols).map((col) => ({ col, row: 0 }));
    for (let row = 1; row < rows; row++) {
      const along = range(cols - 1).map((i) => i + 1);
      if (row % 2) along.reverse();
      for (const col of along) path.push({ col, row });
    }
    const back = [];
    for (let row = rows - 1; row >= 1; row--) back.push({ col: 0, row });
    const spare = rows * cols - count;
    return { cols, rows, spots: path.concat(back.slice(spare)) };
  }

  // `aspect`: the plot's width / height, so wide trees can be stacked and spread to fit.
  function geometry(run, aspect) {
    const topo = run.start.layout.topology || { kind: "complete" };
    const p = run.p;
    const geo = {
      kind: topo.kind, nodes: [], edges: [], foldEdges: [], boxes: [], labels: [],
      unit: 1, nodeOf: (rank) => rank, linkKind: () => null,
    };
    const order = (topo.order && topo.order.length === p) ? topo.order : range(p);
    if (topo.kind === "ring" || topo.kind === "circulant" || topo.kind === "complete" || !topo.kind) {
      const nodes = circle(order, 1);
      geo.nodes = nodes;
      geo.unit = p > 1 ? 2 * Math.sin(Math.PI / p) : 1;
      const at = new Map(nodes.map((n, i) => [n.rank, i]));
      geo.nodeOf = (rank) => at.get(rank);
      if (topo.kind !== "complete" || p <= 8) {
        geo.edges = topo.kind === "complete"
          ? range(p).flatMap((i) => range(p).filter((j) => j > i).map((j) => [i, j]))
          : ringEdges(p);
      }
    } else if (topo.kind === "chain") {
      const row = p <= 12 ? p : 8;
      order.forEach((rank, i) => {
        const r = Math.floor(i / row), c = i % row;
        geo.nodes.push({ rank, x: r % 2 ? row - 1 - c : c, y: -r * 1.1 });
      });
      const at = new Map(geo.nodes.map((n, i) => [n.rank, i]));
      geo.nodeOf = (rank) => at.get(rank);
      geo.edges = range(p - 1).map((i) => [i, i + 1]);
    } else if (topo.kind === "tree" || topo.kind === "trees") {
      const parents = topo.kind === "tree" ? [topo.parent] : topo.parents;
      const lays = parents.map((parent) => treeLayout(parent, p));
      const width = Math.max(...lays.map((l) => l.width)), levels = Math.max(...lays.map((l) => l.maxDepth + 1));
      // Two trees side by side while they are narrow, one above the other once they are wide.
      const stacked = parents.length > 1 && width > 8;
      const across = stacked ? 1 : parents.length, down = stacked ? parents.length : 1;
      const dy = Math.max(1.2, (across * width) / (aspect * down * levels));
      let dx = 0, top = 0;
      parents.forEach((parent, t) => {
        const lay = lays[t];
        const base = geo.nodes.length;
        range(p).forEach((r) => geo.nodes.push({ rank: r, x: dx + lay.x[r], y: top - lay.depth[r] * dy, tree: t }));
        parent.forEach((q, r) => { if (q >= 0 && q < p && q !== r) geo.edges.push([base + r, base + q]); });
        if (parents.length > 1) {
          // A title beside its root, where the row is empty (TopologyView places it in pixels).
          const root = range(p).find((r) => !(parent[r] >= 0 && parent[r] < p && parent[r] !== r));
          geo.labels.push({ text: `tree ${t + 1}`, left: dx, root: { x: dx + lay.x[root], y: top } });
        }
        if (stacked) top -= (lay.maxDepth + 1) * dy + dy * 0.6;
        else dx += lay.width + 1.5;
      });
      const inTree = (t, a, b) => parents[t][a] === b || parents[t][b] === a;
      geo.nodeOf = (rank, peer) => {
        for (let t = 0; t < parents.length; t++) if (inTree(t, rank, peer)) return t * p + rank;
        return rank;
      };
    } else if (topo.kind === "hypercube") {
      const folded = topo.folded || {};
      const extras = new Set(Object.keys(folded).map(Number));
      const members = range(p).filter((r) => !extras.has(r));
      const dims = Math.round(Math.log2(Math.max(1, members.length)));
      // Three bits draw a cube (right, down, and a diagonal for depth); each further three
      // bits repeat the cube three times larger and turned 30°, so no link runs over a node.
      const spot = (i) => {
        let x = 0, y = 0;
        for (let d = 0; d < dims; d++) {
          if (!((i >> d) & 1)) continue;
          const level = Math.floor(d / 3), [bx, by] = CUBE[d % 3];
          const s = Math.pow(3, level), a = (level * Math.PI) / 6;
          x += s * (bx * Math.cos(a) - by * Math.sin(a));
          y += s * (bx * Math.sin(a) + by * Math.cos(a));
        }
        return { x, y };
      };
      const idx = new Map();
      members.forEach((r, i) => { idx.set(r, geo.nodes.length); geo.nodes.push({ rank: r, ...spot(i) }); });
      members.forEach((r, i) => {
        for (let d = 0; d < dims; d++) {
          const j = i ^ (1 << d);
          if (j > i && j < members.length) geo.edges.push([idx.get(r), idx.get(members[j])]);
        }
      });
      for (const [extra, partner] of Object.entries(folded)) {
        const q = geo.nodes[idx.get(Number(partner))];
        idx.set(Number(extra), geo.nodes.length);
        geo.nodes.push({ rank: Number(extra), x: q.x, y: q.y + 0.5 });
        geo.foldEdges.push([idx.get(Number(extra)), idx.get(Number(partner))]);
      }
      geo.unit = extras.size ? 0.45 : 0.62;
      geo.nodeOf = (rank) => idx.get(rank);
    } else if (topo.kind === "hierarchical") {
      // Both rings (local ranks around each node, nodes around the cluster) are laid out so
      // ring neighbours, the last and the first included, sit side by side.
      const g = topo.ranks_per_node || p, n = topo.nodes || Math.ceil(p / g);
      const inner = ringSpots(g, g <= 4 ? 2 : g <= 8 ? 4 : Math.ceil(Math.sqrt(g)));
      const outer = ringSpots(n, Math.ceil(Math.sqrt(n)));
      const boxW = inner.cols + 0.4, boxH = inner.rows + 0.6, gap = 1.0;
      outer.spots.forEach(({ col, row }, node) => {
        const bx = col * (boxW + gap), by = -row * (boxH + gap);
        geo.boxes.push({ x0: bx - 0.7, x1: bx - 0.7 + boxW, y0: by + 0.7 - boxH, y1: by + 0.7, label: `node ${node}` });
        inner.spots.forEach((spot, l) => {
          if (node * g + l < p) geo.nodes.push({ rank: node * g + l, x: bx + spot.col, y: by - spot.row });
        });
      });
      geo.linkKind = (a, b) => (Math.floor(a / g) === Math.floor(b / g) ? "intra" : "inter");
    }
    return geo;
  }

  // ---- topology view ---------------------------------------------------------------------
  class TopologyView {
    constructor(el) { this.el = el; this.run = null; }

    reset(run) {
      this.run = run;
      this.t = theme();
      const w = Math.max(200, this.el.clientWidth), h = Math.max(200, this.el.clientHeight);
      this.geo = geometry(run, w / h);
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
      this.layout = Object.assign(baseLayout(t), {
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
      this.drawn = null;
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
      const round = ["ring", "circulant", "complete", undefined].includes(g.kind);
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

    _arrows(cursor) {
      const run = this.run, g = this.geo, p = run.p;
      const groups = new Map();
      const packets = { x0: [], y0: [], x1: [], y1: [], color: [] };
      if (cursor < 0) return { traces: [], packets };
      const transfers = run.steps[cursor].transfers;
      const messages = new Map();
      for (const t of transfers) {
        const k = `${t.src},${t.dst},${t.op}`;
        const m = messages.get(k) || { src: t.src, dst: t.dst, op: t.op, chunks: [], elements: 0 };
        m.chunks.push(t.chunk);
        m.elements += t.elements;
        messages.set(k, m);
      }
      const r = (this.nodePx / 2 + 3) / this.pxPerUnit;
      // Hundreds of messages at once (an all-port step): thin, translucent lines, no heads.
      const dense = messages.size > 300;
      const segs = transfers.length > 800 ? 1 : transfers.length > 200 ? 3 : 8;
      const thin = p > 32 ? 1.4 : 2.2;
      const round = ROUND.has(g.kind) && !dense;
      const short = [];
      for (const m of messages.values()) {
        const a = g.nodes[g.nodeOf(m.src, m.dst)], b = g.nodes[g.nodeOf(m.dst, m.src)];
        if (!a || !b) continue;
        const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
        const ux = dx / len, uy = dy / len, nx = uy, ny = -ux; // normal: right of travel
        const sx = a.x + ux * r, sy = a.y + uy * r, ex = b.x - ux * r, ey = b.y - uy * r;
        // Too short to read between two neighbours on a circle: drawn along the circle, with
        // its neighbours' arrows, by _ringArrows.
        if (round && (len - 2 * r) * this.pxPerUnit < MIN_ARROW_PX) {
          short.push(m);
          for (const chunk of m.chunks.slice(0, FAN)) {
            packets.x0.push(sx); packets.y0.push(sy); packets.x1.push(ex); packets.y1.push(ey);
            packets.color.push(chunkColor(chunk, this.t));
          }
          continue;
        }
        const kind = g.linkKind(m.src, m.dst);
        const width = dense ? 0.7 : kind === "inter" ? 3.2 : kind === "intra" ? 1.3 : thin;
        const fan = m.chunks.length <= FAN ? m.chunks : [null];
        const bytes = m.elements * run.itemsize;
        fan.forEach((chunk, i) => {
          const color = chunk === null ? P.manyChunks(this.t.name) : chunkColor(chunk, this.t);
          const what = chunk === null
            ? `${m.chunks.length} chunks (${m.chunks.slice(0, 8).map(P.chunkLabel).join(", ")}${m.chunks.length > 8 ? ", …" : ""})`
            : `chunk ${P.chunkLabel(chunk)}`;
          const hover = `r${m.src} → r${m.dst} · ${what} · ${m.op}${kind ? ` · ${kind}-node` : ""} · ${formatBytes(chunk === null ? bytes : chunkBytes(run, chunk))}`;
          const bend = Math.min(0.1 * len, 0.3 * g.unit) + 0.12 * g.unit * i;
          const cx = (sx + ex) / 2 + nx * bend * 2, cy = (sy + ey) / 2 + ny * bend * 2;
          const xs = [], ys = [];
          for (let s = 0; s <= segs; s++) {
            const tt = s / segs, u = 1 - tt;
            xs.push(u * u * sx + 2 * u * tt * cx + tt * tt * ex);
            ys.push(u * u * sy + 2 * u * tt * cy + tt * tt * ey);
          }
          const head = dense ? 0 : Math.max(8, Math.min(14, width * 3.2 + 4));
          addArrow(groups, { color, op: m.op, width }, xs, ys, head, hover);
          packets.x0.push(sx); packets.y0.push(sy); packets.x1.push(ex); packets.y1.push(ey);
          packets.color.push(color);
        });
      }
      if (short.length) this._ringArrows(short, groups);
      const traces = [...groups.values()].map((grp) => ({
        type: "scatter", mode: dense ? "lines" : "lines+markers", opacity: dense ? 0.35 : 1, x: grp.x, y: grp.y, hoverinfo: "text", text: grp.text,
        line: { color: grp.color, width: grp.width, dash: grp.op === "copy" ? "dash" : "solid" },
        marker: { size: grp.size, color: grp.color, symbol: "arrow", angleref: "previous", line: { width: 0 } },
      }));
      return { traces, packets };
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
      const colors = new Set(chunks.map((c) => chunkColor(c, this.t)));
      const color = colors.size === 1 ? [...colors][0] : P.manyChunks(this.t.name);
      const path = Math.abs(way.d) === 1
        ? [piece[0].src, ...piece.map((m) => m.dst)].map((q) => `r${q}`).join(" → ")
        : piece.map((m) => `r${m.src} → r${m.dst}`).join(", ");
      const labels = chunks.slice(0, 16).map(P.chunkLabel).join(", ") + (chunks.length > 16 ? ", …" : "");
      const bytes = piece.reduce((sum, m) => sum + m.elements * run.itemsize, 0);
      const hover = `${path} · ${piece.length} transfer${piece.length > 1 ? "s" : ""} · chunk${chunks.length > 1 ? "s" : ""} ${labels} · ${way.op} · ${formatBytes(bytes)}`;
      addArrow(groups, { color, op: way.op, width: 2.2 }, xs, ys, 12, hover);
    }

    // Draw the run at its cursor; with `flightMs`, chunks fly from sender to receiver.
    async render(flightMs, onDrawn) {
      const run = this.run;
      const { traces, packets } = this._arrows(run.cursor);
      const fly = flightMs > 0 && packets.x0.length > 0 && packets.x0.length <= 1200;
      const packetTrace = {
        type: "scatter", mode: "markers", hoverinfo: "skip",
        x: fly ? packets.x0 : [], y: fly ? packets.y0 : [],
        marker: { color: packets.color, size: Math.max(7, Math.min(13, this.nodePx * 0.5)), line: { color: this.t.fg, width: 1 } },
      };
      const data = [this.edgeTrace, this.foldTrace, ...traces, this.nodeTrace, this.labelTrace, packetTrace];
      await global.Plotly.react(this.el, data, this.layout, CONFIG);
      this.drawn = run.cursor;
      if (onDrawn) onDrawn(run.cursor);
      if (fly) {
        await global.Plotly.animate(
          this.el,
          { data: [{ x: packets.x1, y: packets.y1 }], traces: [data.length - 1] },
          { transition: { duration: flightMs, easing: "cubic-in-out" }, frame: { duration: flightMs, redraw: false }, mode: "immediate" },
        );
        // Landed: clear the packets so the arrowheads show while the step is on screen.
        await global.Plotly.restyle(this.el, { x: [[]], y: [[]] }, [data.length - 1]);
      }
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

  // ---- buffer view: rank × chunk (or rank × destination for all_to_all) ---------------------
  class BufferView {
    constructor(el, onSelect) {
      this.el = el;
      this.onSelect = onSelect;
      this.selected = null;
      this.bound = false;
    }

    reset(run) {
      this.run = run;
      this.t = theme();
      const p = run.p;
      this.a2a = isAllToAll(run);
      this.cols = this.a2a ? p : run.C;
      this.zmax = reduces(run) || this.a2a ? p : 1;
      this.z = range(p).map(() => new Array(this.cols).fill(null));
      this.text = range(p).map(() => new Array(this.cols).fill(""));
      for (let r = 0; r < p; r++) for (let c = 0; c < this.cols; c++) this._cell(r, c);
      this.goal = this._goal();
      this.selected = null;
      const t = this.t, cols = this.cols;
      const every = tickStep(cols, 16), everyR = tickStep(p, 24);
      const colLabel = (c) => (this.a2a ? `→r${c}` : P.chunkLabel(c));
      const small = p > 16 || cols > 24;
      this.trace = {
        type: "heatmap", x: range(cols), y: range(p), z: this.z, text: this.text,
        hoverinfo: "text", hoverongaps: false, colorscale: P.COUNT_SCALE, zmin: 0, zmax: this.zmax,
        xgap: cols <= 32 ? 2 : 0, ygap: p <= 32 ? 2 : 0,
        texttemplate: !small && this.zmax > 1 ? "%{z}" : "", textfont: { size: 12 },
        showscale: this.zmax > 1,
        colorbar: {
          thickness: 12, len: 0.9, outlinewidth: 0, tickfont: { size: 11 },
          title: { text: this.a2a ? "blocks<br>arrived" : "k of p", side: "top", font: { size: 12 } },
          tickvals: [0, this.zmax / 2, this.zmax].filter((v, i, a) => a.indexOf(v) === i),
        },
      };
      this.layout = Object.assign(baseLayout(t), {
        margin: { l: 54, r: 10, t: 30, b: 10 },
        xaxis: {
          side: "top", tickvals: range(cols).filter((c) => c % every === 0),
          ticktext: range(cols).filter((c) => c % every === 0).map(colLabel),
          fixedrange: true, showgrid: false, zeroline: false, tickfont: { size: cols > 16 ? 10 : 12 }, tickangle: 0,
        },
        yaxis: {
          autorange: "reversed", tickvals: range(p).filter((r) => r % everyR === 0),
          ticktext: range(p).filter((r) => r % everyR === 0).map((r) => `r${r}`),
          fixedrange: true, showgrid: false, zeroline: false, tickfont: { size: p > 16 ? 10 : 12 },
        },
      });
    }

    _label(c) { return this.a2a ? `blocks for r${c}` : `chunk ${P.chunkLabel(c)}`; }

    _cell(r, c) {
      const run = this.run, p = run.p;
      if (this.a2a) {
        const from = [];
        for (let s = 0; s < p; s++) {
          const cell = run.cell(r, s * p + c);
          if (cell && cell.holders.length) from.push(s);
        }
        this.z[r][c] = from.length ? from.length : null;
        this.text[r][c] = `rank ${r}, ${this._label(c)}: ${from.length ? "from " + from.map((s) => `r${s}`).slice(0, 12).join(", ") + (from.length > 12 ? ", …" : "") : "none yet"} (${from.length} of ${p})`;
        return;
      }
      const cell = run.cell(r, c);
      const holders = cell ? cell.holders : [];
      this.z[r][c] = holders.length ? (this.zmax > 1 ? holders.length : 1) : null;
      this.text[r][c] = `rank ${r}, ${this._label(c)}: ${holderList(holders, p)}`;
    }

    // Cells where the result must end, outlined; none when every cell ends complete.
    _goal() {
      const run = this.run, p = run.p, col = run.start.collective, root = run.start.root;
      if (this.a2a) return range(p).map((r) => [r, r]);
      if (col === "reduce" || col === "gather") return range(this.cols).map((c) => [root, c]);
      const dest = run.start.layout.chunk_dest || [];
      if (dest.some((d) => d !== null && d !== undefined)) return dest.map((d, c) => [d, c]).filter(([d]) => d !== null);
      if (col === "sendrecv") return range(p).filter((r) => r !== 0).flatMap((r) => range(this.cols).map((c) => [r, c]));
      return [];
    }

    _rect(r, c, line) {
      return { type: "rect", x0: c - 0.5, x1: c + 0.5, y0: r - 0.5, y1: r + 0.5, line, fillcolor: "rgba(0,0,0,0)" };
    }

    update(changed) {
      const run = this.run, p = run.p;
      const rows = new Set();
      for (const key of changed) {
        const r = Math.floor(key / run.C), chunk = key % run.C;
        const c = this.a2a ? chunk % p : chunk;
        this._cell(r, c);
        rows.add(r);
      }
      if (rows.size) {
        this.z = this.z.map((row, r) => (rows.has(r) ? row.slice() : row));
        this.text = this.text.map((row, r) => (rows.has(r) ? row.slice() : row));
      }
    }

    async render() {
      const run = this.run, t = this.t, p = run.p;
      const shapes = [];
      if (this.goal.length <= 256) {
        for (const [r, c] of this.goal) shapes.push(this._rect(r, c, { color: t.muted, width: 1.5, dash: "dot" }));
      }
      const updates = run.cursor >= 0 ? run.steps[run.cursor].state : [];
      // Outline what this step changed, unless it changed so much that outlines say nothing.
      if (updates.length && updates.length <= Math.max(16, (p * this.cols) / 4)) {
        const seen = new Set();
        for (const u of updates) {
          const c = this.a2a ? u.chunk % p : u.chunk;
          const k = u.rank * this.cols + c;
          if (seen.has(k)) continue;
          seen.add(k);
          if (seen.size > 256) break;
          shapes.push(this._rect(u.rank, c, { color: t.accent, width: 2.5 }));
        }
      }
      if (this.selected) {
        const [r, c] = this.selected;
        shapes.push(this._rect(r, c, { color: t.fg, width: 3 }));
      }
      const trace = Object.assign({}, this.trace, { z: this.z, text: this.text });
      const layout = Object.assign({}, this.layout, { shapes });
      await global.Plotly.react(this.el, [trace], layout, CONFIG);
      if (!this.bound) {
        this.bound = true;
        this.el.on("plotly_click", (ev) => {
          const pt = ev.points && ev.points[0];
          if (!pt || !pt.pointNumber) return;
          const [r, c] = pt.pointNumber;
          this.onSelect(r, c);
        });
      }
    }
  }

  // ---- inspector: the real numbers of one cell, and how they were formed ----------------------
  const SYMBOL = { sum: "+", avg: "+", prod: "×" };

  class Inspector {
    constructor(el, onPick) {
      this.el = el;
      this.onPick = onPick;
      this.sel = null;
    }

    reset(run) {
      this.run = run;
      this.sel = null;
      this.el.innerHTML = "";
      const a2a = isAllToAll(run);
      const pick = document.createElement("div");
      pick.className = "inspect-pick";
      pick.innerHTML = `<label>rank <select data-role="pick-rank" aria-label="Rank to inspect"></select></label>
        <label>${a2a ? "blocks for" : "chunk"} <select data-role="pick-col" aria-label="${a2a ? "Destination rank" : "Chunk"} to inspect"></select></label>`;
      const rs = pick.querySelector('[data-role="pick-rank"]'), cs = pick.querySelector('[data-role="pick-col"]');
      range(run.p).forEach((r) => rs.add(new Option(`r${r}`, r)));
      range(a2a ? run.p : run.C).forEach((c) => cs.add(new Option(a2a ? `r${c}` : P.chunkLabel(c), c)));
      const pickNow = () => this.onPick(Number(rs.value), Number(cs.value));
      rs.addEventListener("change", pickNow);
      cs.addEventListener("change", pickNow);
      this.rankSelect = rs;
      this.colSelect = cs;
      this.body = document.createElement("div");
      this.body.className = "inspect-body";
      this.body.innerHTML = '<p class="muted">Click a cell of the buffer grid, or pick a rank and a chunk above.</p>';
      this.el.append(pick, this.body);
    }

    show(r, c, pinned) {
      this.sel = [r, c];
      this.pinned = pinned;
      this.rankSelect.value = r;
      this.colSelect.value = c;
      this.render();
    }

    render() {
      if (!this.sel || !this.run) return;
      const [r, c] = this.sel, run = this.run;
      const when = run.cursor < 0 ? "before the first step" : `after step ${run.cursor + 1}`;
      const follow = this.pinned ? "" : '<p class="muted small follow">Following what each step changes; click a cell to keep one.</p>';
      this.body.innerHTML = (isAllToAll(run) ? this._allToAll(r, c, when) : this._chunk(r, c, when)) + follow;
    }

    _chunk(r, c, when) {
      const run = this.run, p = run.p, op = run.start.op;
      const cell = run.cell(r, c);
      const holders = cell ? cell.holders : [];
      const [start, stop] = run.chunks[c];
      const esc = escapeHtml;
      const head = `<p class="inspect-head"><strong>rank ${r} · chunk ${esc(P.chunkLabel(c))}</strong>
        <span class="badge ${holders.length === (reduces(run) ? p : 1) ? "ok" : "pending"}" title="contributions held">${holders.length}/${reduces(run) ? p : 1}</span>
        <span class="muted">${when} · ${stop - start === 1 ? `element ${start}` : `elements ${start}–${stop - 1}`}</span></p>`;
      if (!holders.length) return head + `<p>Rank ${r} does not hold chunk ${esc(P.chunkLabel(c))} yet.</p>`;
      const values = (cell.values || []);
      if (!values.length) return head + "<p class=\"muted\">Values are not sent for runs this large.</p>";
      const n = stop - start;
      const shown = values.length < n ? `the first ${values.length} of ${n} values were` : n === 1 ? "its value was" : `its ${n} values were`;
      const lines = values.map((v, i) => `<li><code>${esc(this._formation(v, i, holders, c, r))}</code></li>`).join("");
      let note = "";
      if (op === "avg" && reduces(run)) {
        note = `<p class="muted small">avg: the transfers add; each rank divides by p = ${p} once at the end, so the output is this sum ÷ ${p}.</p>`;
      }
      return head + `<p class="small">How ${shown} formed:</p><ol class="formation">${lines}</ol>${note}`;
    }

    _formation(v, i, holders, c, r) {
      const run = this.run, op = run.start.op;
      const initial = (s) => {
        const cell = run.initial.get(run.key(s, c));
        return cell && cell.values ? cell.values[i] : undefined;
      };
      if (holders.length === 1) {
        const s = holders[0];
        return `${formatValue(v)} = ${s === r ? "its own input" : `r${s}'s input, copied`}${s !== r && initial(s) !== undefined ? ` (${formatValue(initial(s))})` : ""}`;
      }
      const terms = holders.map((s) => `${initial(s) === undefined ? "?" : formatValue(initial(s))} (r${s})`);
      const shown = terms.length > 8 ? [...terms.slice(0, 6), "…", terms[terms.length - 1]] : terms;
      const count = terms.length > 8 ? `   [${terms.length} terms]` : "";
      if (SYMBOL[op]) return `${formatValue(v)} = ${shown.join(` ${SYMBOL[op]} `)}${count}`;
      return `${formatValue(v)} = ${op}(${shown.join(", ")})${count}`;
    }

    _allToAll(r, d, when) {
      const run = this.run, p = run.p;
      const rows = [];
      for (let s = 0; s < p; s++) {
        const cell = run.cell(r, s * p + d);
        if (cell && cell.holders.length) {
          rows.push(`<li>from r${s}: <code>${(cell.values || []).map(formatValue).join("  ")}</code></li>`);
        }
      }
      const SHOW = 12;
      const list = rows.length > SHOW ? [...rows.slice(0, SHOW), `<li class="muted">and ${rows.length - SHOW} more blocks</li>`] : rows;
      const head = `<p class="inspect-head"><strong>rank ${r} · blocks meant for r${d}</strong>
        <span class="badge ${rows.length === p && r === d ? "ok" : "pending"}">${rows.length}/${p}</span>
        <span class="muted">${when}</span></p>`;
      const role = r === d ? `Rank ${r} is their destination: it needs all ${p}.`
        : `Rank ${r} is not their destination: it holds them as their sender or in passing.`;
      const why = `<p class="muted small">Block s·p+d is what rank s sends to rank d. ${role}</p>`;
      return head + (rows.length ? `<ul class="formation">${list.join("")}</ul>` : "<p>None yet.</p>") + why;
    }
  }

  function escapeHtml(s) {
    return String(s).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[ch]));
  }

  // ---- link traffic: p × p bytes per link, and bytes per rank against the formula ------------
  class TrafficView {
    constructor(el, barsEl) {
      this.el = el;
      this.barsEl = barsEl;
      this.mode = "step";
    }

    reset(run) {
      this.run = run;
      this.t = theme();
      const p = run.p, t = this.t;
      const every = tickStep(p, 16);
      const ticks = range(p).filter((r) => r % every === 0);
      this.layout = Object.assign(baseLayout(t), {
        margin: { l: 54, r: 10, t: 34, b: 10 },
        xaxis: { side: "top", title: { text: "to rank", font: { size: 12 } }, tickvals: ticks, ticktext: ticks.map((r) => `r${r}`), fixedrange: true, showgrid: false, zeroline: false },
        yaxis: { autorange: "reversed", tickvals: ticks, ticktext: ticks.map((r) => `r${r}`), fixedrange: true, showgrid: false, zeroline: false },
      });
      this.barLayout = Object.assign(baseLayout(t), {
        margin: { l: 54, r: 10, t: 22, b: 30 }, // the top margin holds the formula's legend
        bargap: p > 32 ? 0.05 : 0.2,
        xaxis: { tickvals: ticks, ticktext: ticks.map((r) => `r${r}`), fixedrange: true, showgrid: false, tickfont: { size: 10 } },
        yaxis: { title: { text: "sent so far", font: { size: 12 } }, fixedrange: true, gridcolor: t.line, rangemode: "tozero" },
      });
      this.scanned = 0; // steps whose traffic is in stepMax and totals
      this.stepMax = 1;
      this.totals = new Float64Array(p * p);
    }

    // Fix the colour range over every step received, so a colour means the same bytes throughout.
    _scan() {
      const run = this.run;
      for (; this.scanned < run.received; this.scanned++) {
        for (const [k, link] of run.stepLinks(this.scanned)) {
          this.stepMax = Math.max(this.stepMax, link.bytes);
          this.totals[k] += link.bytes;
        }
      }
    }

    async render() {
      const run = this.run, p = run.p;
      this._scan();
      const z = range(p).map(() => new Array(p).fill(null));
      const text = range(p).map(() => new Array(p).fill(""));
      if (this.mode === "step") {
        for (const [k, link] of run.stepLinks(run.cursor)) {
          const s = Math.floor(k / p), d = k % p;
          z[s][d] = link.bytes;
          text[s][d] = `r${s} → r${d}: ${formatBytes(link.bytes)} in this step (${link.chunks} chunk${link.chunks > 1 ? "s" : ""})`;
        }
      } else {
        for (let s = 0; s < p; s++) for (let d = 0; d < p; d++) {
          const b = run.linkBytes[s * p + d];
          if (b > 0) { z[s][d] = b; text[s][d] = `r${s} → r${d}: ${formatBytes(b)} so far`; }
        }
      }
      const heat = {
        type: "heatmap", z, text, hoverinfo: "text", hoverongaps: false, x: range(p), y: range(p),
        colorscale: P.COUNT_SCALE, zmin: 0, xgap: p <= 32 ? 1 : 0, ygap: p <= 32 ? 1 : 0,
        zmax: this.mode === "step" ? this.stepMax : Math.max(1, ...this.totals),
        colorbar: { thickness: 12, len: 0.9, outlinewidth: 0, title: { text: "bytes", side: "top", font: { size: 12 } }, tickfont: { size: 11 } },
      };
      const work = [global.Plotly.react(this.el, [heat], this.layout, CONFIG)];
      if (this.barsEl) work.push(this._bars());
      await Promise.all(work);
    }

    _bars() {
      const run = this.run, p = run.p, t = this.t;
      const expected = run.start.expected_bytes_per_rank;
      const sent = Array.from(run.rankBytes);
      const final = run.done ? Math.max(...run.done.bytes_sent) : 0;
      const formula = Array.isArray(expected) ? expected : typeof expected === "number" ? range(p).map(() => expected) : null;
      const top = Math.max(final, ...(formula || [0]), ...sent, 1) * 1.12;
      const data = [{
        type: "bar", x: range(p), y: sent, marker: { color: t.rank.fill, line: { color: t.rank.line, width: 1 } },
        hovertext: sent.map((b, r) => `r${r} has sent ${formatBytes(b)}${formula ? ` of ${formatBytes(formula[r])} (formula)` : ""}`),
        hoverinfo: "text",
      }];
      const shapes = [];
      const annotations = [];
      if (formula) {
        data.push({
          type: "scatter", mode: "markers", x: range(p), y: formula, hoverinfo: "skip", cliponaxis: false,
          marker: { symbol: "line-ew-open", size: Math.max(6, Math.min(30, 420 / p)), color: t.fg, line: { width: 2, color: t.fg } },
        });
        // Above the plotting area, where no bar or formula mark can reach it.
        annotations.push({ xref: "paper", x: 1, yref: "paper", y: 1, xanchor: "right", yanchor: "bottom", yshift: 2,
          showarrow: false, text: "— formula's total per rank", font: { size: 11, color: t.muted } });
      }
      const layout = Object.assign({}, this.barLayout, { shapes, annotations, yaxis: Object.assign({}, this.barLayout.yaxis, { range: [0, top] }) });
      return global.Plotly.react(this.barsEl, data, layout, CONFIG);
    }
  }

  // ---- legend -----------------------------------------------------------------------------
  function fillLegend(root, run, hasGoal) {
    const chunksEl = root.querySelector('[data-role="legend-chunks"]');
    const ranksEl = root.querySelector('[data-role="legend-ranks"]');
    const swatch = (color, label, line) => `<span class="swatch"><span class="dot" style="background:${color}${line ? `;border-color:${line}` : ""}"></span>${escapeHtml(label)}</span>`;
    const t = theme();
    if (chunksEl) {
      const n = Math.min(run.C, P.CHUNK_COLORS.length);
      let html = range(n).map((c) => swatch(chunkColor(c, t), P.chunkLabel(c))).join("");
      if (run.C > n) html += `<span class="muted small">colours repeat every ${n} chunks; hover an arrow for its chunk</span>`;
      html += swatch(P.manyChunks(t.name), "several chunks in one arrow (hover it for each)");
      chunksEl.innerHTML = html;
    }
    if (ranksEl) {
      ranksEl.innerHTML = swatch(t.rank.fill, `numbered discs, r0 … r${run.p - 1} (colour means a chunk, never a rank)`, t.rank.line);
    }
    const hier = root.querySelector('[data-role="legend-hier"]');
    if (hier) hier.hidden = (run.start.layout.topology || {}).kind !== "hierarchical";
    const cells = root.querySelector('[data-role="legend-cells"]');
    if (cells) {
      cells.textContent = isAllToAll(run) ? "blocks meant for that rank: 0 → all p"
        : reduces(run) ? "contributions held: 1 → all p (reduced)" : "block has arrived";
    }
    const goal = root.querySelector('[data-role="legend-goal"]');
    if (goal) goal.hidden = !hasGoal;
  }

  // ---- the views together --------------------------------------------------------------------
  class Views {
    constructor(root) {
      this.root = root;
      const q = (role) => root.querySelector(`[data-role="${role}"]`);
      this.topology = new TopologyView(q("topology"));
      this.inspector = q("inspector") ? new Inspector(q("inspector"), (r, c) => this.select(r, c)) : null;
      this.buffer = new BufferView(q("buffer"), (r, c) => this.select(r, c));
      this.traffic = q("traffic") ? new TrafficView(q("traffic"), q("rank-bytes")) : null;
      this.topologySub = q("topology-sub");
      this.bufferSub = q("buffer-sub");
      this.run = null;
      this.dirty = new Set();
      for (const input of root.querySelectorAll('[data-role="traffic-mode"]')) {
        input.addEventListener("change", () => {
          if (!input.checked || !this.traffic) return;
          this.traffic.mode = input.value;
          if (this.run) this.traffic.render();
        });
      }
      // Plots follow their boxes (window resizes, a status line that wraps, an iframe that
      // grows): Plotly only measures its container when it first draws.
      let resizeTimer = null;
      const sizes = new WeakMap();
      const changed = new Set();
      const observer = new ResizeObserver((entries) => {
        for (const e of entries) {
          const { width, height } = e.contentRect;
          const last = sizes.get(e.target);
          sizes.set(e.target, { width, height });
          if (last && (Math.abs(last.width - width) > 1 || Math.abs(last.height - height) > 1)) changed.add(e.target);
        }
        if (!changed.size) return;
        clearTimeout(resizeTimer);
        resizeTimer = setTimeout(() => this._refit(changed), 120);
      });
      for (const el of root.querySelectorAll(".plot")) observer.observe(el);
      document.addEventListener("themechange", () => this.retheme());
    }

    // The page switched between light and dark: redraw everything at the same cursor, keeping
    // the cell the learner picked.
    retheme() {
      const run = this.run;
      if (!run) return Promise.resolve();
      const picked = this.pinned ? this.buffer.selected : null;
      this.reset(run);
      if (picked) this.select(picked[0], picked[1], false, true);
      return this.render(0);
    }

    _refit(changed) {
      const els = [...changed];
      changed.clear();
      if (!this.run) return;
      for (const el of els) {
        // A plot that is hidden, has no box, or has left the page (a tab switched away, the
        // content replaced) waits: Plotly refuses to resize it, and the observer calls again
        // once it is shown.
        if (!el._fullLayout || !isDisplayed(el)) continue;
        global.Plotly.Plots.resize(el).then(() => {
          if (el !== this.topology.el || !isDisplayed(el)) return;
          this.topology.resize(); // node sizes and labels follow the new scale
          this.topology.render(0);
        });
      }
    }

    reset(run) {
      this.run = run;
      this.dirty.clear();
      for (const el of this.root.querySelectorAll('[data-role="empty"]')) el.hidden = true;
      this.topology.reset(run);
      this.buffer.reset(run);
      if (this.inspector) this.inspector.reset(run);
      if (this.traffic) {
        this.traffic.reset(run);
        const checked = this.root.querySelector('[data-role="traffic-mode"]:checked');
        if (checked) this.traffic.mode = checked.value;
      }
      fillLegend(document, run, this.buffer.goal.length > 0);
      if (this.inspector) {
        const rooted = collectiveEntry(run).root_only_output;
        this.pinned = false;
        this.select(rooted ? run.start.root : 0, 0, false, false);
      }
      const topo = (run.start.layout.topology || {}).kind || "complete";
      if (this.topologySub) this.topologySub.textContent = TOPOLOGY_NOTES[topo] || topo;
      if (this.bufferSub) this.bufferSub.textContent = isAllToAll(run) ? "rank × destination" : "rank × chunk";
    }

    invalidate(changed) { for (const k of changed) this.dirty.add(k); }

    // Draw the run's cursor: topology first (with chunks in flight), then the grids.
    async render(flightMs, onDrawn) {
      await this.topology.render(flightMs, onDrawn);
      this.buffer.update(this.dirty);
      this.dirty.clear();
      if (this.inspector && !this.pinned) this._follow();
      const work = [this.buffer.render()];
      if (this.traffic) work.push(this.traffic.render());
      await Promise.all(work);
      if (this.inspector) this.inspector.render();
    }

    // Until the learner picks a cell, the inspector follows the step: it shows the cell this
    // step changed that holds the most contributions, so the reduction happens in front of them.
    _follow() {
      const run = this.run;
      if (run.cursor < 0) return;
      let best = null;
      for (const u of run.steps[run.cursor].state) {
        if (!best || u.holders.length > best.holders.length) best = u;
      }
      if (!best) return;
      const c = isAllToAll(run) ? best.chunk % run.p : best.chunk;
      this.buffer.selected = [best.rank, c];
      this.inspector.show(best.rank, c, false);
    }

    // A cell picked by the learner (click or the selects) stays until the next run.
    select(r, c, draw = true, pin = true) {
      if (pin) this.pinned = true;
      this.buffer.selected = [r, c];
      if (this.inspector) this.inspector.show(r, c, this.pinned);
      if (draw) this.buffer.render();
    }
  }

  const TOPOLOGY_NOTES = {
    ring: "ring", chain: "chain (pipeline)", tree: "tree", trees: "two trees",
    hypercube: "hypercube (pairs differ in one bit)", circulant: "circulant: distances 1, 2, 4, …",
    hierarchical: "nodes with GPUs inside", complete: "every rank to every rank",
  };

  global.LabViews = { Views, formatBytes, holderList, formatValue };
})(window);
