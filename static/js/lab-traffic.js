// The traffic views: a p × p heatmap of the bytes on each link (this step, or in total so far),
// and the bytes each rank has sent so far as bars, beside the cost model's total per rank.
//
// Both sit below the fold on most screens: each is drawn only while it is on screen (or about
// to be), and redrawn at the step shown when it scrolls into view. A plot's data-drawn-step
// says which step it shows; it has none while it waits to be seen.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const P = CL.palette;
  const V = CL.views;

  class TrafficView {
    constructor(el, barsEl) {
      this.el = el;
      this.barsEl = barsEl;
      this.mode = "step";
      this.stale = { heat: false, bars: false }; // a step went by while it was off screen
      this.seen = {
        heat: new V.Sighting(el, () => this._catchUp("heat")),
        bars: barsEl ? new V.Sighting(barsEl, () => this._catchUp("bars")) : null,
      };
    }

    _catchUp(part) {
      if (!this.run || !this.stale[part]) return;
      if (part === "heat") this._heat(); else this._bars();
    }

    reset(run) {
      this.run = run;
      this.t = CL.chartTheme();
      const p = run.p, t = this.t, n = run.nodes;
      const every = V.tickStep(p, 16);
      const ticks = V.range(p).filter((r) => r % every === 0);
      // A switch that adds in the network gets a row and a column after the ranks.
      const nodeTicks = ticks.concat(V.range(n).slice(p));
      const names = nodeTicks.map((q) => run.nodeName(q));
      this.layout = V.layout(t, {
        margin: { l: n > p ? 84 : 54, r: 10, t: 34, b: 10 },
        xaxis: { side: "top", title: { text: n > p ? _("to rank or switch") : _("to rank"), font: { size: 12 } }, tickvals: nodeTicks, ticktext: names, fixedrange: true, showgrid: false, zeroline: false },
        yaxis: { autorange: "reversed", tickvals: nodeTicks, ticktext: names, fixedrange: true, showgrid: false, zeroline: false },
      });
      this.barLayout = V.layout(t, {
        margin: { l: 54, r: 10, t: 22, b: 30 }, // the top margin holds the formula's legend
        bargap: p > 32 ? 0.05 : 0.2,
        xaxis: { tickvals: ticks, ticktext: ticks.map((r) => `r${r}`), fixedrange: true, showgrid: false, tickfont: { size: 10 } },
        yaxis: { title: { text: _("sent so far"), font: { size: 12 } }, fixedrange: true, rangemode: "tozero" },
      });
      this.scanned = 0; // steps whose traffic is in stepMax and totals
      this.stepMax = 1;
      this.totals = new Float64Array(n * n);
    }

    // Fix the colour range over every step received, so a colour means the same bytes throughout.
    _scan() {
      const run = this.run;
      for (; this.scanned < run.received; this.scanned++) {
        for (const [k, link] of run.stepLinks(this.scanned)) {
          this.stepMax = Math.max(this.stepMax, link.bytes);
          this.totals[k] += link.bytes;
        }
      }
    }

    // Draw what is on screen; mark the rest to be drawn when it is seen.
    async render() {
      const work = [];
      for (const part of ["heat", "bars"]) {
        const seen = this.seen[part];
        if (!seen) continue;
        this.stale[part] = !seen.visible;
        if (seen.visible) work.push(part === "heat" ? this._heat() : this._bars());
        else delete (part === "heat" ? this.el : this.barsEl).dataset.drawnStep;
      }
      await Promise.all(work);
    }

    async _drawn(el, drawing) {
      const step = String(this.run.cursor + 1);
      await drawing;
      el.dataset.drawnStep = step;
    }

    _heat() {
      const run = this.run, p = run.p, n = run.nodes, name = (q) => run.nodeName(q);
      this.stale.heat = false;
      this._scan();
      const z = V.range(n).map(() => new Array(n).fill(null));
      const text = V.range(n).map(() => new Array(n).fill(""));
      if (this.mode === "step") {
        for (const [k, link] of run.stepLinks(run.cursor)) {
          const s = Math.floor(k / n), d = k % n;
          z[s][d] = link.bytes;
          const said = { src: name(s), dst: name(d), bytes: CL.formatBytes(link.bytes), n: link.chunks };
          text[s][d] = link.chunks > 1 ? _("{src} → {dst}: {bytes} in this step ({n} chunks)", said)
            : _("{src} → {dst}: {bytes} in this step ({n} chunk)", said);
        }
      } else {
        for (let s = 0; s < n; s++) for (let d = 0; d < n; d++) {
          const b = run.linkBytes[s * n + d];
          if (b > 0) { z[s][d] = b; text[s][d] = _("{src} → {dst}: {bytes} so far", { src: name(s), dst: name(d), bytes: CL.formatBytes(b) }); }
        }
      }
      const heat = {
        type: "heatmap", z, text, hoverinfo: "text", hoverongaps: false, x: V.range(n), y: V.range(n),
        colorscale: P.COUNT_SCALE, zmin: 0, xgap: p <= 32 ? 1 : 0, ygap: p <= 32 ? 1 : 0,
        zmax: this.mode === "step" ? this.stepMax : Math.max(1, ...this.totals),
        colorbar: { thickness: 12, len: 0.9, outlinewidth: 0, title: { text: _("bytes"), side: "top", font: { size: 12 } }, tickfont: { size: 11 } },
      };
      return this._drawn(this.el, global.Plotly.react(this.el, [heat], this.layout, CL.CHART_CONFIG));
    }

    _bars() {
      const run = this.run, p = run.p, t = this.t;
      this.stale.bars = false;
      const expected = run.start.expected_bytes_per_rank;
      const sent = Array.from(run.rankBytes);
      const final = run.done ? Math.max(...run.done.bytes_sent) : 0;
      const formula = Array.isArray(expected) ? expected : typeof expected === "number" ? V.range(p).map(() => expected) : null;
      const top = Math.max(final, ...(formula || [0]), ...sent, 1) * 1.12;
      const data = [{
        type: "bar", x: V.range(p), y: sent, marker: { color: t.rank.fill, line: { color: t.rank.line, width: 1 } },
        hovertext: sent.map((b, r) => (formula
          ? _("r{rank} has sent {bytes} of {total} (formula)", { rank: r, bytes: CL.formatBytes(b), total: CL.formatBytes(formula[r]) })
          : _("r{rank} has sent {bytes}", { rank: r, bytes: CL.formatBytes(b) }))),
        hoverinfo: "text",
      }];
      const annotations = [];
      if (formula) {
        data.push({
          type: "scatter", mode: "markers", x: V.range(p), y: formula, hoverinfo: "skip", cliponaxis: false,
          marker: { symbol: "line-ew-open", size: Math.max(6, Math.min(30, 420 / p)), color: t.fg, line: { width: 2, color: t.fg } },
        });
        // Above the plotting area, where no bar or formula mark can reach it.
        annotations.push({ xref: "paper", x: 1, yref: "paper", y: 1, xanchor: "right", yanchor: "bottom", yshift: 2,
          showarrow: false, text: _("— formula's total per rank"), font: { size: 11, color: t.muted } });
      }
      const layout = Object.assign({}, this.barLayout, { annotations, yaxis: Object.assign({}, this.barLayout.yaxis, { range: [0, top] }) });
      return this._drawn(this.barsEl, global.Plotly.react(this.barsEl, data, layout, CL.CHART_CONFIG));
    }
  }

  V.TrafficView = TrafficView;
})(window);
