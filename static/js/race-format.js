// The race's numbers written for people: simulated times in µs, ms or s (one unit per number,
// three significant digits), and utilisation as a percentage. The numbers come from the server.
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
    if (!link) return "no link";
    return `${link.name} (${CL.sig(link.bandwidth_gbs, 3)} GB/s)`;
  }

  CL.raceFormat = { formatTime, percent, linkName };
})(window);
