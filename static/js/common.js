// What every page's scripts share, under the one global `window.CollectiveLab`: byte counts
// written one way, HTML escaping, and the chart theme every Plotly chart is drawn with.
//
// Load it before the page's other scripts (after palette.js is fine too: each adds to the
// namespace). A page that includes it twice (a lesson with a calculator and a self-check) keeps
// one namespace: this file only ever adds to it.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab || (global.CollectiveLab = {});

  // Byte sizes in one family per display, so MiB and MB never mix on one screen.
  const SIZE_UNITS = {
    binary: [[2 ** 40, "TiB"], [2 ** 30, "GiB"], [2 ** 20, "MiB"], [2 ** 10, "KiB"], [1, "B"]],
    decimal: [[1e12, "TB"], [1e9, "GB"], [1e6, "MB"], [1e3, "kB"], [1, "B"]],
  };

  // `x` to `digits` significant digits, thousands grouped: 1234.5678 → "1,235".
  function sig(x, digits) {
    return Number(x.toPrecision(digits)).toLocaleString("en-US", { maximumFractionDigits: 12 });
  }

  // The largest unit of `family` ("binary" or "decimal") not above `bytes`: [bytes per unit, name].
  function sizeUnit(bytes, family) {
    const units = SIZE_UNITS[family] || SIZE_UNITS.decimal;
    return units.find(([scale]) => Math.abs(bytes) >= scale) || units[units.length - 1];
  }

  // "1.5 MiB", "12 kB", "0 B"; "—" when there is no number.
  function formatBytes(bytes, family = "decimal") {
    if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return "—";
    if (bytes <= 0) return sig(bytes, 4) + " B";
    const [scale, unit] = sizeUnit(bytes, family);
    return sig(bytes / scale, 4) + " " + unit;
  }

  const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  // Text made safe inside HTML, attribute values included.
  function escapeHtml(s) {
    return String(s).replace(/[&<>"']/g, (ch) => ESCAPES[ch]);
  }

  // -- the chart theme --------------------------------------------------------------------------
  function cssVar(name) {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  }

  // The page's colours now (light or dark), from the CSS custom properties of static/css/site.css,
  // and the rank disc of that theme from the palette.
  function chartTheme() {
    const name = document.documentElement.dataset.theme === "dark" ? "dark" : "light";
    return {
      name, rank: CL.palette.rankTone(name),
      fg: cssVar("--fg") || "#1c1d21", muted: cssVar("--muted") || "#5b5f6a",
      line: cssVar("--line") || "#d9dbe0", panel: cssVar("--panel") || "#fff",
      accent: cssVar("--accent") || "#0b5cad", font: cssVar("--font") || "sans-serif",
    };
  }

  // A chart's layout: `extra` (margins, axes, sizes) over what every chart shares, a
  // transparent background, the page's type and ink, and axes ruled in the page's line colour.
  function chartLayout(t, extra = {}) {
    const axis = { color: t.fg, gridcolor: t.line, zerolinecolor: t.line };
    return Object.assign({
      paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
      font: { family: t.font, color: t.fg }, hoverlabel: { font: { family: t.font, size: 13 } },
    }, extra, {
      xaxis: Object.assign({}, axis, extra.xaxis), yaxis: Object.assign({}, axis, extra.yaxis),
    });
  }

  // Plotly's options for every chart: no toolbar, no zoom, follow the container's size.
  const CHART_CONFIG = { displayModeBar: false, responsive: true, scrollZoom: false, doubleClick: false };

  Object.assign(CL, { formatBytes, sizeUnit, sig, escapeHtml, chartTheme, chartLayout, CHART_CONFIG });
})(window);
