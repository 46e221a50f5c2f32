// The race's numbers written for people: simulated times in µs, ms or s (one unit per number,
// three significant digits), utilisation as a percentage and as a cividis shade. The numbers
// come from the server.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab || (global.CollectiveLab = {});

  function formatTime(seconds) {
    if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return "—";
    if (seconds === 0) return "0 µs";
    const abs = Math.abs(seconds);
    if (abs < 1e-3) return CL.sig(seconds * 1e6, 3) + " µs";
    if (abs < 1) return CL.sig(seconds * 1e3, 3) + " ms";
    return CL.sig(seconds, 3) + " s";
  }

  function percent(share) {
    return Math.round(share * 100) + "%";
  }

  // A link as people read it: "spine 0 → leaf 0 (12.5 GB/s)".
  function linkName(link) {
    if (!link) return _("no link");
    return `${link.name} (${CL.sig(link.bandwidth_gbs, 3)} GB/s)`;
  }

  // Cividis at `t` in [0, 1], linear in RGB between the palette's stops (as Plotly paints it).
  function cividis(t) {
    const stops = CL.palette.CIVIDIS;
    const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    t = Math.min(1, Math.max(0, t));
    for (let i = 1; i < stops.length; i++) {
      if (t <= stops[i][0]) {
        const [s0, c0] = stops[i - 1], [s1, c1] = stops[i];
        const f = s1 > s0 ? (t - s0) / (s1 - s0) : 0;
        const a = rgb(c0), b = rgb(c1);
        return `rgb(${a.map((v, k) => Math.round(v + (b[k] - v) * f)).join(",")})`;
      }
    }
    return stops[stops.length - 1][1];
  }

  CL.raceFormat = { formatTime, percent, linkName, cividis };
})(window);
