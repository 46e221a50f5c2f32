// The buffer view: a heatmap of what every rank holds of every chunk (rank × chunk), or for
// all_to_all which blocks meant for each destination have reached each rank (rank × destination),
// with the cells this step changed and the cells where the result must end outlined. A click on a
// cell picks it for the inspector. Only the rows whose cells changed are copied on each step.
//
// The grid is drawn only while it is on screen (on a phone it sits below the topology), and
// when only the picked cell moved, only the outlines are redrawn.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const P = CL.palette;
  const V = CL.views;

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

  class BufferView {
    constructor(el, onSelect) {
      this.el = el;
      this.onSelect = onSelect;
      this.selected = null;
      this.bound = false;
      this.drawn = null; // what the plot shows: {z, text, trace, layout}
      this.stale = false;
      this.seen = new V.Sighting(el, () => { if (this.stale && this.run) this.render(); });
    }

    // `facts`: how this run is drawn (CollectiveLab.views.facts).
    reset(run, facts) {
      this.run = run;
      this.facts = facts;
      this.t = CL.chartTheme();
      const p = run.p;
      this.a2a = facts.allToAll;
      this.cols = this.a2a ? p : run.C;
      this.zmax = facts.reduces || this.a2a ? p : 1;
      this.z = V.range(p).map(() => new Array(this.cols).fill(null));
      this.text = V.range(p).map(() => new Array(this.cols).fill(""));
      for (let r = 0; r < p; r++) for (let c = 0; c < this.cols; c++) this._cell(r, c);
      this.cursor = run.cursor; // the step z and text show (the run's cursor may be ahead of them)
      this.goal = run.start.layout.goal || []; // where the result must end (app/drawing/step0.py)
      this.selected = null;
      const t = this.t, cols = this.cols;
      const every = V.tickStep(cols, 16), everyR = V.tickStep(p, 24);
      const colLabel = (c) => (this.a2a ? `→r${c}` : P.chunkLabel(c));
      const small = p > 16 || cols > 24;
      this.trace = {
        type: "heatmap", x: V.range(cols), y: V.range(p), z: this.z, text: this.text,
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
      this.layout = V.layout(t, {
        margin: { l: 54, r: 10, t: 30, b: 10 },
        xaxis: {
          side: "top", tickvals: V.range(cols).filter((c) => c % every === 0),
          ticktext: V.range(cols).filter((c) => c % every === 0).map(colLabel),
          fixedrange: true, showgrid: false, zeroline: false, tickfont: { size: cols > 16 ? 10 : 12 }, tickangle: 0,
        },
        yaxis: {
          autorange: "reversed", tickvals: V.range(p).filter((r) => r % everyR === 0),
          ticktext: V.range(p).filter((r) => r % everyR === 0).map((r) => `r${r}`),
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

    _rect(r, c, line) {
      return { type: "rect", x0: c - 0.5, x1: c + 0.5, y0: r - 0.5, y1: r + 0.5, line, fillcolor: "rgba(0,0,0,0)" };
    }

    update(changed) {
      const run = this.run, p = run.p;
      this.cursor = run.cursor;
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
      this.el.dataset.selected = this.selected ? this.selected.join(",") : "";
      this.stale = !this.seen.visible;
      if (this.stale) return;
      const shapes = this._outlines();
      const drawn = this.drawn, now = { z: this.z, text: this.text, trace: this.trace, layout: this.layout };
      this.drawn = now;
      if (drawn && this.el._fullLayout && Object.keys(now).every((k) => drawn[k] === now[k])) {
        await global.Plotly.relayout(this.el, { shapes }); // the same cells: only the outlines moved
        return;
      }
      const trace = Object.assign({}, this.trace, { z: this.z, text: this.text });
      const layout = Object.assign({}, this.layout, { shapes });
      await global.Plotly.react(this.el, [trace], layout, CL.CHART_CONFIG);
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

    // The goal cells (dotted), the cells this step changed (accent) and the picked cell.
    _outlines() {
      const run = this.run, t = this.t, p = run.p;
      const shapes = [];
      for (const [r, c] of this.goal) shapes.push(this._rect(r, c, { color: t.muted, width: 1.5, dash: "dot" }));
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
      return shapes;
    }
  }

  V.BufferView = BufferView;
})(window);
