// The one palette, used by every view. A colour on screen always means a chunk: chunks use
// Okabe & Ito's eight colours (their black is drawn in the page's ink on dark pages), and one
// arrow carrying several chunks is a neutral grey. Ranks are never told apart by colour: each
// is a neutral disc with its number, in the same tone in every view, far from every chunk
// colour in both themes (CIE76 ΔE 39 or more; 28 or more for deuteranopes and protanopes), so no
// rank can be taken for a chunk. Holdings counts use cividis, readable for every common
// colour-vision deficiency. Chunk colours repeat past eight, so labels always accompany them.
(function (global) {
  "use strict";
  const CHUNK_COLORS = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000"];
  const DARK_INK = "#E8E9EC"; // Okabe & Ito's black on a dark page
  const MANY_CHUNKS = { light: "#6B6F78", dark: "#8E939D" }; // one arrow for several chunks
  // A rank's disc: its fill, its outline, and the number written in it.
  const RANK_TONES = {
    light: { fill: "#E4E6EA", line: "#5B5F6A", text: "#1C1D21" },
    dark: { fill: "#2F333B", line: "#A3A8B3", text: "#E8E9EC" },
  };
  const COUNT_SCALE = "Cividis";
  function chunkColor(i, theme) {
    const color = CHUNK_COLORS[((i % CHUNK_COLORS.length) + CHUNK_COLORS.length) % CHUNK_COLORS.length];
    return theme === "dark" && color === "#000000" ? DARK_INK : color;
  }
  function manyChunks(theme) { return MANY_CHUNKS[theme === "dark" ? "dark" : "light"]; }
  function rankTone(theme) { return RANK_TONES[theme === "dark" ? "dark" : "light"]; }
  function chunkLabel(i) {
    // A, B, ..., Z, then C26, C27, ...: letters for small runs, numbers once letters run out.
    return i < 26 ? String.fromCharCode(65 + i) : "C" + i;
  }
  const CL = global.CollectiveLab || (global.CollectiveLab = {});
  CL.palette = { CHUNK_COLORS, COUNT_SCALE, chunkColor, manyChunks, rankTone, chunkLabel };
})(window);
