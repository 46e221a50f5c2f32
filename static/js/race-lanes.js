// The race's lanes: one per algorithm, each a row of bars, one bar per step, placed and sized by
// the step's simulated start and time on the shared clock (every lane on the same scale, so
// lengths compare directly). A bar splits into α and the time of the bytes on its busiest link.
// Under each lane: the step at the clock, its bottleneck link, and the links it loads most,
// shaded by utilisation in cividis (a quantity, so not a chunk colour). Every number is the
// server's (GET /api/race); this file only places and writes them.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const F = CL.raceFormat;
  const SHOWN_LINKS = 4; // the busiest links named under a lane
  const PLACES = [_("1st"), _("2nd"), _("3rd"), _("4th")];
  const BOUND = { latency: _("latency-bound"), bandwidth: _("bandwidth-bound") };

  function el(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // The index of the step running at `t` (the last to start at or before it).
  function stepAt(steps, t) {
    let lo = 0, hi = steps.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (steps[mid].start_s <= t) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  function stepTitle(s, n) {
    const b = s.bottleneck;
    const step = s.phase ? _("Step {k} of {n} ({phase})", { k: s.index + 1, n, phase: s.phase }) : _("Step {k} of {n}", { k: s.index + 1, n });
    const sum = `${F.formatTime(s.time_s)} = ${F.formatTime(s.latency_s)} α + ${F.formatTime(s.bandwidth_s)}`;
    return b ? _("{step}: {sum} on {link}, {bytes}", { step, sum, link: F.linkName(b), bytes: CL.formatBytes(b.bytes, "binary") })
      : _("{step}: {sum}", { step, sum });
  }

  class RaceLanes {
    constructor(root) {
      this.root = root;
    }

    // Draw the lanes of a race (the JSON of GET /api/race).
    reset(race) {
      this.race = race;
      this.links = race.topology.links;
      this.end = Math.max(...race.runs.map((r) => r.time_s));
      this.lanes = race.runs.map((run) => this._lane(run));
      this.root.replaceChildren(...this.lanes.map((l) => l.box));
      this.show(0);
    }

    _lane(run) {
      const n = run.steps.length;
      const box = el("article", "lane");
      box.dataset.algorithm = run.algorithm;
      box.dataset.place = run.place;
      const head = el("header", "lane-head");
      const place = el("span", "lane-place", "");
      const name = el("h3", "lane-name", CL.algorithmName(run.algorithm));
      const sum = el("span", "lane-sum muted",
        (n === 1 ? _("1 step") : _("{n} steps", { n })) + ` · ${F.formatTime(run.time_s)} · ${BOUND[run.bound] || `${run.bound}-bound`}`
        + (run.busbw_gbs ? ` · busbw ${CL.sig(run.busbw_gbs, 3)} GB/s` : ""));
      head.append(place, name, sum);
      const track = el("div", "lane-track");
      track.setAttribute("role", "img");
      const facts = { algorithm: CL.algorithmName(run.algorithm), n, time: F.formatTime(run.time_s) };
      track.setAttribute("aria-label", run.bottleneck
        ? _("{algorithm}: {n} steps, {time} in all; its costliest link: {link}", Object.assign(facts, { link: F.linkName(run.bottleneck) }))
        : _("{algorithm}: {n} steps, {time} in all", facts));
      for (const s of run.steps) {
        const seg = el("span", "seg");
        seg.style.left = `${(100 * s.start_s) / this.end}%`;
        seg.style.width = `${(100 * s.time_s) / this.end}%`;
        seg.title = stepTitle(s, n);
        const alpha = el("span", "seg-alpha");
        const beta = el("span", "seg-beta");
        const share = s.time_s > 0 ? s.latency_s / s.time_s : 1;
        alpha.style.width = `${100 * share}%`;
        beta.style.width = `${100 * (1 - share)}%`;
        seg.append(alpha, beta);
        track.append(seg);
      }
      const future = el("span", "lane-future");
      const head2 = el("span", "playhead");
      track.append(future, head2);
      const now = el("p", "lane-now");
      now.dataset.role = "now";
      const links = el("ul", "lane-links");
      links.setAttribute("aria-label", _("{algorithm}: the busiest links now", { algorithm: CL.algorithmName(run.algorithm) }));
      box.append(head, track, now, links);
      return { run, box, place, future, playhead: head2, now, links, shown: -2 };
    }

    // Show the shared clock at `t` seconds in every lane.
    show(t) {
      const x = `${(100 * Math.min(t, this.end)) / this.end}%`;
      for (const lane of this.lanes) {
        const { run } = lane;
        lane.future.style.left = x;
        lane.playhead.style.left = x;
        const done = t >= run.time_s * (1 - 1e-12);
        lane.box.classList.toggle("finished", done);
        lane.place.textContent = done ? PLACES[run.place - 1] : "";
        const i = done ? -1 : stepAt(run.steps, t);
        if (i === lane.shown) continue; // the same step as the last frame: nothing to rewrite
        lane.shown = i;
        this._now(lane, i);
      }
    }

    _now(lane, i) {
      const { run } = lane;
      if (i < 0) {
        const facts = { time: F.formatTime(run.time_s), place: PLACES[run.place - 1] };
        lane.now.textContent = run.bottleneck
          ? _("Finished at {time}: {place}. Its costliest link: {link}.", Object.assign(facts, { link: F.linkName(run.bottleneck) }))
          : _("Finished at {time}: {place}.", facts);
        lane.links.replaceChildren();
        return;
      }
      const s = run.steps[i];
      const b = s.bottleneck;
      const step = s.phase ? _("Step {k} of {n} ({phase})", { k: i + 1, n: run.steps.length, phase: s.phase })
        : _("Step {k} of {n}", { k: i + 1, n: run.steps.length });
      lane.now.textContent = b
        ? _("{step}: {time}; bottleneck {link}, {bytes}.", { step, time: F.formatTime(s.time_s), link: F.linkName(b), bytes: CL.formatBytes(b.bytes, "binary") })
        : _("{step}: {time}; bottleneck none (α only).", { step, time: F.formatTime(s.time_s) });
      const order = s.links.map((_, k) => k).sort((a, c) => s.utilisation[c] - s.utilisation[a]).slice(0, SHOWN_LINKS);
      lane.links.replaceChildren(...order.map((k) => {
        const item = el("li", "link-load");
        const swatch = el("span", "link-swatch");
        swatch.style.background = F.cividis(s.utilisation[k]);
        swatch.setAttribute("aria-hidden", "true");
        const link = this.links[s.links[k]];
        item.append(swatch, document.createTextNode(` ${link.name} ${F.percent(s.utilisation[k])}`));
        if (b && s.links[k] === b.link) item.classList.add("bottleneck");
        return item;
      }));
    }
  }

  CL.RaceLanes = RaceLanes;
})(window);
