// One palette for ranks and one for chunks, used by every view. Colour-blind-safe:
// chunks use Okabe & Ito's eight colours; ranks use Paul Tol's "muted" set; holdings counts use
// cividis (readable for every common colour-vision deficiency). Colours repeat past their length,
// so labels always accompany them.
(function (global) {
  "use strict";
  const CHUNK_COLORS = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000"];
  const RANK_COLORS = ["#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677", "#882255", "#AA4499"];
  const COUNT_SCALE = "Cividis";
  function chunkColor(i) { return CHUNK_COLORS[((i % CHUNK_COLORS.length) + CHUNK_COLORS.length) % CHUNK_COLORS.length]; }
  function rankColor(r) { return RANK_COLORS[((r % RANK_COLORS.length) + RANK_COLORS.length) % RANK_COLORS.length]; }
  function chunkLabel(i) {
    // A, B, ..., Z, then C26, C27, ...: letters for small runs, numbers once letters run out.
    return i < 26 ? String.fromCharCode(65 + i) : "C" + i;
  }
  global.Palette = { CHUNK_COLORS, RANK_COLORS, COUNT_SCALE, chunkColor, rankColor, chunkLabel };
})(window);
