// The buffer view: a grid of what every rank holds of every chunk (rank × chunk), or for
// all_to_all which blocks meant for each destination have reached each rank (rank × destination),
// with the cells this step changed and the cells where the result must end outlined. A click on a
// cell picks it for the inspector.
//
// It is the embed's first picture made live: the same CSS grid, class names and data-r / data-c /
// data-z cells as templates/lab/_step0.html's `buffer_grid` (one element per cell here, where the
// server merges equal neighbours; colours by data-z from one <style> rather than on each cell),
// built once per run and then touched only where a step changed a cell. What the grid looks like (each count's colour and ink, labels, gaps, whether counts are
// written, the colour bar) is the server's: `sim_start.layout.grid` (app/drawing/grid.py).
//
// The grid is drawn only while it is on screen (on a phone it sits below the topology); the
// cells that changed meanwhile are painted when it is scrolled to.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const P = CL.palette;
  const V = CL.views;
  const esc = (s) => CL.escapeHtml(String(s));
  const MAX_CHANGED_OUTLINES = 256;

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
      this.grid = null; // the live grid element, built on the first draw of a run
      this.cells = []; // its cells, row by row: cell (r, c) is cells[r * cols + c]
      this.pending = new Set(); // cells whose count changed since they were last painted
      this.outlined = new Set(); // cells drawn with the "changed this step" outline
      this.picked = -1; // the cell drawn as picked
      this.stale = false;
      this.seen = new V.Sighting(el, () => { if (this.stale && this.run) this.render(); });
      el.addEventListener("click", (e) => {
        const cell = this._at(e);
        if (cell) this.onSelect(Number(cell.dataset.r), Number(cell.dataset.c));
      });
      // A cell's hover text is written when the pointer first reaches it (and kept up to date
      // from then on, _paint): 4,096 titles in the built string were a third of its bytes.
      el.addEventListener("mouseover", (e) => {
        const cell = this._at(e);
        if (cell) cell.title = this.text[cell.dataset.r][cell.dataset.c];
      });
    }

    // `facts`: how this run is drawn (CollectiveLab.views.facts).
    reset(run, facts) {
      this.run = run;
      this.facts = facts;
      this.g = run.start.layout.grid; // app/drawing/grid.py `live`
      const p = run.p;
      this.a2a = facts.allToAll;
      this.cols = this.g.cols;
      this.zmax = this.g.top;
      this.z = V.range(p).map(() => new Array(this.cols).fill(null));
      this.text = V.range(p).map(() => new Array(this.cols).fill(""));
      for (let r = 0; r < p; r++) for (let c = 0; c < this.cols; c++) this._cell(r, c);
      this.cursor = run.cursor; // the step z and text show (the run's cursor may be ahead of them)
      this.goal = run.start.layout.goal || []; // where the result must end (app/drawing/grid.py)
      this.selected = null;
      if (this.grid) this.grid.remove();
      this.grid = null;
      this.cells = [];
      this.pending.clear();
      delete this.el.dataset.drawnStep;
      // Built now when on screen: the embed's server-drawn grid has just been removed
      // (Views.reset), and the topology draws before this view does.
      if (this.seen.visible) this._build();
    }

    _at(e) {
      const cell = e.target.closest("i[data-r]");
      return cell && this.grid && this.grid.contains(cell) ? cell : null;
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

    update(changed) {
      const run = this.run, p = run.p;
      this.cursor = run.cursor;
      for (const key of changed) {
        const r = Math.floor(key / run.C), chunk = key % run.C;
        const c = this.a2a ? chunk % p : chunk;
        this._cell(r, c);
        this.pending.add(r * this.cols + c);
      }
    }

    render() {
      this.el.dataset.selected = this.selected ? this.selected.join(",") : "";
      this.stale = !this.seen.visible;
      if (this.stale) return;
      if (!this.grid) this._build();
      else for (const i of this.pending) this._paint(i);
      this.pending.clear();
      this._outline();
      this.el.dataset.drawnStep = String(this.cursor + 1);
    }

    // The whole grid in one string: the step-0 macro's structure, one <i> per cell.
    _build() {
      const g = this.g, p = this.run.p, cols = this.cols, goal = new Set(this.goal.map(([r, c]) => r * cols + c));
      const bar = g.scale ? " var(--s0-bar-w)" : "";
      const parts = [`<div class="step0 step0-grid${g.gaps ? " s0-gaps" : ""}${g.scale ? " s0-scaled" : ""}"`
        + ` data-role="buffer-grid" role="img" aria-label="${esc(`Buffers, ${g.what}, shaded by contributions held`)}"`
        + ` style="--cols: ${cols}; grid-template-columns: var(--s0-label-w) repeat(${cols}, minmax(0, 1fr))${bar};`
        + ` grid-template-rows: var(--s0-label-h) repeat(${p}, minmax(0, 1fr))"><span></span>`];
      for (const text of g.col_labels) parts.push(`<span class="s0-col">${esc(text)}</span>`);
      if (g.scale) {
        const stops = P.CIVIDIS.map((s) => s[1]).join(", ");
        const ticks = g.ticks.map((t) => `<b class="s0-tick" style="top: ${100 - (100 * t) / g.top}%">${t}</b>`).join("");
        parts.push(`<span class="s0-bar" style="grid-row: 2 / span ${p}; grid-column: ${cols + 2}; background: linear-gradient(0deg, ${stops})">${ticks}</span>`
          + `<span class="s0-bar-title" style="grid-row: 1; grid-column: ${cols + 2}">${esc(g.scale_title)}</span>`);
      }
      for (let r = 0; r < p; r++) {
        parts.push(`<span class="s0-row">${esc(g.row_labels[r])}</span>`);
        for (let c = 0; c < cols; c++) {
          const z = this.z[r][c];
          const cls = [z === null ? "" : "s0-cell", goal.has(r * cols + c) ? "s0-goal" : ""].join(" ").trim();
          parts.push(`<i data-r="${r}" data-c="${c}"${z === null ? "" : ` data-z="${z}"`}${cls ? ` class="${cls}"` : ""}>`
            + `${z !== null && g.numbers ? z : ""}</i>`);
        }
      }
      // Each count's paint is one rule on data-z (the server's colours and ink): a cell carries
      // only its count, and a step that changes it sets one attribute.
      const rules = g.paints.map(([bg, ink], z) => `[data-role="buffer-grid"] i[data-z="${z}"] { background: ${bg}; color: ${ink}; }`);
      parts.push(`<style>${rules.join("\n")}</style></div>`);
      this.el.insertAdjacentHTML("beforeend", parts.join(""));
      this.grid = this.el.lastElementChild;
      this.cells = Array.from(this.grid.getElementsByTagName("i"));
      this.outlined.clear();
      this.picked = -1;
    }

    // One cell's count (and so its colour and ink), and its hover text once it has one, after a
    // step changed it.
    _paint(i) {
      const el = this.cells[i], r = Math.floor(i / this.cols), c = i % this.cols;
      const z = this.z[r][c];
      if (z === null) delete el.dataset.z; else el.dataset.z = String(z);
      el.classList.toggle("s0-cell", z !== null);
      if (this.g.numbers) el.textContent = z === null ? "" : String(z);
      if (el.title) el.title = this.text[r][c];
    }

    // The cells this step changed (accent) and the picked cell (solid ink); the goal cells keep
    // the dotted outline the grid was built with. Only the cells whose outline differs are touched.
    _outline() {
      const run = this.run, p = run.p, cols = this.cols;
      const updates = run.cursor >= 0 ? run.steps[run.cursor].state : [];
      const now = new Set();
      // Outline what this step changed, unless it changed so much that outlines say nothing.
      if (updates.length && updates.length <= Math.max(16, (p * cols) / 4)) {
        for (const u of updates) {
          now.add(u.rank * cols + (this.a2a ? u.chunk % p : u.chunk));
          if (now.size >= MAX_CHANGED_OUTLINES) break;
        }
      }
      for (const i of this.outlined) if (!now.has(i)) this.cells[i].classList.remove("s0-changed");
      for (const i of now) if (!this.outlined.has(i)) this.cells[i].classList.add("s0-changed");
      this.outlined = now;
      const picked = this.selected ? this.selected[0] * cols + this.selected[1] : -1;
      if (picked === this.picked) return;
      if (this.picked >= 0) this.cells[this.picked].classList.remove("s0-picked");
      if (picked >= 0) this.cells[picked].classList.add("s0-picked");
      this.picked = picked;
    }
  }

  V.BufferView = BufferView;
})(window);
