"""Reading the live buffer grid (static/js/lab-buffer.js) as drawn: its cells are pixels on one
canvas over the grid's cell tracks, so a test finds each cell's box from the canvas's box, its
rows and columns and the grid's gap, and reads the colour drawn there."""

from __future__ import annotations

# Each cell of the live grid in `grid` (the [data-role="buffer-grid"] element), row by row:
# {r, c, box: [x, y, width, height] on the page, fill, edge}. `fill` is the colour ("#rrggbb",
# null where nothing is drawn) at a point clear of the cell's outline and number; `edge` the
# colour 1px inside its left edge, where an outline is drawn.
CELLS = """(grid) => {
  const cv = grid.querySelector('canvas[data-role="buffer-cells"]');
  const rows = Number(cv.dataset.rows), cols = Number(cv.dataset.cols);
  const gap = parseFloat(getComputedStyle(grid).columnGap) || 0;
  const b = cv.getBoundingClientRect(), k = cv.width / b.width;
  const cw = (b.width - (cols - 1) * gap) / cols, ch = (b.height - (rows - 1) * gap) / rows;
  const px = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data;
  const hex = (v) => v.toString(16).padStart(2, "0");
  const at = (x, y) => {
    const i = 4 * (Math.floor(y * k) * cv.width + Math.floor(x * k));
    return px[i + 3] ? "#" + hex(px[i]) + hex(px[i + 1]) + hex(px[i + 2]) : null;
  };
  const cells = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const x = c * (cw + gap), y = r * (ch + gap);
      const inside = x + Math.min(cw / 2, Math.max(4, cw / 4));
      cells.push({r, c, box: [b.left + x, b.top + y, cw, ch],
        fill: at(inside, y + ch / 2), edge: at(x + 1, y + ch / 2)});
    }
  }
  return cells;
}"""

# The cells the canvas notes as outlined: {changed, picked, goal}, each a list of [r, c].
OUTLINED = """(grid) => {
  const cv = grid.querySelector('canvas[data-role="buffer-cells"]');
  const list = (s) => (s ? s.split(" ").map((rc) => rc.split(",").map(Number)) : []);
  const d = cv.dataset;
  return {changed: list(d.changed), picked: list(d.picked), goal: list(d.goal)};
}"""


def fills(cells: list[dict]) -> list[list[str | None]]:
    """The cells' colours (CELLS), row by row."""
    rows: list[list[str | None]] = []
    for cell in cells:
        if cell["c"] == 0:
            rows.append([])
        rows[-1].append(cell["fill"])
    return rows


def painted(counts: list[list[int | None]], paints: list[list[str]]) -> list[list[str | None]]:
    """The colours a grid of counts should be drawn in: each count's paint from the server's
    `layout.grid.paints` (app/drawing/grid.py `live`), none where a cell is empty."""
    return [[None if z is None else paints[z][0].lower() for z in row] for row in counts]


def centre(cell: dict) -> tuple[float, float]:
    x, y, w, h = cell["box"]
    return x + w / 2, y + h / 2


def rgb(hex_colour: str | None) -> str:
    """'#rrggbb' as getComputedStyle writes a colour; 'rgba(0, 0, 0, 0)' for nothing drawn."""
    if hex_colour is None:
        return "rgba(0, 0, 0, 0)"
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"
