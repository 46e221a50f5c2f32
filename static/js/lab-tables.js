// The figures' text alternatives: this step's transfers (from, to, chunk, op, elements, bytes)
// and the buffer grid (rank rows × chunk columns, each cell "k/p"), as real tables a screen
// reader can walk, each behind a "… as a table" disclosure and filled only while it is open
// (a 64-rank grid is 4,096 cells: no point building it on every step nobody reads).
//
// The grid's table is a second way into the grid, not a copy with a life of its own: its cells
// are the buffer view's own counts, captioned with the step they show (while chunks fly, the
// player's cursor is already one ahead), and the cell picked in the grid is the one marked here.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const P = CL.palette;
  const V = CL.views;
  const MAX_TRANSFER_ROWS = 256; // a direct all-to-all step on 64 ranks has 4,032

  const TEXT = {
    transfersCaption: (k, n, phase, count) => (k === 0
      ? _("Before the first step of {n}: no transfers yet.", { n })
      : phase ? _("Transfers in step {k} of {n} ({phase}): {count}.", { k, n, phase, count })
        : _("Transfers in step {k} of {n}: {count}.", { k, n, count })),
    transfersHead: [_("From"), _("To"), _("Chunk"), _("Op"), _("Elements"), _("Bytes")],
    transfersLeft: (n) => _("and {n} more transfers in this step, not listed", { n }),
    gridCaption: (k, n, full, a2a) => {
      const what = a2a ? _("for each rank, how many of the blocks meant for each destination it holds.")
        : full > 1 ? _("for each rank and chunk, how many of the {full} contributions that copy holds.", { full })
          : _("for each rank and chunk, whether that rank holds it (1/1).");
      return k === 0 ? _("Buffers before the first step: {what}", { what })
        : _("Buffers after step {k} of {n}: {what}", { k, n, what });
    },
    rankHead: _("Rank"),
    column: (c, a2a) => (a2a ? _("for r{rank}", { rank: c }) : P.chunkLabel(c)),
    empty: _("empty"),
    selected: _("(selected)"),
    ops: { copy: _("copy"), reduce: _("reduce") },
  };

  class Tables {
    constructor(root) {
      const q = (role) => root.querySelector(`[data-role="${role}"]`);
      this.transfersEl = q("transfers-table");
      this.gridEl = q("grid-table");
      this.run = null;
      for (const d of [q("transfers-details"), q("grid-details")]) {
        if (d) d.addEventListener("toggle", () => this.render());
      }
    }

    reset(run, buffer) {
      this.run = run;
      this.buffer = buffer;
    }

    // Refill the tables that are open.
    render() {
      if (!this.run) return;
      if (this._open(this.transfersEl)) this.transfersEl.innerHTML = this._transfers();
      if (this._open(this.gridEl)) this.gridEl.innerHTML = this._grid();
    }

    _open(el) { return Boolean(el && el.closest("details").open); }

    _transfers() {
      const run = this.run, i = run.cursor, esc = CL.escapeHtml;
      const list = i < 0 ? [] : run.steps[i].transfers;
      const caption = TEXT.transfersCaption(i + 1, run.total, i < 0 ? "" : run.phase(i), list.length);
      if (!list.length) return `<p class="small">${esc(caption)}</p>`;
      const rows = list.slice(0, MAX_TRANSFER_ROWS).map((t) => `<tr><td>r${t.src}</td><td>r${t.dst}</td>`
        + `<td>${esc(P.chunkLabel(t.chunk))}</td><td>${esc(TEXT.ops[t.op] || t.op)}</td><td>${t.elements}</td>`
        + `<td>${esc(CL.formatBytes(t.elements * run.itemsize))}</td></tr>`).join("");
      const left = list.length - MAX_TRANSFER_ROWS;
      const foot = left > 0 ? `<p class="muted small">${esc(TEXT.transfersLeft(left))}</p>` : "";
      const head = TEXT.transfersHead.map((h) => `<th scope="col">${h}</th>`).join("");
      return `<table class="data-table" data-role="transfers-rows"><caption class="visually-hidden">${esc(caption)}</caption>`
        + `<thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>${foot}`;
    }

    _grid() {
      const run = this.run, b = this.buffer, a2a = b.a2a, full = b.zmax;
      const sel = b.selected || [-1, -1];
      const head = `<th scope="col">${TEXT.rankHead}</th>`
        + V.range(b.cols).map((c) => `<th scope="col">${CL.escapeHtml(TEXT.column(c, a2a))}</th>`).join("");
      const body = V.range(run.p).map((r) => {
        const cells = V.range(b.cols).map((c) => {
          const z = b.z[r][c];
          const text = z === null ? TEXT.empty : `${z}/${full}`;
          const picked = r === sel[0] && c === sel[1];
          return picked
            ? `<td class="selected" aria-current="true">${text} <span class="visually-hidden">${TEXT.selected}</span></td>`
            : `<td>${text}</td>`;
        }).join("");
        return `<tr><th scope="row">r${r}</th>${cells}</tr>`;
      }).join("");
      const caption = TEXT.gridCaption(b.cursor + 1, run.total, full, a2a);
      return `<table class="data-table grid-table" data-role="grid-rows"><caption class="visually-hidden">${CL.escapeHtml(caption)}</caption>`
        + `<thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
    }
  }

  V.Tables = Tables;
})(window);
