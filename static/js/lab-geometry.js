// Where each rank of a run sits comes from the server: sim_start's layout.geometry
// (app/drawing/geometry.py, docs/lab.md § Payloads), the same nodes the topology's SVG draws
// (layout.topology_svg). CollectiveLab.views.geometry(run) gives them in the SVG's coordinates
// (y down) with the two lookups the arrows need: nodeOf(rank, peer), the node that draws `rank`
// in its link to `peer` (in two trees, the tree that joins them), and linkKind(a, b),
// "intra"/"inter" node for a hierarchical run, else null.
(function (global) {
  "use strict";
  const V = global.CollectiveLab.views;

  function byRank(nodes) {
    const at = new Map();
    nodes.forEach((n, i) => { if (!at.has(n.rank)) at.set(n.rank, i); });
    return (rank) => at.get(rank);
  }

  // Two trees draw every rank twice; a link belongs to the tree in which one is the other's parent.
  function byTree(parents, p) {
    const inTree = (t, a, b) => parents[t][a] === b || parents[t][b] === a;
    return (rank, peer) => {
      for (let t = 0; t < parents.length; t++) if (inTree(t, rank, peer)) return t * p + rank;
      return rank;
    };
  }

  function geometry(run) {
    const sent = run.start.layout.geometry;
    const topo = run.start.layout.topology || { kind: "complete" };
    const parents = topo.kind === "trees" ? topo.parents : null;
    const g = topo.kind === "hierarchical" ? topo.ranks_per_node || run.p : null;
    return {
      kind: sent.kind,
      nodes: sent.nodes.map((n) => ({ rank: n.rank, x: n.x, y: -n.y })), // y down, as the SVG
      unit: sent.unit,
      nodeOf: parents ? byTree(parents, run.p) : byRank(sent.nodes),
      linkKind: g ? (a, b) => (Math.floor(a / g) === Math.floor(b / g) ? "intra" : "inter") : () => null,
    };
  }

  V.geometry = geometry;
})(window);
