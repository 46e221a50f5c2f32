// The buffer grid made pickable: a layer of toggle buttons laid exactly over the grid's cells
// (CollectiveLab.views.BufferView), so the learner clicks the cells they think will change, or
// reaches them from the keyboard: the grid is one Tab stop, arrow keys (and Home / End) move
// between cells, Space or Enter toggles one. After a reveal the same buttons carry the marks, each
// with its own symbol and outline as well as colour: ✓ right (solid), ✗ wrong pick (dashed),
// ○ missed (dotted); ● is a pick not yet revealed. While marks show, the layer lets the mouse
// through to the grid (hover, and the inspector's click) and stays readable from the keyboard.
//
// The layer covers the grid's canvas of cells, with the grid's gaps: its buttons divide that area
// as the view divides it into cells, rows top to bottom, columns left to right.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const P = CL.palette;

  // Read when the marks are built (the page's messages are loaded before any script).
  const MARKS = {
    picked: { symbol: "●", say: _("your pick") },
    right: { symbol: "✓", say: _("changed, and you picked it: right") },
    wrong: { symbol: "✗", say: _("did not change, but you picked it: wrong pick") },
    missed: { symbol: "○", say: _("changed, but you did not pick it: missed") },
  };
  const KEYS = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };

  class PredictGrid {
    // view: the BufferView; onToggle(key, on): a cell was picked or unpicked.
    constructor(view, onToggle) {
      this.view = view;
      this.onToggle = onToggle;
      this.layer = document.createElement("div");
      this.layer.className = "predict-grid";
      this.layer.dataset.role = "predict-grid";
      this.layer.setAttribute("role", "group");
      this.layer.hidden = true;
      this.layer.addEventListener("click", (e) => this._click(e));
      this.layer.addEventListener("keydown", (e) => this._key(e));
      this.shape = null; // "p×cols" the buttons were built for
      this.focusKey = 0;
      this.bound = false; // placed again after each build of the grid and change of its size
    }

    // Build the buttons for this run's grid (rank × chunk, or rank × destination).
    build(run, allToAll) {
      const cols = this.view.cols, p = run.p, shape = `${p}x${cols}`;
      if (this.layer.parentNode !== this.view.el.parentNode) this.view.el.after(this.layer);
      this.cols = cols;
      if (shape === this.shape && allToAll === this.allToAll) return;
      this.shape = shape;
      this.allToAll = allToAll;
      this.layer.style.gridTemplateColumns = `repeat(${cols}, minmax(0, 1fr))`;
      this.layer.style.gridTemplateRows = `repeat(${p}, minmax(0, 1fr))`;
      const label = allToAll
        ? _("Buffer grid, {p} ranks × {cols} destinations: pick the cells that will change", { p, cols })
        : _("Buffer grid, {p} ranks × {cols} chunks: pick the cells that will change", { p, cols });
      this.layer.setAttribute("aria-label", label);
      const cells = [];
      for (let r = 0; r < p; r++) {
        for (let c = 0; c < cols; c++) {
          const b = document.createElement("button");
          b.type = "button";
          b.className = "predict-cell";
          b.dataset.key = String(r * cols + c);
          b.dataset.rank = String(r);
          b.dataset.col = String(c);
          b.dataset.name = allToAll ? _("rank {r}, blocks for r{c}", { r, c }) : _("rank {r}, chunk {label}", { r, label: P.chunkLabel(c) });
          b.tabIndex = -1;
          b.innerHTML = '<span class="predict-mark" aria-hidden="true"></span>';
          cells.push(b);
        }
      }
      this.layer.replaceChildren(...cells);
      this.token = null;
      this.focusKey = 0;
      cells[0].tabIndex = 0;
    }

    // Show the layer: `mode` "pick" (buttons toggle `picks`) or "marks" (a graded result). The
    // buttons are redrawn only when `token` (what is shown) changes: steps keep arriving meanwhile.
    show(mode, picks, result, token) {
      this.layer.hidden = false;
      if (token === this.token) { this.place(); return; }
      this.token = token;
      this.mode = mode;
      this.layer.dataset.mode = mode;
      const marks = new Map();
      if (mode === "marks") {
        for (const k of result.hits) marks.set(k, "right");
        for (const k of result.wrong) marks.set(k, "wrong");
        for (const k of result.missed) marks.set(k, "missed");
      } else {
        for (const k of picks) marks.set(k, "picked");
      }
      for (const b of this.layer.children) this._mark(b, marks.get(Number(b.dataset.key)) || null);
      this.place();
    }

    hide() {
      this.layer.hidden = true;
      this.token = null;
    }

    _mark(b, mark) {
      const m = mark && MARKS[mark];
      if (mark) b.dataset.mark = mark; else delete b.dataset.mark;
      b.firstChild.textContent = m ? m.symbol : "";
      const picking = this.mode === "pick";
      b.setAttribute("aria-pressed", picking && mark === "picked" ? "true" : "false");
      if (picking) b.removeAttribute("aria-disabled"); else b.setAttribute("aria-disabled", "true");
      b.setAttribute("aria-label", m && !picking ? _("{cell}: {mark}", { cell: b.dataset.name, mark: m.say }) : b.dataset.name);
    }

    // Lay the layer over the grid's cells, with the grid's own gaps (after each build of the grid
    // and each change of its box).
    place() {
      this._follow();
      const el = this.view.el, cv = this.view.canvas;
      if (!cv || !cv.isConnected || !el.clientWidth) return;
      const box = el.getBoundingClientRect(), cells = cv.getBoundingClientRect();
      const s = this.layer.style;
      s.left = `${el.offsetLeft + cells.left - box.left}px`;
      s.top = `${el.offsetTop + cells.top - box.top}px`;
      s.width = `${cells.width}px`;
      s.height = `${cells.height}px`;
      const css = getComputedStyle(this.view.grid), gap = parseFloat(css.columnGap) || 0;
      s.gap = css.gap;
      const rows = this.layer.children.length / this.cols;
      const cw = (cells.width - (this.cols - 1) * gap) / this.cols, ch = (cells.height - (rows - 1) * gap) / rows;
      this.layer.classList.toggle("tiny", Math.min(cw, ch) < 16);
    }

    // Place the layer again whenever the view builds its grid (once per run, when first on
    // screen: possibly after the first question) or its box changes size.
    _follow() {
      if (this.bound) return;
      this.bound = true;
      const again = () => { if (!this.layer.hidden) this.place(); };
      new MutationObserver(again).observe(this.view.el, { childList: true });
      new ResizeObserver(again).observe(this.view.el);
    }

    _click(e) {
      const b = e.target.closest(".predict-cell");
      if (!b || this.mode !== "pick") return;
      const on = b.getAttribute("aria-pressed") !== "true";
      this._mark(b, on ? "picked" : null);
      this._focus(Number(b.dataset.key), false);
      this.onToggle(Number(b.dataset.key), on);
    }

    // Arrow keys move (and Home / End to the row's ends); the player's own keys are kept away.
    _key(e) {
      const b = e.target.closest(".predict-cell");
      if (!b || e.altKey || e.ctrlKey || e.metaKey) return;
      const r = Number(b.dataset.rank), c = Number(b.dataset.col), cols = this.cols;
      const rows = this.layer.children.length / cols;
      let to = null;
      if (KEYS[e.key]) {
        const [dr, dc] = KEYS[e.key];
        to = [Math.max(0, Math.min(rows - 1, r + dr)), Math.max(0, Math.min(cols - 1, c + dc))];
      } else if (e.key === "Home") to = [r, 0];
      else if (e.key === "End") to = [r, cols - 1];
      if (!to) return;
      e.preventDefault();
      this._focus(to[0] * cols + to[1], true);
    }

    _focus(key, move) {
      const cells = this.layer.children;
      if (cells[this.focusKey]) cells[this.focusKey].tabIndex = -1;
      this.focusKey = key;
      cells[key].tabIndex = 0;
      if (move) cells[key].focus();
    }
  }

  CL.PredictGrid = PredictGrid;
})(window);
