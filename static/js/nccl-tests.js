// /nccl-tests: send the pasted (or uploaded) output to POST /api/nccl-tests and draw its answer:
// busbw against size for both placements, the model's curve, the peak, the sentence and the
// table. Every number and sentence is the server's; this file only lays them out.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const $ = (id) => document.getElementById(id);
  const FIRST_TICK = 8; // bytes: nccl-tests' usual -b 8
  const TICK_STEP = 32; // a tick every 2^5: 8 B, 256 B, 8 KiB, ... 8 GiB
  let answer = null;

  const bytes = (b) => CL.formatBytes(b, "binary");
  const gbs = (v) => (v === null || v === undefined ? "—" : CL.sig(v, 4));

  function sizeTicks(sizes) {
    const top = Math.max(...sizes);
    const low = Math.min(...sizes);
    const tickvals = [];
    for (let v = FIRST_TICK; v <= top * TICK_STEP; v *= TICK_STEP) if (v * TICK_STEP > low) tickvals.push(v);
    return { type: "log", tickvals, ticktext: tickvals.map(bytes) };
  }

  function placementTrace(rows, key, name, colour) {
    const kept = rows.filter((r) => r[key] && r[key].busbw_gbs !== null && r.size_bytes > 0);
    return {
      type: "scatter", mode: "lines+markers", name,
      x: kept.map((r) => r.size_bytes), y: kept.map((r) => r[key].busbw_gbs),
      customdata: kept.map((r) => bytes(r.size_bytes)),
      hovertemplate: "%{customdata}: %{y} GB/s<extra>" + name + "</extra>",
      line: { color: colour, width: 2 }, marker: { size: 6 },
    };
  }

  function draw() {
    const div = $("nccl-chart");
    if (!answer || !global.Plotly || !div) return;
    const t = CL.chartTheme();
    const { reading, model } = answer;
    const rows = reading.rows;
    const traces = [
      placementTrace(rows, "out_of_place", _("out-of-place"), CL.palette.chunkColor(0, t.name)),
      placementTrace(rows, "in_place", _("in-place"), CL.palette.chunkColor(1, t.name)),
    ];
    const points = (model.points || []).filter((p) => p.busbw_gbs !== null && p.size_bytes > 0);
    if (points.length) {
      traces.push({
        type: "scatter", mode: "lines", name: _("model ({preset})", { preset: model.preset }),
        x: points.map((p) => p.size_bytes), y: points.map((p) => p.busbw_gbs),
        customdata: points.map((p) => bytes(p.size_bytes)),
        hovertemplate: "%{customdata}: %{y:.4g} GB/s<extra>" + _("model") + "</extra>",
        line: { color: t.muted, width: 2, dash: "dash" },
      });
    }
    const peak = reading.peak;
    if (peak) {
      traces.push({
        type: "scatter", mode: "markers", name: _("peak"),
        x: [peak.size_bytes], y: [peak.busbw_gbs],
        hovertemplate: _("peak: {value} GB/s at {size}", { value: "%{y}", size: bytes(peak.size_bytes) }) + "<extra></extra>",
        marker: { symbol: "star", size: 14, color: t.fg, line: { color: t.panel, width: 1 } },
      });
    }
    const sizes = rows.map((r) => r.size_bytes).filter((s) => s > 0);
    const layout = CL.chartLayout(t, {
      height: 340, margin: { l: 64, r: 16, t: 8, b: 56 }, hovermode: "closest",
      legend: { orientation: "h", x: 0, y: 1.02, yanchor: "bottom" },
      xaxis: Object.assign({ title: { text: _("message size (size column)") } }, sizes.length ? sizeTicks(sizes) : {}),
      yaxis: { title: { text: "busbw (GB/s)" }, rangemode: "tozero" },
    });
    if (peak) {
      layout.annotations = [{
        x: Math.log10(peak.size_bytes), y: peak.busbw_gbs, text: _("peak {value} GB/s", { value: gbs(peak.busbw_gbs) }),
        showarrow: true, arrowhead: 0, ax: 0, ay: -28, font: { size: 12, color: t.fg },
      }];
    }
    div.dataset.peakBytes = peak ? peak.size_bytes : "";
    global.Plotly.react(div, traces, layout, CL.CHART_CONFIG);
  }

  function cell(text, bad) {
    const td = document.createElement("td");
    td.textContent = text;
    if (bad) {
      td.className = "nccl-bad";
      td.title = bad;
      td.textContent = text + " ⚠";
    }
    return td;
  }

  function placementCells(p) {
    if (!p) return ["—", "—", "—", "—"].map((v) => cell(v));
    const bad = p.consistent === false ? p.problem : "";
    return [
      cell(gbs(p.time_us)), cell(gbs(p.algbw_gbs), bad), cell(gbs(p.busbw_gbs), bad),
      cell(p.wrong === null ? "N/A" : String(p.wrong)),
    ];
  }

  function table() {
    const { reading, model } = answer;
    const modelAt = new Map((model.points || []).map((p) => [p.size_bytes, p.busbw_gbs]));
    const body = $("nccl-table").tBodies[0];
    body.replaceChildren();
    document.querySelectorAll(".nccl-wrong-head").forEach((th) => { th.textContent = reading.wrong_column; });
    for (const r of reading.rows) {
      const tr = document.createElement("tr");
      if (reading.peak && r.size_bytes === reading.peak.size_bytes) tr.className = "nccl-peak";
      tr.append(cell(bytes(r.size_bytes)), cell(String(r.count)), cell(r.type),
        ...placementCells(r.out_of_place), ...placementCells(r.in_place),
        cell(modelAt.has(r.size_bytes) ? gbs(modelAt.get(r.size_bytes)) : "—"));
      body.append(tr);
    }
  }

  function render(data) {
    answer = data;
    $("nccl-error").hidden = true;
    $("nccl-result").hidden = false;
    $("nccl-summary").textContent = data.reading.summary;
    $("nccl-sentence").textContent = data.model.sentence;
    const notes = $("nccl-notes");
    notes.replaceChildren(...data.reading.notes.map((n) => Object.assign(document.createElement("li"), { textContent: n })));
    table();
    draw();
  }

  function fail(message) {
    const box = $("nccl-error");
    box.textContent = message;
    box.hidden = false;
    $("nccl-result").hidden = true; // no chart of an earlier paste under the error
  }

  async function submit(event) {
    event.preventDefault();
    const body = { output: $("nccl-output").value, preset: $("nccl-preset").value };
    if ($("nccl-collective").value) body.collective = $("nccl-collective").value;
    if ($("nccl-ranks").value) body.ranks = Number($("nccl-ranks").value);
    let response;
    try {
      response = await fetch("/api/nccl-tests?lang=" + encodeURIComponent(CL.lang || "en"), {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      });
    } catch (e) {
      fail(_("The server did not answer: {error}", { error: e.message }));
      return;
    }
    const data = await response.json().catch(() => ({ error: _("the server's answer was not JSON") }));
    if (!response.ok) fail(data.error || _("the output could not be read"));
    else render(data);
  }

  async function load(event) {
    const file = event.target.files[0];
    if (!file) return;
    $("nccl-output").value = await file.text();
    $("nccl-form").requestSubmit();
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("nccl-form").addEventListener("submit", submit);
    $("nccl-file").addEventListener("change", load);
    document.addEventListener("themechange", draw);
  });
})(window);
