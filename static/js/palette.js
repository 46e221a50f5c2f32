// The one palette, used by every view: its values come from the server (app/drawing/palette.py,
// which says why each is what it is), as JSON in every page's head (templates/base.html). A
// colour on screen always means a chunk; ranks are neutral numbered discs; holdings counts use
// cividis. Chunk colours repeat past eight, so labels always accompany them.
(function (global) {
  "use strict";
  const data = JSON.parse(document.getElementById("palette-data").textContent);
  const CHUNK_COLORS = data.chunkColors;
  const COUNT_SCALE = data.countScale;
  function chunkColor(i, theme) {
    const color = CHUNK_COLORS[((i % CHUNK_COLORS.length) + CHUNK_COLORS.length) % CHUNK_COLORS.length];
    return theme === "dark" && color === "#000000" ? data.darkInk : color;
  }
  function manyChunks(theme) { return data.manyChunks[theme === "dark" ? "dark" : "light"]; }
  function rankTone(theme) { return data.rankTones[theme === "dark" ? "dark" : "light"]; }
  function chunkLabel(i) {
    // A, B, ..., Z, then C26, C27, ...: letters for small runs, numbers once letters run out.
    return i < 26 ? String.fromCharCode(65 + i) : "C" + i;
  }
  const CL = global.CollectiveLab || (global.CollectiveLab = {});
  CL.palette = { CHUNK_COLORS, COUNT_SCALE, CIVIDIS: data.cividis, chunkColor, manyChunks, rankTone, chunkLabel };
})(window);
