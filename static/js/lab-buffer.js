// The buffer view: a grid of what every rank holds of every chunk (rank × chunk), or for
// all_to_all which blocks meant for each destination have reached each rank (rank × destination),
// with the cells this step changed and the cells where the result must end outlined. A click on a
// cell picks it for the inspector.
//
// It is the embed's first picture made live: the same CSS grid, class names, labels and colour
// bar as templates/lab/_step0.html's `buffer_grid`, with the cells drawn on one <canvas> laid
// over the grid's cell tracks: a step repaints one element instead of restyling, hit-testing and
// re-recording up to 4,096 (at 64 ranks that was most of a step's main-thread time, bench/frame.py
// and bench/RESULTS.md). What the grid looks like (each count's colour and ink, labels, gaps,
// whether counts are written, the colour bar) is the server's: `sim_start.layout.grid`
// (app/drawing/grid.py); the outlines are the server grid's dotted goal outline (.s0-goal) and,
// for the live grid only, the changed and picked cells', in the theme's --muted, --accent, --fg. The canvas carries what it shows in data attributes (rows,
// cols; the changed, picked and goal cells as "r,c" lists) for tests and tools; a screen reader
// reads the grid's label and the table beside it ("The buffers as a table").
//
// The grid is drawn only while it is on screen (on a phone it sits below the topology); it is
// drawn at the step shown when it is scrolled to.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const P = CL.palette;
  const V = CL.views;
  const esc = (s) => CL.escapeHtml(String(s));
  const MAX_CHANGED_OUTLINES = 256;

  // "r0+r1+r2", or with runs folded once the list is long: "r0…r15+r32…r47 (32 of 64)".
  // The live grid's words as the server writes them in English (app/drawing/grid.py), in the
  // page's language; a word already translated on the server is shown as it is.
  const WORDS = {
    "rank × chunk": _("rank × chunk"), "rank × destination": _("rank × destination"),
    "k of p": _("k of p"), "blocks arrived": _("blocks arrived"),
  };
  const said = (text) => WORDS[text] || text;

  function holderList(holders, p) {
    if (!holders || !holders.length) return _("empty");
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
    return _("{list} ({n} of {p})", { list: text, n: holders.length, p });
  }

  // Outlines drawn inside a cell, as lab.css draws them on the server's cells: [width, CSS
  // custom property, dash]; a picked cell's wins over a changed one's, which wins over a goal's.
  const OUTLINES = { goal: [1.5, "--muted", true], changed: [2.5, "--accent", false], picked: [3, "--fg", false] };
  const cellsText = (set, cols) => [...set].sort((a, b) => a - b).map((i) => `${Math.floor(i / cols)},${i % cols}`).join(" ");

  class BufferView {
    constructor(el, onSelect) {
      this.el = el;
      this.onSelect = onSelect;
      this.selected = null;
      this.grid = null; // the live grid element, built on the first draw of a run
      this.canvas = null; // its cells
      this.outlined = new Set(); // cells drawn with the "changed this step" outline
      this.pending = new Set(); // cells whose count changed since they were last painted
      this.picked = -1; // the cell drawn as picked
      this.hover = -1; // the cell under the pointer, whose text the canvas's title holds
      this.stale = false;
      this.resized = new ResizeObserver(() => { this.box = null; if (this.canvas && !this.stale) this._draw(null); });
      this.seen = new V.Sighting(el, () => { if (this.stale && this.run) this.render(); });
      el.addEventListener("click", (e) => {
        const i = this._at(e);
        if (i >= 0) this.onSelect(Math.floor(i / this.cols), i % this.cols);
      });
      el.addEventListener("mousemove", (e) => {
        const i = this._at(e);
        if (i !== this.hover) { this.hover = i; this._title(); }
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
      if (this.grid) { this.resized.unobserve(this.canvas); this.grid.remove(); }
      this.grid = this.canvas = null;
      this.pending.clear();
      this.hover = -1; // a cell of the last run's grid
      delete this.el.dataset.drawnStep;
      // Built now when on screen: the embed's server-drawn grid has just been removed
      // (Views.reset), and the topology draws before this view does.
      if (this.seen.visible) this._build();
    }

    // The cell under a pointer event, as its index r * cols + c; -1 when none.
    _at(e) {
      const cv = this.canvas;
      if (!cv || e.target !== cv) return -1;
      const { cw, ch, gap } = this._size();
      const c = Math.floor(e.offsetX / (cw + gap)), r = Math.floor(e.offsetY / (ch + gap));
      return r >= 0 && r < this.run.p && c >= 0 && c < this.cols ? r * this.cols + c : -1;
    }

    _title() {
      const i = this.hover;
      if (this.canvas) this.canvas.title = i >= 0 ? this.text[Math.floor(i / this.cols)][i % this.cols] : "";
    }

    _label(c) { return this.a2a ? _("blocks for r{rank}", { rank: c }) : _("chunk {chunk}", { chunk: P.chunkLabel(c) }); }

    _cell(r, c) {
      const run = this.run, p = run.p;
      if (this.a2a) {
        const from = [];
        for (let s = 0; s < p; s++) {
          const cell = run.cell(r, s * p + c);
          if (cell && cell.holders.length) from.push(s);
        }
        this.z[r][c] = from.length ? from.length : null;
        const senders = from.map((s) => `r${s}`).slice(0, 12).join(", ") + (from.length > 12 ? ", …" : "");
        const held = from.length ? _("from {senders}", { senders }) : _("none yet");
        this.text[r][c] = _("rank {rank}, {what}: {held} ({n} of {p})", { rank: r, what: this._label(c), held, n: from.length, p });
        return;
      }
      const cell = run.cell(r, c);
      const holders = cell ? cell.holders : [];
      this.z[r][c] = holders.length ? (this.zmax > 1 ? holders.length : 1) : null;
      this.text[r][c] = _("rank {rank}, {what}: {held}", { rank: r, what: this._label(c), held: holderList(holders, p) });
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
      // Repainted: the cells whose count changed since the last paint, and whose outline changes.
      const dirty = new Set([...this.pending, ...this.outlined, this.picked]);
      this._outline();
      for (const i of [...this.outlined, this.picked]) dirty.add(i);
      dirty.delete(-1);
      this._draw(this.box ? dirty : null);
      this.pending.clear();
      this._title();
      this.el.dataset.drawnStep = String(this.cursor + 1);
    }

    // The grid's frame in one string (the step-0 macro's structure: labels, colour bar) with one
    // canvas over its cell tracks.
    _build() {
      const g = this.g, p = this.run.p, cols = this.cols;
      const bar = g.scale ? " var(--s0-bar-w)" : "";
      const parts = [`<div class="step0 step0-grid${g.gaps ? " s0-gaps" : ""}${g.scale ? " s0-scaled" : ""}"`
        + ' data-role="buffer-grid" role="img" aria-label="' + esc(_("Buffers, {what}, shaded by contributions held", { what: said(g.what) })) + '"'
        + ` style="--cols: ${cols}; grid-template-columns: var(--s0-label-w) repeat(${cols}, minmax(0, 1fr))${bar};`
        + ` grid-template-rows: var(--s0-label-h) repeat(${p}, minmax(0, 1fr))"><span></span>`];
      for (const text of g.col_labels) parts.push(`<span class="s0-col">${esc(text)}</span>`);
      if (g.scale) {
        const stops = P.CIVIDIS.map((s) => s[1]).join(", ");
        const ticks = g.ticks.map((t) => `<b class="s0-tick" style="top: ${100 - (100 * t) / g.top}%">${t}</b>`).join("");
        parts.push(`<span class="s0-bar" style="grid-row: 2 / span ${p}; grid-column: ${cols + 2}; background: linear-gradient(0deg, ${stops})">${ticks}</span>`
          + `<span class="s0-bar-title" style="grid-row: 1; grid-column: ${cols + 2}">${esc(said(g.scale_title))}</span>`);
      }
      for (let r = 0; r < p; r++) parts.push(`<span class="s0-row" style="grid-area: ${r + 2} / 1">${esc(g.row_labels[r])}</span>`);
      this.goalCells = new Set(this.goal.map(([r, c]) => r * cols + c));
      parts.push(`<canvas data-role="buffer-cells" data-rows="${p}" data-cols="${cols}" data-goal="${cellsText(this.goalCells, cols)}"`
        + ` style="grid-area: 2 / 2 / span ${p} / span ${cols}"></canvas></div>`);
      this.el.insertAdjacentHTML("beforeend", parts.join(""));
      this.grid = this.el.lastElementChild;
      this.canvas = this.grid.lastElementChild;
      const css = getComputedStyle(this.grid);
      this.ink = Object.fromEntries(Object.entries(OUTLINES).map(([k, [, prop]]) => [k, css.getPropertyValue(prop).trim()]));
      this.font = css.fontFamily;
      this.gap = parseFloat(css.columnGap) || 0;
      this.outlined.clear();
      this.picked = -1;
      this.box = null;
      this.resized.observe(this.canvas);
    }

    // The canvas's size in CSS pixels and its cells' (read once per build and size).
    _size() {
      if (!this.box) {
        const b = this.canvas.getBoundingClientRect(), p = this.run.p, gap = this.gap;
        this.box = { w: b.width, h: b.height, gap, cw: (b.width - (this.cols - 1) * gap) / this.cols, ch: (b.height - (p - 1) * gap) / p };
      }
      return this.box;
    }

    // The cells `dirty` (indices r * cols + c), or every cell when the canvas is new, resized or
    // `dirty` is null: each in its count's colour (and the count, in the count's ink, where the
    // server writes counts) with its outline. Edges fall on device pixels, so neighbours never blend.
    _draw(dirty) {
      const cv = this.canvas, { w, h, cw, ch, gap } = this._size(), k = global.devicePixelRatio || 1;
      const W = Math.round(w * k), H = Math.round(h * k);
      const ctx = cv.getContext("2d"), cols = this.cols, g = this.g;
      let cells = dirty;
      if (cv.width !== W || cv.height !== H || !dirty) {
        cv.width = W; cv.height = H; // clears it
        cells = V.range(this.run.p * cols);
      }
      if (g.numbers) {
        ctx.font = `${Math.max(7, Math.min(12, cw * 0.5)) * k}px ${this.font}`;
        ctx.textAlign = "center";
        ctx.textBaseline = "middle";
      }
      for (const i of cells) {
        const r = Math.floor(i / cols), c = i % cols, z = this.z[r][c];
        const x0 = Math.round(c * (cw + gap) * k), y0 = Math.round(r * (ch + gap) * k);
        const bw = Math.round((c * (cw + gap) + cw) * k) - x0, bh = Math.round((r * (ch + gap) + ch) * k) - y0;
        ctx.clearRect(x0, y0, bw, bh);
        if (z !== null) {
          ctx.fillStyle = g.paints[z][0];
          ctx.fillRect(x0, y0, bw, bh);
          if (g.numbers) { ctx.fillStyle = g.paints[z][1]; ctx.fillText(String(z), x0 + bw / 2, y0 + bh / 2); }
        }
        const kind = i === this.picked ? "picked" : this.outlined.has(i) ? "changed" : this.goalCells.has(i) ? "goal" : null;
        if (!kind) continue;
        const [width, , dashed] = OUTLINES[kind], lw = width * k;
        ctx.strokeStyle = this.ink[kind];
        ctx.lineWidth = lw;
        ctx.setLineDash(dashed ? [lw, lw] : []);
        ctx.strokeRect(x0 + lw / 2, y0 + lw / 2, bw - lw, bh - lw);
      }
    }

    // The cells this step changed (accent) and the picked cell (solid ink); the goal cells keep
    // their dotted outline. Noted on the canvas as "r,c" lists.
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
      this.outlined = now;
      this.picked = this.selected ? this.selected[0] * cols + this.selected[1] : -1;
      this.canvas.dataset.changed = cellsText(now, cols);
      this.canvas.dataset.picked = this.picked >= 0 ? cellsText([this.picked], cols) : "";
    }
  }

  V.BufferView = BufferView;
})(window);
