// The step in words, under the player: the engine's narration of the step on screen (each
// sim_step carries its own `narration`, so stepping back shows the earlier sentence), and, when
// the learner has picked a cell of the buffer grid, what this step did to that cell, worked out
// here from the step's transfers and the holdings before and after it.
//
// One polite live region reads the step's sentence to a screen reader once per step shown (a
// playback that skips steps reads only the one drawn; a redraw of the same step reads nothing),
// and the cell's sentence when the keyboard moves the selection.
//
// Every English word the page writes here is in TEXT, so a translation replaces one table.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const P = CL.palette;

  const TEXT = {
    // before the first step, from sim_start
    start: (name, who, total) => `Before the first step: ${who}. ${name} takes ${total} ${total === 1 ? "step" : "steps"} from here.`,
    everyRank: (p, elements) => `each of the ${p} ranks holds only its own input of ${elements} ${elements === 1 ? "element" : "elements"}`,
    someRanks: (ranks, n) => `only ${ranks} ${n === 1 ? "holds" : "hold"} data; the other ranks start empty`,
    // a step that came without narration (a server older than the narration)
    bare: (k, n, phase) => `Step ${k} of ${n}${phase ? ` (${phase})` : ""}.`,
    // a cell: "Rank 2's chunk C"; all_to_all: "Rank 2's blocks for rank 3"
    cell: (r, c) => `Rank ${r}'s chunk ${P.chunkLabel(c)}`,
    blocks: (r, d) => `Rank ${r}'s blocks for rank ${d}`,
    rank: (r) => `rank ${r}`,
    ranks: (list) => `ranks ${list}`,
    more: (n) => `${n} more`,
    and: " and ",
    // what a reduction does with what arrives, by op
    combine: { sum: "added", avg: "added", prod: "multiplied in", max: "took the maximum with", min: "took the minimum with" },
    combined: (senders, one, r, verb) => `${senders} sent ${one ? "its copy" : "their copies"} and rank ${r} ${verb} ${one ? "it" : "them"}`,
    copied: (senders, one, r) => `${senders} sent ${one ? "its copy" : "their copies"} and rank ${r} stored ${one ? "it" : "them"}`,
    arrived: (senders, r, origin) => `${senders} sent it and rank ${r} now has it (rank ${origin}'s data)`,
    sentOn: (receivers) => `it sent its copy to ${receivers}`,
    alsoSent: (receivers) => `it also sent its copy to ${receivers}`,
    local: "it changed without a transfer to it",
    unchanged: "unchanged this step",
    before: "before the first step",
    holds: (k, p) => `it now holds ${k} of ${p} contributions`,
    held: (k, p) => `it holds ${k} of ${p} contributions`,
    has: (origin) => `it holds rank ${origin}'s data`,
    empty: (r) => `rank ${r} does not hold it yet`,
    ownInput: (r) => `rank ${r}'s own input`,
    blocksArrived: (n, senders) => `${n} ${n === 1 ? "block" : "blocks"} arrived, from ${senders}`,
    blocksSent: (n, receivers) => `it sent ${n} ${n === 1 ? "block" : "blocks"} to ${receivers}`,
    blocksHeld: (k, p) => `it holds ${k} of the ${p} blocks`,
  };

  // "rank 3", "ranks 1 and 3", "ranks 1, 2, 3, 4 and 9 more".
  // Ranks as words; a switch that adds in the network (an id past the ranks) by its name.
  function rankList(ranks, run) {
    const unique = [...new Set(ranks)];
    const sw = run ? unique.filter((q) => q >= run.p) : [];
    if (sw.length) return sw.map((q) => run.nodeName(q)).join(TEXT.and);
    if (unique.length === 1) return TEXT.rank(unique[0]);
    const shown = unique.slice(0, 4).map(String);
    const rest = unique.length - shown.length;
    const last = rest > 0 ? TEXT.more(rest) : shown.pop();
    return TEXT.ranks(`${shown.join(", ")}${TEXT.and}${last}`);
  }

  function capital(s) { return s.charAt(0).toUpperCase() + s.slice(1); }

  // What the run starts from: who holds data before step 1.
  function startSentence(run) {
    const s = run.start;
    const holding = [...new Set(s.initial_state.map((cell) => cell.rank))].sort((a, b) => a - b);
    const who = holding.length === run.p ? TEXT.everyRank(run.p, s.elements) : TEXT.someRanks(rankList(holding), holding.length);
    const name = `${s.collective} (${s.algorithm})`.replace(/_/g, " ");
    return TEXT.start(capital(name), who, run.total);
  }

  // The step at the run's cursor in words: the engine's narration, or the start sentence.
  function stepSentence(run) {
    if (run.cursor < 0) return startSentence(run);
    const step = run.steps[run.cursor];
    if (typeof step.narration === "string" && step.narration) return step.narration;
    return TEXT.bare(run.cursor + 1, run.total, run.phase(run.cursor));
  }

  // The cell with `key` as it was before step i (which the cursor has applied).
  function cellBefore(run, i, key) {
    for (const [k, prev] of run.undo[i] || []) if (k === key) return prev;
    return run.cells.get(key);
  }

  // What step `run.cursor` did to rank r's copy of chunk c. `full`: the contributions a complete
  // copy holds (p when the collective reduces, 1 when it moves data).
  function chunkStory(run, r, c, full) {
    const name = TEXT.cell(r, c);
    const now = run.cell(r, c);
    const k = now ? now.holders.length : 0;
    const holding = k === 0 ? TEXT.empty(r) : full > 1 ? TEXT.held(k, full) : TEXT.has(now.holders[0]);
    if (run.cursor < 0) {
      const what = k === 1 && now.holders[0] === r && full > 1 ? `${TEXT.ownInput(r)} (${holding})` : holding;
      return `${name} ${TEXT.before}: ${what}.`;
    }
    const i = run.cursor, step = run.steps[i];
    const into = step.transfers.filter((t) => t.dst === r && t.chunk === c);
    const out = step.transfers.filter((t) => t.src === r && t.chunk === c);
    const changed = step.state.some((u) => u.rank === r && u.chunk === c);
    const parts = [];
    if (into.length) {
      const senders = rankList(into.map((t) => t.src), run), one = new Set(into.map((t) => t.src)).size === 1;
      const reduced = into.some((t) => t.op === "reduce");
      if (full === 1) parts.push(TEXT.arrived(senders, r, now && now.holders.length ? now.holders[0] : into[0].src));
      else if (reduced) parts.push(TEXT.combined(senders, one, r, TEXT.combine[run.start.op] || "combined"));
      else parts.push(TEXT.copied(senders, one, r));
    } else if (changed) parts.push(TEXT.local);
    if (out.length) {
      const receivers = rankList(out.map((t) => t.dst), run);
      parts.push(parts.length ? TEXT.alsoSent(receivers) : TEXT.sentOn(receivers));
    }
    if (!parts.length) return `${name}: ${TEXT.unchanged}; ${holding}.`;
    if (changed && full > 1 && k) parts.push(TEXT.holds(k, full));
    else if (!(into.length && full === 1)) parts.push(holding); // an arrival says whose data it is
    return `${name}: ${parts.join("; ")}.`;
  }

  // all_to_all: what step `run.cursor` did to the blocks meant for rank d that rank r holds.
  function blocksStory(run, r, d) {
    const p = run.p, name = TEXT.blocks(r, d);
    let k = 0;
    for (let s = 0; s < p; s++) {
      const cell = run.cell(r, s * p + d);
      if (cell && cell.holders.length) k += 1;
    }
    const held = TEXT.blocksHeld(k, p);
    if (run.cursor < 0) return `${name} ${TEXT.before}: ${held}.`;
    const step = run.steps[run.cursor];
    const into = step.transfers.filter((t) => t.dst === r && t.chunk % p === d);
    const out = step.transfers.filter((t) => t.src === r && t.chunk % p === d);
    const parts = [];
    if (into.length) parts.push(TEXT.blocksArrived(into.length, rankList(into.map((t) => t.src), run)));
    if (out.length) parts.push(TEXT.blocksSent(out.length, rankList(out.map((t) => t.dst), run)));
    if (!parts.length) return `${name}: ${TEXT.unchanged}; ${held}.`;
    return `${name}: ${parts.join("; ")}; ${held}.`;
  }

  // The sentence about cell (r, c) of the buffer grid at the run's cursor.
  function cellSentence(run, facts, r, c) {
    if (facts.allToAll) return blocksStory(run, r, c);
    return chunkStory(run, r, c, facts.reduces ? run.p : 1);
  }

  class Narration {
    constructor(root) {
      const q = (role) => root.querySelector(`[data-role="${role}"]`);
      this.text = q("narration");
      this.story = q("cell-story");
      this.live = q("announce");
      this.run = null;
      this.said = null; // what the live region last read, so a redraw reads nothing new
    }

    reset(run, facts) {
      if (run !== this.run) this.said = null;
      this.run = run;
      this.facts = facts;
      this.cell(null);
    }

    // Show the step at the cursor, and read it out if it is not the one read last.
    step() {
      if (!this.run || !this.text) return;
      const sentence = stepSentence(this.run);
      this.text.textContent = sentence;
      this.announce(sentence);
    }

    // Say what happened to cell [r, c] (null: no cell picked); return the sentence.
    cell(sel) {
      if (!this.story) return "";
      const sentence = sel && this.run ? cellSentence(this.run, this.facts, sel[0], sel[1]) : "";
      this.story.textContent = sentence;
      this.story.hidden = !sentence;
      return sentence;
    }

    announce(sentence) {
      if (!this.live || !sentence || sentence === this.said) return;
      this.said = sentence;
      this.live.textContent = sentence;
    }
  }

  CL.views.Narration = Narration;
})(window);
