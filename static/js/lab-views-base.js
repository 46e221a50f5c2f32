// What the lab's views share (CollectiveLab.views): the chart layout at the page's type size,
// a few small helpers, and the facts about a run that decide how it is drawn.
//
// The views are one file each, loaded after this one: lab-geometry.js (where ranks sit),
// lab-arrows.js and lab-topology.js, lab-buffer.js, lab-inspector.js, lab-traffic.js, and lab-views.js, which
// holds them together.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;

  function range(n) { return Array.from({ length: n }, (_, i) => i); }

  // Label every k-th row or column, k a power of two, so at most `most` labels show.
  function tickStep(n, most) { let k = 1; while (n / k > most) k *= 2; return k; }

  // A view's layout: the shared chart theme, no legend, no dragging, and chart text that follows
  // the page's type size (larger on projectors, smaller on phones).
  function layout(t, extra) {
    const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 17;
    const out = CL.chartLayout(t, Object.assign({
      margin: { l: 8, r: 8, t: 8, b: 8 }, showlegend: false, dragmode: false, hovermode: "closest",
    }, extra));
    out.font.size = Math.round(rem * 0.76);
    // Plotly measures every tick label on each redraw to hide those that spill past the plot's
    // div; the margins keep them all inside, and the measuring was a third of a 64-rank
    // heatmap's redraw.
    for (const axis of ["xaxis", "yaxis"]) {
      if (out[axis]) out[axis] = Object.assign({ ticklabeloverflow: "allow" }, out[axis]);
    }
    return out;
  }

  // Topologies drawn with the ranks on a circle (no kind: every rank talks to every rank).
  const ROUND = new Set(["ring", "circulant", "complete"]);
  function isRound(kind) { return !kind || ROUND.has(kind); }

  // How a run is drawn, from the engine's catalog: whether its cells count reduced
  // contributions (`reduces`), whether its grid is rank × destination (all_to_all), and whether
  // only the root ends with the result (`root_only_output`: the grid outlines the root's row
  // and the inspector starts there).
  function facts(run, catalog) {
    const collective = run.start.collective;
    const entry = catalog.find((e) => e.collective === collective) || {};
    return {
      reduces: Boolean(entry.reduces),
      allToAll: collective === "all_to_all",
      rootOutput: Boolean(entry.root_only_output),
    };
  }

  // Whether `el` is on screen (or within a screen's margin of it), from an IntersectionObserver;
  // `onSeen` runs each time it comes into view. A view below the fold or in a closed panel
  // skips its redraws until then (a 64-rank heatmap costs tens of ms per step).
  class Sighting {
    constructor(el, onSeen) {
      this.visible = !global.IntersectionObserver;
      if (this.visible) return;
      new global.IntersectionObserver((entries) => {
        const now = entries[entries.length - 1].isIntersecting;
        const appeared = now && !this.visible;
        this.visible = now;
        if (appeared) onSeen();
      }, { rootMargin: "200px 0px" }).observe(el);
    }
  }

  // Draws one at a time and keeps only the latest request: fast playback or a dragged scrubber
  // never piles up Plotly redraws.
  class RenderQueue {
    constructor(draw) { this.draw = draw; this.pending = null; this.busy = false; }
    request(flightMs) {
      this.pending = { flightMs };
      if (!this.busy) this._drain();
    }
    async _drain() {
      this.busy = true;
      while (this.pending) {
        const job = this.pending;
        this.pending = null;
        performance.mark("lab:step-start"); // DevTools' timings track shows each draw
        try { await this.draw(job.flightMs); } catch (err) { console.error(err); }
        performance.measure("lab:step", "lab:step-start");
        performance.clearMarks("lab:step-start");
        performance.clearMeasures("lab:step"); // observers saw it; a long playback keeps none
      }
      this.busy = false;
    }
  }

  CL.views = { range, tickStep, layout, isRound, facts, Sighting, RenderQueue };
})(window);
