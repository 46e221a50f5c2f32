// The lab's views of one run together: topology, buffer grid, link traffic, bytes per rank, the
// cell inspector and the legend, each in its own file (lab-views-base.js lists them). Views
// resets them for a new run, draws the run's cursor in all of them, keeps the inspector on the
// cell the learner picked or on what each step changed, says the step (and the picked cell) in
// words, keeps the figures' tables, moves the picked cell with the arrow keys while the grid or
// its table has focus, and redraws on a theme switch or when a plot's box changes size.
//
// Views draw the run's state at its cursor; they compute nothing the engine is the authority for.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const P = CL.palette;
  const V = CL.views;

  // Arrow keys in the buffer grid: [rows, columns] to move the picked cell.
  // The topology's kind in words (app/drawing/geometry.py's NOTES), in the page's language.
  const NOTES = {
    ring: _("ring"), chain: _("chain (pipeline)"), tree: _("tree"), trees: _("two trees"),
    hypercube: _("hypercube (pairs differ in one bit)"), circulant: _("circulant: distances 1, 2, 4, …"),
    hierarchical: _("nodes with GPUs inside"), torus: _("2D torus: a ring along each row and down each column"),
    complete: _("every rank to every rank"), switch: _("every rank to the switch, which adds"),
  };
  const GRID_MOVES = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

  // Whether `el` is on the page with a box Plotly can measure.
  function isDisplayed(el) {
    if (!el.isConnected || !el.clientWidth || !el.clientHeight) return false;
    const display = getComputedStyle(el).display;
    return display !== "" && display !== "none";
  }

  // The legend under the views: the chunk colours of this run, the rank disc, and what a cell's
  // shade counts.
  function fillLegend(root, run, facts, hasGoal) {
    const chunksEl = root.querySelector('[data-role="legend-chunks"]');
    const ranksEl = root.querySelector('[data-role="legend-ranks"]');
    const swatch = (color, label, line) => `<span class="swatch"><span class="dot" style="background:${color}${line ? `;border-color:${line}` : ""}"></span>${CL.escapeHtml(label)}</span>`;
    const t = CL.chartTheme();
    if (chunksEl) {
      const n = Math.min(run.C, P.CHUNK_COLORS.length);
      let html = V.range(n).map((c) => swatch(P.chunkColor(c, t.name), P.chunkLabel(c))).join("");
      if (run.C > n) html += '<span class="muted small">' + _("colours repeat every {n} chunks; hover an arrow for its chunk", { n }) + "</span>";
      html += swatch(P.manyChunks(t.name), _("several chunks in one arrow (hover it for each)"));
      chunksEl.innerHTML = html;
    }
    if (ranksEl) {
      ranksEl.innerHTML = swatch(t.rank.fill, _("numbered discs, r0 … r{last} (colour means a chunk, never a rank)", { last: run.p - 1 }), t.rank.line);
    }
    const hier = root.querySelector('[data-role="legend-hier"]');
    if (hier) hier.hidden = (run.start.layout.topology || {}).kind !== "hierarchical";
    const cells = root.querySelector('[data-role="legend-cells"]');
    if (cells) {
      cells.textContent = facts.allToAll ? _("blocks meant for that rank: 0 → all p")
        : facts.reduces ? _("contributions held: 1 → all p (reduced)") : _("block has arrived");
    }
    const goal = root.querySelector('[data-role="legend-goal"]');
    if (goal) goal.hidden = !hasGoal;
  }

  class Views {
    // `catalog`: the engine's catalog, which says how each collective's run is drawn.
    constructor(root, catalog) {
      this.root = root;
      this.catalog = catalog;
      const q = (role) => root.querySelector(`[data-role="${role}"]`);
      this.topology = new V.TopologyView(q("topology"));
      this.inspector = q("inspector") ? new V.Inspector(q("inspector"), (r, c) => this.select(r, c)) : null;
      this.buffer = new V.BufferView(q("buffer"), (r, c) => this.select(r, c));
      this.traffic = q("traffic") ? new V.TrafficView(q("traffic"), q("rank-bytes")) : null;
      this.fabric = q("fabric") ? new V.FabricView(q("fabric"), catalog) : null; // lab-fabric.js
      this.narration = new V.Narration(root);
      this.tables = new V.Tables(root);
      for (const el of [q("buffer"), q("grid-table")]) if (el) this._gridKeys(el);
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
      this._followSizes();
      document.addEventListener("themechange", () => this.retheme());
    }

    // Plots follow their boxes (window resizes, a status line that wraps, an iframe that
    // grows): Plotly only measures its container when it first draws.
    _followSizes() {
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
      for (const el of this.root.querySelectorAll(".plot")) observer.observe(el);
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
        // (The topology is an SVG with a viewBox: it follows its box by itself.)
        if (!el._fullLayout || !isDisplayed(el)) continue;
        global.Plotly.Plots.resize(el);
      }
    }

    reset(run) {
      this.run = run;
      this.dirty.clear();
      for (const el of this.root.querySelectorAll('[data-role="empty"]')) el.hidden = true;
      for (const el of this.root.querySelectorAll('[data-role="step0"]')) el.remove(); // the buffer's first picture: lab-buffer.js builds its live grid
      this.facts = V.facts(run, this.catalog);
      this.topology.reset(run);
      this.buffer.reset(run, this.facts);
      if (this.inspector) this.inspector.reset(run, this.facts);
      if (this.traffic) {
        this.traffic.reset(run);
        const checked = this.root.querySelector('[data-role="traffic-mode"]:checked');
        if (checked) this.traffic.mode = checked.value;
      }
      if (this.fabric) this.fabric.reset(run);
      fillLegend(document, run, this.facts, this.buffer.goal.length > 0);
      this.narration.reset(run, this.facts);
      this.tables.reset(run, this.buffer);
      this.pinned = false;
      if (this.inspector) {
        this.select(this.facts.rootOutput ? run.start.root : 0, 0, false, false);
      }
      if (this.topologySub) this.topologySub.textContent = NOTES[run.start.layout.geometry.kind || "complete"] || run.start.layout.geometry.note;
      if (this.bufferSub) this.bufferSub.textContent = this.facts.allToAll ? _("rank × destination") : _("rank × chunk");
    }

    invalidate(changed) { for (const k of changed) this.dirty.add(k); }

    // Draw the run's cursor: topology first (with chunks in flight), then the grids.
    async render(flightMs, onDrawn) {
      this.narration.step(); // as the chunks start to fly
      await this.topology.render(flightMs, onDrawn);
      this.buffer.update(this.dirty);
      this.dirty.clear();
      if (this.inspector && !this.pinned) this._follow();
      this.narration.cell(this.pinned ? this.buffer.selected : null);
      this.tables.render();
      const work = [this.buffer.render()];
      if (this.traffic) work.push(this.traffic.render());
      if (this.fabric) this.fabric.render();
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
      const c = this.facts.allToAll ? best.chunk % run.p : best.chunk;
      this.buffer.selected = [best.rank, c];
      this.inspector.show(best.rank, c, false);
    }

    // A cell picked by the learner (click or the selects) stays until the next run.
    // Returns what the step did to that cell, in words ("" while the inspector only follows).
    select(r, c, draw = true, pin = true) {
      if (pin) this.pinned = true;
      this.buffer.selected = [r, c];
      if (this.inspector) this.inspector.show(r, c, this.pinned);
      const sentence = this.narration.cell(this.pinned ? [r, c] : null);
      if (draw) {
        this.tables.render();
        this.buffer.render();
      }
      return sentence;
    }

    // While the grid (or its table) has focus, the arrow keys move the picked cell and the
    // sentence about it is read out; the player's step keys see them as handled. Esc hands the
    // arrows back to the player.
    _gridKeys(el) {
      el.addEventListener("keydown", (e) => {
        if (!this.run || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
        if (e.key === "Escape") {
          el.blur();
          return;
        }
        const move = GRID_MOVES[e.key];
        if (!move) return;
        e.preventDefault();
        const [r, c] = this.buffer.selected || [0, 0];
        const clamp = (x, n) => Math.max(0, Math.min(n - 1, x));
        const sentence = this.select(clamp(r + move[0], this.run.p), clamp(c + move[1], this.buffer.cols));
        this.narration.announce(sentence);
      });
    }
  }

  V.Views = Views;
})(window);
