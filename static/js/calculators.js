// Live calculator widgets. Each widget reads its inputs, asks GET /api/calc/<name> (debounced),
// and draws the answer: headline numbers, the sentence, the formula with numbers, a table and
// Plotly charts. Every number comes from the server's cost model; this file only converts
// units for display (µs/ms/s, GB/s or Gb/s, sizes in the family the result names) and never
// evaluates a cost formula. On a page of its own in a frame (the embed) the widget is compact.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const P = CL.palette;

  const DEBOUNCE_MS = 200;
  const BITS_PER_BYTE = 8; // display conversion between GB/s and Gb/s
  const TIME_SCALE = { ns: 1e-9, us: 1e-6, ms: 1e-3, s: 1 };
  const TIME_LABEL = { ns: "ns", us: "µs", ms: "ms", s: "s" };
  const MOST_LOG_TICKS = 7;
  const PLOT_HEIGHT = { full: 250, compact: 210 }; // px of a chart without its legend
  const LEGEND_ROW = 22; // px per row of legend entries
  const LEGEND_ENTRY = 150; // px per legend entry: the longest names fit ("double binary tree")

  // -- formatting -----------------------------------------------------------------------------

  const sig = CL.sig;
  const sizeUnit = CL.sizeUnit;
  // Sizes in one family per panel, the one the server's result names (`sizes`).
  const formatBytes = CL.formatBytes;

  function autoTimeUnit(seconds) {
    const m = Math.abs(seconds);
    if (m >= 1) return "s";
    if (m >= 1e-3) return "ms";
    if (m >= 1e-6 || m === 0) return "us";
    return "ns";
  }

  function formatTime(seconds, unit) {
    if (seconds === null || seconds === undefined) return "—";
    if (seconds === 0) return "0 s";
    const u = unit === "auto" ? autoTimeUnit(seconds) : unit;
    return sig(seconds / TIME_SCALE[u], 4) + " " + TIME_LABEL[u];
  }

  function formatBandwidth(gbs, unit) {
    if (gbs === null || gbs === undefined) return "—";
    return unit === "Gbps" ? sig(gbs * BITS_PER_BYTE, 4) + " Gb/s" : sig(gbs, 4) + " GB/s";
  }

  function formatValue(value, kind, units) {
    if (value === null || value === undefined) return "—";
    switch (kind) {
      case "time": return formatTime(value, units.time);
      case "bytes": return formatBytes(value, units.sizes);
      case "bandwidth": return formatBandwidth(value, units.bandwidth);
      case "ratio": return sig(value, 4);
      case "percent": return sig(value, 3) + " %";
      case "count": return Number(value).toLocaleString("en-US");
      default: return String(value).replace(/_/g, " ");
    }
  }

  // -- one widget -----------------------------------------------------------------------------

  function presets() {
    const node = document.getElementById("calc-presets");
    return node ? JSON.parse(node.textContent) : {};
  }

  class Widget {
    constructor(root, linkPresets) {
      this.root = root;
      this.presets = linkPresets;
      this.data = JSON.parse(root.querySelector('script[data-role="calc-data"]').textContent);
      this.spec = this.data.spec;
      this.fields = new Map(this.spec.fields.map((f) => [f.name, f]));
      this.form = root.querySelector('[data-role="form"]');
      this.errorBox = root.querySelector('[data-role="error"]');
      this.units = { time: "auto", bandwidth: "GBps", sizes: this.data.result.sizes || "binary" };
      this.timer = null;
      this.controller = null;
      this.revision = 0;
      this.result = this.data.result;
      this.compact = root.classList.contains("calc-compact"); // the embed: every pixel counts
      for (const name of this.fields.keys()) this.syncFromNumber(name);
      this.filterAlgorithms();
      this.bind();
      this.render(this.result);
    }

    el(name, role) {
      const field = this.form.querySelector(`[data-field="${name}"]`);
      if (!field) return null;
      return role ? field.querySelector(`[data-role="${role}"]`) : field.querySelector(`[name="${name}"]`);
    }

    // Bandwidth inputs show GB/s or Gb/s; the API always takes GB/s.
    bandwidthFactor(name) {
      const f = this.fields.get(name);
      return f && f.unit === "gbs" && this.units.bandwidth === "Gbps" ? BITS_PER_BYTE : 1;
    }

    apiValue(name) {
      const input = this.el(name);
      const f = this.fields.get(name);
      if (f.kind === "bool") return input.checked ? "true" : "false";
      if (f.kind === "int" || f.kind === "float") {
        const factor = this.bandwidthFactor(name);
        if (factor === 1 || input.value.trim() === "") return input.value.trim();
        return String(Number(input.value) / factor);
      }
      return input.value;
    }

    setNumber(name, apiValue) {
      const input = this.el(name);
      if (!input) return;
      input.value = String(Number((apiValue * this.bandwidthFactor(name)).toPrecision(12)));
      this.syncFromNumber(name);
    }

    syncFromNumber(name) {
      const f = this.fields.get(name);
      if (f.kind !== "int" && f.kind !== "float") return;
      const value = Number(this.el(name).value) / this.bandwidthFactor(name);
      const slider = this.el(name, "slider");
      if (slider && Number.isFinite(value) && value > 0) {
        const position = slider.dataset.log2 === "true" ? Math.round(Math.log2(value)) : value;
        slider.value = String(Math.min(Number(slider.max), Math.max(Number(slider.min), position)));
        slider.setAttribute("aria-valuetext", f.unit === "bytes" ? formatBytes(value, this.units.sizes) : String(value));
      }
      const pretty = this.el(name, "pretty");
      if (pretty) pretty.textContent = Number.isFinite(value) ? formatBytes(value, this.units.sizes) : "";
    }

    syncFromSlider(name) {
      const slider = this.el(name, "slider");
      const raw = Number(slider.value);
      const value = slider.dataset.log2 === "true" ? 2 ** raw : raw;
      this.setNumber(name, value);
    }

    applyPreset(presetField) {
      const key = this.el(presetField.name).value;
      const link = this.presets[key];
      if (!link || !presetField.fills) return;
      const [latency, bandwidth] = presetField.fills;
      this.setNumber(latency, link.latency_us);
      this.setNumber(bandwidth, link.bandwidth_gbs);
    }

    // Offer only the chosen collective's algorithms (the catalog comes with the page).
    filterAlgorithms() {
      const collective = this.el("collective");
      const algorithm = this.el("algorithm");
      if (!collective || !algorithm || algorithm.tagName !== "SELECT") return;
      const allowed = this.data.algorithms[collective.value] || [];
      for (const option of algorithm.options) {
        const ok = allowed.includes(option.value);
        option.hidden = !ok;
        option.disabled = !ok;
      }
      if (!allowed.includes(algorithm.value) && allowed.length) algorithm.value = allowed[0];
    }

    // Editing a latency or bandwidth by hand makes its preset "custom".
    markCustom(name) {
      for (const f of this.fields.values()) {
        if (f.kind === "preset" && f.fills && f.fills.includes(name)) this.el(f.name).value = "custom";
      }
    }

    bind() {
      this.form.addEventListener("submit", (event) => {
        event.preventDefault();
        this.fetchNow();
      });
      this.form.addEventListener("input", (event) => this.onInput(event.target));
      document.addEventListener("themechange", () => { if (this.result) this.render(this.result); });
      this.form.addEventListener("change", (event) => this.onInput(event.target, true));
      this.root.querySelector('[data-role="time-unit"]').addEventListener("change", (event) => {
        this.units.time = event.target.value;
        this.render(this.result);
      });
      this.root.querySelector('[data-role="bandwidth-unit"]').addEventListener("change", (event) => {
        const before = new Map();
        for (const f of this.fields.values()) if (f.unit === "gbs") before.set(f.name, Number(this.apiValue(f.name)));
        this.units.bandwidth = event.target.value;
        for (const [name, gbs] of before) if (Number.isFinite(gbs)) this.setNumber(name, gbs);
        for (const f of this.fields.values()) {
          if (f.unit !== "gbs") continue;
          const label = this.el(f.name, "unit");
          if (label) label.textContent = this.units.bandwidth === "Gbps" ? "Gb/s" : "GB/s";
        }
        this.render(this.result);
      });
    }

    onInput(target, committed) {
      const holder = target.closest("[data-field]");
      if (!holder) return;
      const name = holder.dataset.field;
      const f = this.fields.get(name);
      if (target.dataset.role === "slider") this.syncFromSlider(name);
      else if (f.kind === "int" || f.kind === "float") this.syncFromNumber(name);
      if (name === "collective") this.filterAlgorithms();
      if (f.kind === "preset") {
        if (!committed && target.tagName === "SELECT") return; // change event follows
        this.applyPreset(f);
      } else if (f.unit === "us" || f.unit === "gbs") {
        this.markCustom(name);
      }
      this.schedule();
    }

    schedule() {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.fetchNow(), DEBOUNCE_MS);
    }

    query() {
      const params = new URLSearchParams();
      for (const name of this.fields.keys()) params.set(name, this.apiValue(name));
      return params;
    }

    async fetchNow() {
      clearTimeout(this.timer);
      if (this.controller) this.controller.abort();
      const controller = new AbortController();
      this.controller = controller;
      this.root.setAttribute("aria-busy", "true");
      try {
        const response = await fetch(`${this.data.api}?${this.query()}`, {
          headers: { Accept: "application/json" },
          signal: controller.signal,
        });
        const body = await response.json();
        if (controller.signal.aborted) return;
        if (!response.ok) {
          this.withdraw(body.error || `The server answered ${response.status}.`);
          return;
        }
        this.showError("");
        this.result = body;
        this.render(body);
      } catch (error) {
        if (error.name !== "AbortError") this.withdraw("Could not reach the server: " + error.message);
      } finally {
        if (this.controller === controller) {
          this.controller = null;
          this.root.removeAttribute("aria-busy");
        }
      }
    }

    showError(message) {
      this.errorBox.textContent = message;
      this.errorBox.hidden = !message;
      for (const input of this.form.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
      const field = this.fieldNamedIn(message);
      if (field) for (const input of field.querySelectorAll("input, select")) input.setAttribute("aria-invalid", "true");
    }

    // The server's messages begin with the field as the API spells it ("top_k must be ...").
    fieldNamedIn(message) {
      let first = null;
      for (const name of this.fields.keys()) {
        const at = message.search(new RegExp(`\\b${name}\\b`));
        if (at >= 0 && (!first || at < first.at)) first = { name, at };
      }
      return first && this.form.querySelector(`[data-field="${first.name}"]`);
    }

    // No answer for these inputs: take the last one off the screen rather than leave it looking
    // like the answer to what is typed now.
    withdraw(message) {
      this.showError(message);
      this.result = null;
      this.root.querySelector('[data-role="outputs"]').replaceChildren();
      for (const role of ["interpretation", "substituted"]) this.root.querySelector(`[data-role="${role}"]`).textContent = "";
      this.renderTable(null);
      this.renderNotes([]);
      this.chartDivs(0);
      this.root.dataset.stale = "true";
    }

    render(result) {
      if (!result) return;
      delete this.root.dataset.stale;
      if (result.sizes && result.sizes !== this.units.sizes) {
        this.units.sizes = result.sizes;
        for (const name of this.fields.keys()) this.syncFromNumber(name);
      }
      this.renderOutputs(result.outputs);
      this.root.querySelector('[data-role="interpretation"]').textContent = result.interpretation;
      this.root.querySelector('[data-role="formula"]').textContent = result.formula;
      this.root.querySelector('[data-role="substituted"]').textContent = result.substituted;
      this.renderTable(result.table);
      this.renderNotes(result.notes);
      this.renderCharts(result.charts);
      this.revision += 1;
      this.root.dataset.revision = String(this.revision);
    }

    renderOutputs(outputs) {
      const list = this.root.querySelector('[data-role="outputs"]');
      list.replaceChildren(...outputs.map((o) => {
        const item = document.createElement("div");
        item.dataset.output = o.key;
        const term = document.createElement("dt");
        term.textContent = o.label;
        const value = document.createElement("dd");
        value.textContent = formatValue(o.value, o.kind, this.units);
        item.append(term, value);
        return item;
      }));
    }

    renderTable(table) {
      const holder = this.root.querySelector('[data-role="table"]');
      const details = holder.closest("details");
      if (!table || !table.columns) {
        details.hidden = true;
        holder.replaceChildren();
        return;
      }
      details.hidden = false;
      const el = document.createElement("table");
      const head = el.createTHead().insertRow();
      for (const title of table.columns) {
        const th = document.createElement("th");
        th.scope = "col";
        th.textContent = title;
        head.append(th);
      }
      const body = el.createTBody();
      for (const row of table.rows) {
        const tr = body.insertRow();
        row.forEach((value, i) => {
          tr.insertCell().textContent = formatValue(value, table.kinds[i], this.units);
        });
      }
      holder.replaceChildren(el);
    }

    renderNotes(notes) {
      const list = this.root.querySelector('[data-role="notes"]');
      list.replaceChildren(...(notes || []).map((text) => {
        const li = document.createElement("li");
        li.textContent = text;
        return li;
      }));
    }

    // -- charts -------------------------------------------------------------------------------

    // One <figure> per chart: its title in HTML above the plot (the legend sits between the two,
    // never on the axis), the Plotly div below.
    chartDivs(count) {
      const holder = this.root.querySelector('[data-role="charts"]');
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

    renderCharts(charts) {
      if (!global.Plotly) return;
      const divs = this.chartDivs((charts || []).length);
      charts.forEach((chart, i) => {
        const div = divs[i];
        const { traces, layout } = this.figure(chart);
        fitLegend(layout, traces.length, div.clientWidth);
        div.previousElementSibling.textContent = chart.title;
        div.setAttribute("aria-label", chart.title);
        div.dataset.kind = chart.kind;
        global.Plotly.react(div, traces, layout, CL.CHART_CONFIG);
      });
    }

    // A linear time axis: the chosen unit, or in "auto" the one that suits its largest value;
    // the unit goes in the title and the ticks stay plain numbers ("time (ms)": 50, 100, 150).
    timeAxis(maxSeconds) {
      const unit = this.units.time === "auto" ? autoTimeUnit(maxSeconds) : this.units.time;
      return { scale: 1 / TIME_SCALE[unit], title: `time (${TIME_LABEL[unit]})` };
    }

    // A log time axis spans decades, so each tick names its own unit ("100 µs", "10 ms", "1 s").
    logTimeAxis(values) {
      const unit = this.units.time;
      const title = unit === "auto" ? "time" : `time (${TIME_LABEL[unit]})`;
      return { type: "log", title: { text: title }, ...decadeTicks(values, (v) => formatTime(v, unit)) };
    }

    sizeAxis(maxBytes) {
      const [scale, unit] = sizeUnit(maxBytes, this.units.sizes);
      return { scale: 1 / scale, title: `size (${unit})` };
    }

    // The shared chart theme (common.js) at this widget's height.
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
      const size = (b) => formatBytes(b, this.units.sizes);
      const time = (t) => formatTime(t, this.units.time);
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
          name: "crossover",
          x: chart.markers.map((m) => m.x),
          y: chart.markers.map((m) => m.y),
          text: chart.markers.map((m) => `${m.label} (${time(m.y)})`),
          hovertemplate: "%{text}<extra></extra>",
          marker: { symbol: "diamond", size: 11, color: t.fg, line: { color: t.panel, width: 1 } },
        });
      }
      const layout = this.baseLayout(t);
      Object.assign(layout.xaxis, { title: { text: "message size" }, ...sizeTicks(chart.x, this.units.sizes) });
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
      const text = (v) => (bytes ? formatBytes(v, this.units.sizes) : formatTime(v, this.units.time));
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
      const time = (t) => formatTime(t, this.units.time);
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
    return { type: "log", tickvals, ticktext: tickvals.map((v) => formatBytes(v, family)) };
  }

  function init() {
    const linkPresets = presets();
    for (const root of document.querySelectorAll(".calc-widget[data-calc]")) new Widget(root, linkPresets);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})(window);
