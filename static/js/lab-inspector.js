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
      const words = {
        rank: _("rank"), rankAria: _("Rank to inspect"),
        col: a2a ? _("blocks for") : _("chunk"), colAria: a2a ? _("Destination rank to inspect") : _("Chunk to inspect"),
      };
      pick.innerHTML = `<label>${words.rank} <select data-role="pick-rank" aria-label="${words.rankAria}"></select></label>
        <label>${words.col} <select data-role="pick-col" aria-label="${words.colAria}"></select></label>`;
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
      this.body.innerHTML = '<p class="muted">' + _("Click a cell of the buffer grid, or pick a rank and a chunk above.") + "</p>";
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
      const when = run.cursor < 0 ? _("before the first step") : _("after step {k}", { k: run.cursor + 1 });
      const follow = this.pinned ? "" : '<p class="muted small follow">' + _("Following what each step changes; click a cell to keep one.") + "</p>";
      this.body.innerHTML = (this.facts.allToAll ? this._allToAll(r, c, when) : this._chunk(r, c, when)) + follow;
    }

    _chunk(r, c, when) {
      const run = this.run, p = run.p, op = run.start.op;
      const cell = run.cell(r, c);
      const holders = cell ? cell.holders : [];
      const [start, stop] = run.chunks[c];
      const esc = CL.escapeHtml, full = this.facts.reduces ? p : 1;
      const span = stop - start === 1 ? _("element {i}", { i: start }) : _("elements {first}–{last}", { first: start, last: stop - 1 });
      const title = _("rank {rank} · chunk {chunk}", { rank: r, chunk: esc(P.chunkLabel(c)) }), heldWord = _("contributions held");
      const head = `<p class="inspect-head"><strong>${title}</strong>
        <span class="badge ${holders.length === full ? "ok" : "pending"}" title="${heldWord}">${holders.length}/${full}</span>
        <span class="muted">${when} · ${span}</span></p>`;
      if (!holders.length) return head + "<p>" + _("Rank {rank} does not hold chunk {chunk} yet.", { rank: r, chunk: esc(P.chunkLabel(c)) }) + "</p>";
      const values = (cell.values || []);
      if (!values.length) return head + '<p class="muted">' + _("Values are not sent for runs this large.") + "</p>";
      const n = stop - start;
      const how = values.length < n ? _("How the first {shown} of {n} values were formed:", { shown: values.length, n })
        : n === 1 ? _("How its value was formed:") : _("How its {n} values were formed:", { n });
      const lines = values.map((v, i) => `<li><code>${esc(this._formation(v, i, holders, c, r))}</code></li>`).join("");
      let note = "";
      if (op === "avg" && this.facts.reduces) {
        note = '<p class="muted small">' + _("avg: the transfers add; each rank divides by p = {p} once at the end, so the output is this sum ÷ {p}.", { p }) + "</p>";
      }
      return head + `<p class="small">${how}</p><ol class="formation">${lines}</ol>${note}`;
    }

    _formation(v, i, holders, c, r) {
      const run = this.run, op = run.start.op;
      const initial = (s) => {
        const cell = run.initial.get(run.key(s, c));
        return cell && cell.values ? cell.values[i] : undefined;
      };
      if (holders.length === 1) {
        const s = holders[0];
        const source = s === r ? _("its own input") : _("r{rank}'s input, copied", { rank: s });
        return `${formatValue(v)} = ${source}${s !== r && initial(s) !== undefined ? ` (${formatValue(initial(s))})` : ""}`;
      }
      const terms = holders.map((s) => `${initial(s) === undefined ? "?" : formatValue(initial(s))} (r${s})`);
      const shown = terms.length > 8 ? [...terms.slice(0, 6), "…", terms[terms.length - 1]] : terms;
      const count = terms.length > 8 ? "   [" + _("{n} terms", { n: terms.length }) + "]" : "";
      if (SYMBOL[op]) return `${formatValue(v)} = ${shown.join(` ${SYMBOL[op]} `)}${count}`;
      return `${formatValue(v)} = ${op}(${shown.join(", ")})${count}`;
    }

    _allToAll(r, d, when) {
      const run = this.run, p = run.p;
      const rows = [];
      for (let s = 0; s < p; s++) {
        const cell = run.cell(r, s * p + d);
        if (cell && cell.holders.length) {
          const from = _("from r{rank}:", { rank: s });
          rows.push(`<li>${from} <code>${(cell.values || []).map(formatValue).join("  ")}</code></li>`);
        }
      }
      const SHOW = 12;
      const more = _("and {n} more blocks", { n: rows.length - SHOW });
      const list = rows.length > SHOW ? [...rows.slice(0, SHOW), `<li class="muted">${more}</li>`] : rows;
      const title = _("rank {rank} · blocks meant for r{dest}", { rank: r, dest: d });
      const head = `<p class="inspect-head"><strong>${title}</strong>
        <span class="badge ${rows.length === p && r === d ? "ok" : "pending"}">${rows.length}/${p}</span>
        <span class="muted">${when}</span></p>`;
      const role = r === d ? _("Rank {rank} is their destination: it needs all {p}.", { rank: r, p })
        : _("Rank {rank} is not their destination: it holds them as their sender or in passing.", { rank: r });
      const why = '<p class="muted small">' + _("Block s·p+d is what rank s sends to rank d.") + ` ${role}</p>`;
      return head + (rows.length ? `<ul class="formation">${list.join("")}</ul>` : "<p>" + _("None yet.") + "</p>") + why;
    }
  }

  V.Inspector = Inspector;
})(window);
