// The inspector: the real numbers of one cell (a rank's copy of a chunk), and how each was
// formed from the ranks' inputs, e.g. "10 = 1 (r0) + 2 (r1) + 3 (r2) + 4 (r3)". For all_to_all,
// the blocks meant for one destination that a rank holds.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const P = CL.palette;
  const V = CL.views;
  const SYMBOL = { sum: "+", avg: "+", prod: "×" };

  // A value as the engine sent it, short: "3.0", "0.125", "1.235e+8"; null is a non-finite one.
  function formatValue(v) {
    if (v === null || v === undefined) return "non-finite";
    if (Number.isInteger(v) && Math.abs(v) < 1e7) return v.toFixed(1);
    if (Math.abs(v) >= 1e7 || (v !== 0 && Math.abs(v) < 1e-3)) return v.toExponential(3);
    return String(Number(v.toPrecision(6)));
  }

  class Inspector {
    constructor(el, onPick) {
      this.el = el;
      this.onPick = onPick;
      this.sel = null;
    }

    // `facts`: how this run is drawn (CollectiveLab.views.facts).
    reset(run, facts) {
      this.run = run;
      this.facts = facts;
      this.sel = null;
      this.el.innerHTML = "";
      const a2a = facts.allToAll;
      const pick = document.createElement("div");
      pick.className = "inspect-pick";
      pick.innerHTML = `<label>rank <select data-role="pick-rank" aria-label="Rank to inspect"></select></label>
        <label>${a2a ? "blocks for" : "chunk"} <select data-role="pick-col" aria-label="${a2a ? "Destination rank" : "Chunk"} to inspect"></select></label>`;
      const rs = pick.querySelector('[data-role="pick-rank"]'), cs = pick.querySelector('[data-role="pick-col"]');
      V.range(run.p).forEach((r) => rs.add(new Option(`r${r}`, r)));
      V.range(a2a ? run.p : run.C).forEach((c) => cs.add(new Option(a2a ? `r${c}` : P.chunkLabel(c), c)));
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
      this.body.innerHTML = (this.facts.allToAll ? this._allToAll(r, c, when) : this._chunk(r, c, when)) + follow;
    }

    _chunk(r, c, when) {
      const run = this.run, p = run.p, op = run.start.op;
      const cell = run.cell(r, c);
      const holders = cell ? cell.holders : [];
      const [start, stop] = run.chunks[c];
      const esc = CL.escapeHtml, full = this.facts.reduces ? p : 1;
      const head = `<p class="inspect-head"><strong>rank ${r} · chunk ${esc(P.chunkLabel(c))}</strong>
        <span class="badge ${holders.length === full ? "ok" : "pending"}" title="contributions held">${holders.length}/${full}</span>
        <span class="muted">${when} · ${stop - start === 1 ? `element ${start}` : `elements ${start}–${stop - 1}`}</span></p>`;
      if (!holders.length) return head + `<p>Rank ${r} does not hold chunk ${esc(P.chunkLabel(c))} yet.</p>`;
      const values = (cell.values || []);
      if (!values.length) return head + "<p class=\"muted\">Values are not sent for runs this large.</p>";
      const n = stop - start;
      const shown = values.length < n ? `the first ${values.length} of ${n} values were` : n === 1 ? "its value was" : `its ${n} values were`;
      const lines = values.map((v, i) => `<li><code>${esc(this._formation(v, i, holders, c, r))}</code></li>`).join("");
      let note = "";
      if (op === "avg" && this.facts.reduces) {
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

  V.Inspector = Inspector;
})(window);
