// A calculator's charts (CollectiveLab.calc.Charts), drawn with Plotly in the shared chart theme
// (common.js): a log-log plot of time against message size, stacked bars, and a timeline. Axes
// and hover text use the widget's display units; the series are the server's.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const C = CL.calc;
  const P = CL.palette;

  const MOST_LOG_TICKS = 7;
  const PLOT_HEIGHT = { full: 250, compact: 210 }; // px of a chart without its legend
  const LEGEND_ROW = 22; // px per row of legend entries
  const LEGEND_ENTRY = 150; // px per legend entry: the longest names fit ("double binary tree")

  class Charts {
    // `holder` takes one figure per chart; `units` are the widget's display units, read at each
    // draw; `compact` (the embed) makes the plots shorter.
    constructor(holder, units, compact) {
      this.holder = holder;
      this.units = units;
      this.compact = compact;
    }

    // One <figure> per chart: its title in HTML above the plot (the legend sits between the two,
    // never on the axis), the Plotly div below.
    divs(count) {
      const holder = this.holder;
      while (holder.children.length < count) {
        const figure = document.createElement("figure");
        figure.className = "calc-figure";
        const caption = document.createElement("figcaption");
        caption.className = "calc-chart-title";
        const div = document.createElement("div");
        div.className = "calc-chart";
        div.setAttribute("role", "img");
        figure.append(caption, div);
        holder.append(figure);
      }
      while (holder.children.length > count) {
        const last = holder.lastElementChild;
        if (global.Plotly) global.Plotly.purge(last.querySelector(".calc-chart"));
        last.remove();
      }
      return Array.from(holder.children, (figure) => figure.querySelector(".calc-chart"));
    }

    draw(charts) {
      if (!global.Plotly) return;
      const divs = this.divs((charts || []).length);
      charts.forEach((chart, i) => {
        const div = divs[i];
        const { traces, layout } = this.figure(chart);
        fitLegend(layout, traces.length, div.clientWidth);
        div.previousElementSibling.textContent = chart.title;
        div.setAttribute("aria-label", chart.title);
        div.dataset.kind = chart.kind;
        global.Plotly.react(div, traces, layout, CL.CHART_CONFIG).then(() => markIdentifiers(div, chart));
      });
    }

    // A linear time axis: the chosen unit, or in "auto" the one that suits its largest value;
    // the unit goes in the title and the ticks stay plain numbers ("time (ms)": 50, 100, 150).
    timeAxis(maxSeconds) {
      const unit = this.units.time === "auto" ? C.autoTimeUnit(maxSeconds) : this.units.time;
      return { scale: 1 / C.TIME_SCALE[unit], title: _("time ({unit})", { unit: C.TIME_LABEL[unit] }) };
    }

    // A log time axis spans decades, so each tick names its own unit ("100 µs", "10 ms", "1 s").
    logTimeAxis(values) {
      const unit = this.units.time;
      const title = unit === "auto" ? _("time") : _("time ({unit})", { unit: C.TIME_LABEL[unit] });
      return { type: "log", title: { text: title }, ...decadeTicks(values, (v) => C.formatTime(v, unit)) };
    }

    sizeAxis(maxBytes) {
      const [scale, unit] = CL.sizeUnit(maxBytes, this.units.sizes);
      return { scale: 1 / scale, title: _("size ({unit})", { unit }) };
    }

    // The shared chart theme (common.js) at the widget's height.
    baseLayout(t) {
      return CL.chartLayout(t, {
        height: this.compact ? PLOT_HEIGHT.compact : PLOT_HEIGHT.full,
        margin: { l: 64, r: 16, t: 8, b: 48 },
        // Above the plot, under the chart's title: a legend below would share its row with the
        // x-axis title and run into it on a narrow chart.
        legend: { orientation: "h", x: 0, xanchor: "left", y: 1.02, yanchor: "bottom", font: { size: 12 } },
        hovermode: "closest",
      });
    }

    figure(chart) {
      const t = CL.chartTheme();
      if (chart.kind === "loglog") return this.logLog(chart, t);
      if (chart.kind === "timeline") return this.timeline(chart, t);
      return this.stacked(chart, t);
    }

    logLog(chart, t) {
      const size = (b) => CL.formatBytes(b, this.units.sizes);
      const time = (t) => C.formatTime(t, this.units.time);
      const traces = chart.series.map((s, i) => ({
        type: "scatter",
        mode: "lines",
        name: s.name.replace(/_/g, " "),
        x: chart.x,
        y: s.y.map((y) => (y > 0 ? y : null)),
        customdata: chart.x.map((x, j) => [size(x), s.y[j] > 0 ? time(s.y[j]) : "—"]),
        line: { color: P.chunkColor(i, t.name), width: 2 },
        hovertemplate: "%{customdata[0]}: %{customdata[1]}<extra>%{fullData.name}</extra>",
      }));
      if (chart.markers && chart.markers.length) {
        traces.push({
          type: "scatter",
          mode: "markers",
          name: _("crossover"),
          x: chart.markers.map((m) => m.x),
          y: chart.markers.map((m) => m.y),
          text: chart.markers.map((m) => `${m.label} (${time(m.y)})`),
          hovertemplate: "%{text}<extra></extra>",
          marker: { symbol: "diamond", size: 11, color: t.fg, line: { color: t.panel, width: 1 } },
        });
      }
      const layout = this.baseLayout(t);
      Object.assign(layout.xaxis, { title: { text: _("message size") }, ...sizeTicks(chart.x, this.units.sizes) });
      Object.assign(layout.yaxis, this.logTimeAxis(chart.series.flatMap((s) => s.y)));
      if (chart.cursor) {
        layout.shapes = [{
          type: "line", xref: "x", yref: "paper", x0: chart.cursor, x1: chart.cursor, y0: 0, y1: 1,
          line: { color: t.muted, width: 1, dash: "dot" },
        }];
        layout.annotations = [{
          x: Math.log10(chart.cursor), xref: "x", y: 1, yref: "paper", yanchor: "top", xanchor: "left",
          text: size(chart.cursor), showarrow: false, font: { size: 11 },
        }];
      }
      return { traces, layout };
    }

    stacked(chart, t) {
      const bytes = chart.y === "bytes";
      const allValues = chart.stacks.flatMap((s) => s.values);
      const largest = Math.max(0, ...allValues);
      const axis = bytes ? this.sizeAxis(largest) : this.timeAxis(largest);
      const text = (v) => (bytes ? CL.formatBytes(v, this.units.sizes) : C.formatTime(v, this.units.time));
      const traces = chart.stacks.map((s, i) => ({
        type: "bar",
        name: s.name,
        x: chart.categories.map((c) => String(c).replace(/_/g, " ")),
        y: s.values.map((v) => v * axis.scale),
        customdata: s.values.map(text),
        marker: { color: P.chunkColor(i + 1, t.name) },
        hovertemplate: "%{customdata}<extra>%{fullData.name}</extra>",
      }));
      const layout = this.baseLayout(t);
      layout.barmode = "stack";
      Object.assign(layout.yaxis, { title: { text: axis.title }, exponentformat: "none", separatethousands: true, rangemode: "tozero" });
      layout.xaxis.automargin = true;
      return { traces, layout };
    }

    timeline(chart, t) {
      const groups = [...new Set(chart.rows.map((r) => r.group))];
      const end = Math.max(...chart.rows.map((r) => r.end));
      const axis = this.timeAxis(end);
      const time = (t) => C.formatTime(t, this.units.time);
      const traces = groups.map((group, i) => {
        const rows = chart.rows.filter((r) => r.group === group);
        return {
          type: "bar",
          orientation: "h",
          name: group,
          y: rows.map(() => group),
          x: rows.map((r) => (r.end - r.start) * axis.scale),
          base: rows.map((r) => r.start * axis.scale),
          customdata: rows.map((r) => [r.label, time(r.start), time(r.end)]),
          textposition: "none",
          hovertemplate: "%{customdata[0]}: %{customdata[1]} → %{customdata[2]}<extra></extra>",
          marker: { color: P.chunkColor(i + 4, t.name), line: { color: t.panel, width: 0.5 } },
        };
      });
      const layout = this.baseLayout(t);
      layout.barmode = "overlay";
      Object.assign(layout.xaxis, { title: { text: axis.title }, exponentformat: "none", separatethousands: true, rangemode: "tozero" });
      Object.assign(layout.yaxis, { automargin: true, autorange: "reversed" });
      layout.height = Math.min(layout.height, 200); // two bars
      return { traces, layout };
    }
  }

  // Algorithm names (snake_case identifiers, drawn with spaces) stay as they are in every
  // language: the legend or category axis that shows them is marked translate="no".
  function markIdentifiers(div, chart) {
    const identifier = (name) => String(name).includes("_");
    const legend = div.querySelector(".legend");
    if (legend && (chart.series || []).some((s) => identifier(s.name))) legend.setAttribute("translate", "no");
    const axis = div.querySelector(".xaxislayer-above");
    if (axis && (chart.categories || []).some(identifier)) axis.setAttribute("translate", "no");
  }

  // A horizontal legend wraps into rows; the figure grows by those rows, so the legend never
  // covers the plot however many entries a narrow chart has.
  function fitLegend(layout, entries, width) {
    const { l, r } = layout.margin;
    if (!(width > l + r)) return; // not laid out (hidden): Plotly's own legend will do
    const columns = Math.max(1, Math.min(entries, Math.floor((width - r) / LEGEND_ENTRY)));
    const rows = Math.ceil(entries / columns);
    // From the figure's left edge, not the plot's: the y-axis margin is room for entries too.
    layout.legend.x = -l / Math.max(1, width - l - r);
    layout.legend.entrywidth = Math.floor((width - r) / columns) - 48; // less symbol and gaps
    layout.legend.entrywidthmode = "pixels";
    layout.height += rows * LEGEND_ROW;
  }

  // Ticks at powers of ten over the positive `values`, at most MOST_LOG_TICKS of them.
  function decadeTicks(values, label) {
    const positive = values.filter((v) => v > 0);
    if (!positive.length) return {};
    const low = Math.floor(Math.log10(Math.min(...positive)));
    const high = Math.ceil(Math.log10(Math.max(...positive)));
    const stride = Math.ceil((high - low + 1) / MOST_LOG_TICKS);
    const tickvals = [];
    for (let e = low; e <= high; e += stride) tickvals.push(10 ** e);
    return { tickvals, ticktext: tickvals.map(label) };
  }

  // Ticks at round sizes of the panel's family: 1 B, 1 KiB, 1 MiB, ... or 1 B, 1 kB, 1 MB, ...
  function sizeTicks(sizes, family) {
    const top = Math.max(...sizes) * 1.01;
    const step = family === "decimal" ? 1000 : 1024;
    const tickvals = [];
    for (let v = 1; v <= top; v *= step) tickvals.push(v);
    // One more round tick when the last step leaves a wide gap (16 GiB, 10 GB).
    const largest = Math.max(...sizes);
    const round = family === "decimal" ? 10 ** Math.floor(Math.log10(largest)) : 2 ** Math.floor(Math.log2(largest));
    if (round / tickvals[tickvals.length - 1] >= 4) tickvals.push(round);
    return { type: "log", tickvals, ticktext: tickvals.map((v) => CL.formatBytes(v, family)) };
  }

  C.Charts = Charts;
})(window);
