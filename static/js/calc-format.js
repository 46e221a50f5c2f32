// The calculators' display units (CollectiveLab.calc): times in µs/ms/s, bandwidths in GB/s or
// Gb/s, and one answer value by its kind. Byte sizes come from common.js. Every number is the
// server's; these functions only convert it for display and never evaluate a cost formula.
//
// The calculators are split by concern, loaded in this order: calc-format.js, calc-form.js (the
// inputs and link presets), calc-answer.js (the numbers, sentence, table and notes),
// calc-charts.js (the Plotly charts), calculators.js (one widget: requests, and init).
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const C = (CL.calc = {});

  const BITS_PER_BYTE = 8; // display conversion between GB/s and Gb/s
  const TIME_SCALE = { ns: 1e-9, us: 1e-6, ms: 1e-3, s: 1 };
  const TIME_LABEL = { ns: "ns", us: "µs", ms: "ms", s: "s" };

  const sig = CL.sig;

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

  // One value of the answer by its `kind`, in the widget's `units` ({time, bandwidth, sizes});
  // sizes in one family per panel, the one the server's result names.
  function formatValue(value, kind, units) {
    if (value === null || value === undefined) return "—";
    switch (kind) {
      case "time": return formatTime(value, units.time);
      case "bytes": return CL.formatBytes(value, units.sizes);
      case "bandwidth": return formatBandwidth(value, units.bandwidth);
      case "ratio": return sig(value, 4);
      case "percent": return sig(value, 3) + " %";
      case "count": return CL.formatNumber(Number(value));
      default: return String(value).replace(/_/g, " ");
    }
  }

  // A word value that is an identifier (an algorithm's snake_case name, shown with spaces):
  // the same in every language, so marked translate="no" where it is shown.
  function isIdentifier(value, kind) {
    return kind === "text" && String(value).includes("_");
  }

  Object.assign(C, { BITS_PER_BYTE, TIME_SCALE, TIME_LABEL, autoTimeUnit, formatTime, formatValue, isIdentifier });
})(window);
