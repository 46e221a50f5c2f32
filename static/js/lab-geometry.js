// Where each rank of a run sits, per topology kind (docs/engine.md § Topology):
// CollectiveLab.views.geometry(run, aspect) → {kind, nodes, edges, foldEdges, boxes, labels,
// unit, nodeOf, linkKind}, in plot units, for the topology view.
//
// nodes: {rank, x, y} (and `tree` for two trees); edges and foldEdges: index pairs into nodes;
// boxes: the nodes of a hierarchical layout; labels: the titles of two trees; unit: the distance
// between neighbours; nodeOf(rank, peer): the node that draws `rank` in its link to `peer`;
// linkKind(a, b): "intra"/"inter" node for a hierarchical layout, else null.
(function (global) {
  "use strict";
  const V = global.CollectiveLab.views;
  const range = V.range;

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

  // A lookup from rank to the index of its node.
  function indexOf(nodes) {
    const at = new Map(nodes.map((n, i) => [n.rank, i]));
    return (rank) => at.get(rank);
  }

  // Ring, circulant and complete: the ranks on a circle, in the topology's order.
  function roundGeometry(geo, topo, order, p) {
    geo.nodes = circle(order, 1);
    geo.unit = p > 1 ? 2 * Math.sin(Math.PI / p) : 1;
    geo.nodeOf = indexOf(geo.nodes);
    if (topo.kind !== "complete" || p <= 8) {
      geo.edges = topo.kind === "complete"
        ? range(p).flatMap((i) => range(p).filter((j) => j > i).map((j) => [i, j]))
        : ringEdges(p);
    }
  }

  // A pipeline: one row, or rows of 8 that snake back and forth.
  function chainGeometry(geo, order, p) {
    const row = p <= 12 ? p : 8;
    order.forEach((rank, i) => {
      const r = Math.floor(i / row), c = i % row;
      geo.nodes.push({ rank, x: r % 2 ? row - 1 - c : c, y: -r * 1.1 });
    });
    geo.nodeOf = indexOf(geo.nodes);
    geo.edges = range(p - 1).map((i) => [i, i + 1]);
  }

  function isRootOf(parent, r, p) { return !(parent[r] >= 0 && parent[r] < p && parent[r] !== r); }

  // One tree, or two (every rank drawn in each): side by side while they are narrow, one above
  // the other once they are wide.
  function treeGeometry(geo, topo, p, aspect) {
    const parents = topo.kind === "tree" ? [topo.parent] : topo.parents;
    const lays = parents.map((parent) => treeLayout(parent, p));
    const width = Math.max(...lays.map((l) => l.width)), levels = Math.max(...lays.map((l) => l.maxDepth + 1));
    const stacked = parents.length > 1 && width > 8;
    const across = stacked ? 1 : parents.length, down = stacked ? parents.length : 1;
    const dy = Math.max(1.2, (across * width) / (aspect * down * levels));
    let dx = 0, top = 0;
    parents.forEach((parent, t) => {
      const lay = lays[t];
      const base = geo.nodes.length;
      range(p).forEach((r) => geo.nodes.push({ rank: r, x: dx + lay.x[r], y: top - lay.depth[r] * dy, tree: t }));
      parent.forEach((q, r) => { if (!isRootOf(parent, r, p)) geo.edges.push([base + r, base + q]); });
      if (parents.length > 1) {
        // A title beside its root, where the row is empty (the topology view places it in pixels).
        const root = range(p).find((r) => isRootOf(parent, r, p));
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
  }

  const CUBE = [[1, 0], [0, -1], [0.5, 0.42]];

  // Where member i of a hypercube of `dims` dimensions sits. Three bits draw a cube (right, down,
  // and a diagonal for depth); each further three bits repeat the cube three times larger and
  // turned 30°, so no link runs over a node.
  function cubeSpot(i, dims) {
    let x = 0, y = 0;
    for (let d = 0; d < dims; d++) {
      if (!((i >> d) & 1)) continue;
      const level = Math.floor(d / 3), [bx, by] = CUBE[d % 3];
      const s = Math.pow(3, level), a = (level * Math.PI) / 6;
      x += s * (bx * Math.cos(a) - by * Math.sin(a));
      y += s * (bx * Math.sin(a) + by * Math.cos(a));
    }
    return { x, y };
  }

  // A hypercube over the largest power of two; each extra rank sits just above the member it is
  // folded onto, joined by a dotted link.
  function hypercubeGeometry(geo, topo, p) {
    const folded = topo.folded || {};
    const extras = new Set(Object.keys(folded).map(Number));
    const members = range(p).filter((r) => !extras.has(r));
    const dims = Math.round(Math.log2(Math.max(1, members.length)));
    const idx = new Map();
    members.forEach((r, i) => { idx.set(r, geo.nodes.length); geo.nodes.push({ rank: r, ...cubeSpot(i, dims) }); });
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
  }

  // Nodes with GPUs inside. Both rings (local ranks around each node, nodes around the cluster)
  // are laid out so ring neighbours, the last and the first included, sit side by side.
  function hierarchicalGeometry(geo, topo, p) {
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

  // `aspect`: the plot's width / height, so wide trees can be stacked and spread to fit.
  function geometry(run, aspect) {
    const topo = run.start.layout.topology || { kind: "complete" };
    const p = run.p;
    const geo = {
      kind: topo.kind, nodes: [], edges: [], foldEdges: [], boxes: [], labels: [],
      unit: 1, nodeOf: (rank) => rank, linkKind: () => null,
    };
    const order = (topo.order && topo.order.length === p) ? topo.order : range(p);
    if (V.isRound(topo.kind)) roundGeometry(geo, topo, order, p);
    else if (topo.kind === "chain") chainGeometry(geo, order, p);
    else if (topo.kind === "tree" || topo.kind === "trees") treeGeometry(geo, topo, p, aspect);
    else if (topo.kind === "hypercube") hypercubeGeometry(geo, topo, p);
    else if (topo.kind === "hierarchical") hierarchicalGeometry(geo, topo, p);
    return geo;
  }

  V.geometry = geometry;
})(window);
