// /measure: start a measurement over the /measure Socket.IO namespace, add each row to the chart
// and the table as it arrives, then show the fit, the model's curves and the download. Every
// number and bound is the server's (app/web/live/measure.py); this file only lays them out.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const $ = (id) => document.getElementById(id);
  const ACK_TIMEOUT_MS = 10000;
  const FIELDS = { backend: "measure-backend", collective: "measure-collective" };
  const NUMBERS = { ranks: "measure-ranks", min_bytes: "measure-min", max_bytes: "measure-max",
    factor: "measure-factor", iters: "measure-iters", warmup: "measure-warmup" };
  let socket = null;
  let rows = [];
  let curves = [];
  let last = null; // the last measure_done payload, for the download
  let planned = 0;

  const bytes = (b) => CL.formatBytes(b, "binary");
  const num = (v) => (v === null || v === undefined ? "—" : CL.sig(v, 4));

  function trace(key, name, colour) {
    const kept = rows.filter((r) => r[key] && r[key].busbw_gbs !== null);
    return {
      type: "scatter", mode: "lines+markers", name,
      x: kept.map((r) => r.size), y: kept.map((r) => r[key].busbw_gbs),
      line: { color: colour, width: 2 }, marker: { size: 6 },
    };
  }

  function draw() {
    const div = $("measure-chart");
    if (!global.Plotly || !div) return;
    const t = CL.chartTheme();
    const traces = [
      trace("out_of_place", _("out-of-place"), CL.palette.chunkColor(0, t.name)),
      trace("in_place", _("in-place"), CL.palette.chunkColor(1, t.name)),
    ];
    curves.forEach((c, i) => traces.push({
      type: "scatter", mode: "lines", name: c.name,
      x: c.points.map((p) => p.size), y: c.points.map((p) => p.busbw_gbs),
      line: { color: i ? t.fg : t.muted, width: 2, dash: i ? "dot" : "dash" },
    }));
    const layout = CL.chartLayout(t, {
      height: 340, margin: { l: 64, r: 16, t: 8, b: 56 }, hovermode: "closest",
      legend: { orientation: "h", x: 0, y: 1.02, yanchor: "bottom" },
      xaxis: { type: "log", title: { text: _("message size (bytes)") } },
      yaxis: { title: { text: "busbw (GB/s)" }, rangemode: "tozero" },
    });
    div.dataset.points = String(rows.length);
    global.Plotly.react(div, traces, layout, CL.CHART_CONFIG);
  }

  function cell(text) {
    return Object.assign(document.createElement("td"), { textContent: text });
  }

  function placement(p) {
    if (!p || p.time_us === null) return [cell(_("n/a")), cell("—"), cell("—"), cell("—")];
    return [cell(num(p.time_us)), cell(num(p.algbw_gbs)), cell(num(p.busbw_gbs)), cell(String(p.wrong))];
  }

  function addRow(row) {
    rows.push(row);
    const tr = document.createElement("tr");
    tr.append(cell(bytes(row.size)), cell(String(row.count)), ...placement(row.out_of_place), ...placement(row.in_place));
    $("measure-table").tBodies[0].append(tr);
    $("measure-progress").textContent = _("{done} of {planned} sizes measured (last: {size})", { done: rows.length, planned, size: bytes(row.size) });
    draw();
  }

  function running(on) {
    $("measure-run").disabled = on;
    $("measure-cancel").disabled = !on;
  }

  function fail(message) {
    const box = $("measure-error");
    box.textContent = message;
    box.hidden = false;
    running(false);
  }

  function done(payload) {
    last = payload;
    curves = payload.curves || [];
    const result = payload.result;
    $("measure-progress").textContent = _("Finished ({status}): {n} sizes.", { status: result.status, n: result.rows.length }) +
      (result.error ? " " + result.error : "");
    $("measure-fit").hidden = false;
    $("measure-save").hidden = !payload.fit;
    $("measure-fit-text").textContent = payload.fit ? payload.fit.lines.join(" · ") : _("No fit: {error}", { error: payload.fit_error });
    $("measure-download").disabled = false;
    running(false);
    draw();
  }

  function connect() {
    socket = global.io("/measure", {
      transports: ["websocket", "polling"], tryAllTransports: true,
      query: { lang: CL.lang || "en" }, // the results are said in the page's language
    });
    socket.on("measure_row", addRow);
    socket.on("measure_done", done);
    socket.on("measure_error", (p) => fail((p && p.error) || _("the measurement failed")));
  }

  function call(event, payload) {
    return new Promise((resolve) => {
      socket.timeout(ACK_TIMEOUT_MS).emit(event, payload, (err, ack) => {
        resolve(err ? { ok: false, error: _("the server did not answer; try again") } : ack);
      });
    });
  }

  async function start(event) {
    event.preventDefault();
    const params = {};
    for (const [k, id] of Object.entries(FIELDS)) params[k] = $(id).value;
    for (const [k, id] of Object.entries(NUMBERS)) params[k] = Number($(id).value);
    if ($("measure-preset").value) params.preset = $("measure-preset").value;
    rows = []; curves = []; last = null;
    $("measure-table").tBodies[0].replaceChildren();
    $("measure-error").hidden = true;
    $("measure-fit").hidden = true;
    $("measure-saved").textContent = "";
    $("measure-download").disabled = true;
    running(true);
    const ack = await call("measure_start", params);
    if (!ack || !ack.ok) return fail((ack && ack.error) || _("the server refused the measurement"));
    planned = ack.sizes.length; // the server's sweep, not a copy of its rule
    $("measure-result").hidden = false;
    // The server's warnings (more ranks than cores, ...): its rule, not a copy of it here.
    $("measure-warnings").replaceChildren(...(ack.warnings || []).map((w) => Object.assign(document.createElement("li"), { textContent: w })));
    $("measure-progress").textContent = _("Running {collective} on {ranks} ranks: {done} of {planned} sizes", { collective: params.collective, ranks: params.ranks, done: rows.length, planned });
    draw();
  }

  async function cancel() {
    const ack = await call("measure_cancel", {});
    if (ack && ack.ok) $("measure-progress").textContent = _("Cancelling…");
  }

  async function save() {
    const ack = await call("measure_save", {});
    $("measure-saved").textContent = ack && ack.ok
      ? _("Saved: the calculators now offer \"{label}\".", { label: ack.label })
      : (ack && ack.error) || _("not saved");
    const presets = $("measure-preset");
    if (ack && ack.ok && !presets.querySelector('option[value="' + ack.key + '"]')) {
      presets.append(Object.assign(document.createElement("option"), { value: ack.key, textContent: ack.label }));
    }
  }

  function download() {
    if (!last) return;
    const blob = new Blob([JSON.stringify(last, null, 2)], { type: "application/json" });
    const a = Object.assign(document.createElement("a"), { href: URL.createObjectURL(blob), download: "measure-result.json" });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 0);
  }

  document.addEventListener("DOMContentLoaded", () => {
    if (!$("measure-form")) return;
    connect();
    $("measure-form").addEventListener("submit", start);
    $("measure-cancel").addEventListener("click", cancel);
    $("measure-save").addEventListener("click", save);
    $("measure-download").addEventListener("click", download);
    document.addEventListener("themechange", draw);
  });
})(window);
