// The sweep chart: time against message size for the raced algorithms on the chosen topology's
// clock (solid) beside the plain α-β model (dotted), with the sizes where the fastest algorithm
// changes marked for each (GET /api/race/sweep). Algorithms are told apart by marker and by a
// label at the end of each line, not by colour: on these pages a colour means a chunk.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const F = CL.raceFormat;
  const SYMBOLS = ["circle", "square", "diamond", "triangle-up"];
  const TICKS = Array.from({ length: 11 }, (_, i) => 2 ** (4 * i)); // 1 B, 16 B, ..., 1 TiB

  const nice = (name) => CL.algorithmName(name);
  const size = (b) => CL.formatBytes(b, "binary");

  function sentence(model, label) {
    if (!model.crossovers.length) {
      const f = model.fastest[0];
      return _("{label}: {algorithm} is fastest at every size from {low} to {high}.",
        { label, algorithm: nice(f.algorithm), low: size(f.low_bytes), high: size(f.high_bytes) });
    }
    const parts = model.crossovers.map((c) => _("{above} overtakes {below} at {size}", { above: nice(c.above), below: nice(c.below), size: size(c.bytes) }));
    const separator = _("; ");
    return _("{label}: {parts}.", { label, parts: parts.join(separator) });
  }

  class RaceSweep {
    constructor(plot, text, sub) {
      this.plot = plot;
      this.text = text;
      this.sub = sub;
    }

    fail(message) {
      this.text.textContent = _("No sweep: {message}", { message });
    }

    draw(data, bytes) {
      const t = CL.chartTheme();
      const x = data.sizes_bytes;
      const traces = [];
      const clockWord = _("clock"), modelWord = _("α-β model");
      data.algorithms.forEach((name, i) => {
        const marker = { symbol: SYMBOLS[i % SYMBOLS.length], size: 7 };
        const hover = (what) => `${nice(name)} (${what})<br>%{customdata}: %{text}<extra></extra>`;
        const custom = x.map(size);
        traces.push({
          x, y: data.clock.times_s[name], name: `${nice(name)} · ${clockWord}`, mode: "lines+markers",
          line: { color: t.fg, width: 2 }, marker: Object.assign({ color: t.fg }, marker),
          customdata: custom, text: data.clock.times_s[name].map(F.formatTime), hovertemplate: hover(_("clock")),
        });
        traces.push({
          x, y: data.model.times_s[name], name: `${nice(name)} · ${modelWord}`, mode: "lines+markers",
          line: { color: t.muted, width: 1.5, dash: "dot" }, marker: Object.assign({ color: t.muted, opacity: 0.7 }, marker),
          customdata: custom, text: data.model.times_s[name].map(F.formatTime), hovertemplate: hover(_("α-β model")),
        });
      });
      const shapes = [], annotations = [];
      const vline = (at, color, dash, width) => shapes.push({
        type: "line", xref: "x", yref: "paper", x0: at, x1: at, y0: 0, y1: 1, line: { color, dash, width },
      });
      for (const c of data.clock.crossovers) {
        vline(c.bytes, t.accent, "solid", 2);
        annotations.push({ x: Math.log10(c.bytes), y: 1, yref: "paper", yanchor: "bottom", showarrow: false,
          text: _("clock: {algorithm} ahead above {size}", { algorithm: nice(c.above), size: size(c.bytes) }), font: { color: t.accent, size: 12 } });
      }
      for (const c of data.model.crossovers) {
        vline(c.bytes, t.muted, "dot", 1.5);
        annotations.push({ x: Math.log10(c.bytes), y: 0.02, yref: "paper", yanchor: "bottom", xanchor: "left", showarrow: false,
          text: " " + _("α-β model: {size}", { size: size(c.bytes) }), font: { color: t.muted, size: 11 } });
      }
      if (bytes > 0) vline(bytes, t.line, "dash", 1);
      const layout = CL.chartLayout(t, {
        margin: { l: 64, r: 16, t: 40, b: 90 }, showlegend: true, dragmode: false, hovermode: "closest",
        legend: { orientation: "h", y: -0.25, font: { size: 12 } },
        xaxis: { type: "log", title: { text: _("message size") }, fixedrange: true, tickvals: TICKS, ticktext: TICKS.map(size) },
        yaxis: { type: "log", title: { text: _("time (s)") }, fixedrange: true, exponentformat: "SI" },
        shapes, annotations,
      });
      global.Plotly.react(this.plot, traces, layout, CL.CHART_CONFIG);
      this.plot.dataset.traces = String(traces.length);
      this.sub.textContent = "· " + _("{topology}, {n} ranks", { topology: data.topology_label, n: data.ranks });
      const p1 = document.createElement("p"), p2 = document.createElement("p");
      p1.dataset.role = "clock-crossovers";
      p2.dataset.role = "model-crossovers";
      p1.textContent = sentence(data.clock, _("On this topology's clock"));
      p2.textContent = sentence(data.model, _("In the plain α-β model"));
      p2.className = "muted";
      this.text.replaceChildren(p1, p2);
    }
  }

  CL.RaceSweep = RaceSweep;
})(window);
