// The step in words, under the player: the engine's narration of the step on screen (each
// sim_step carries its own `narration`, so stepping back shows the earlier sentence), and, when
// the learner has picked a cell of the buffer grid, what this step did to that cell, worked out
// here from the step's transfers and the holdings before and after it.
//
// One polite live region reads the step's sentence to a screen reader once per step shown (a
// playback that skips steps reads only the one drawn; a redraw of the same step reads nothing),
// and the cell's sentence when the keyboard moves the selection.
//
// Every word the page writes here is in TEXT, each sentence a message of the page's catalog
// (static/js/i18n.js), whole, as word order differs between languages.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const P = CL.palette;

  const TEXT = {
    // before the first step, from sim_start
    start: (name, who, total) => (total === 1
      ? _("Before the first step: {who}. {name} takes {total} step from here.", { who, name, total })
      : _("Before the first step: {who}. {name} takes {total} steps from here.", { who, name, total })),
    everyRank: (p, elements) => (elements === 1
      ? _("each of the {p} ranks holds only its own input of {elements} element", { p, elements })
      : _("each of the {p} ranks holds only its own input of {elements} elements", { p, elements })),
    someRanks: (ranks, n) => (n === 1
      ? _("only {ranks} holds data; the other ranks start empty", { ranks })
      : _("only {ranks} hold data; the other ranks start empty", { ranks })),
    // a step that came without narration (a server older than the narration)
    bare: (k, total, phase) => (phase
      ? _("Step {k} of {total} ({phase}).", { k, total, phase }) : _("Step {k} of {total}.", { k, total })),
    // a cell: "Rank 2's chunk C"; all_to_all: "Rank 2's blocks for rank 3"
    cell: (r, c) => _("Rank {r}'s chunk {label}", { r, label: P.chunkLabel(c) }),
    blocks: (r, d) => _("Rank {r}'s blocks for rank {d}", { r, d }),
    rank: (r) => _("rank {r}", { r }),
    ranks: (list) => _("ranks {list}", { list }),
    more: (n) => _("{n} more", { n }),
    and: (a, b) => _("{a} and {b}", { a, b }),
    // what a reduction does with what arrives, by op: one sentence each, as word order differs
    combined: {
      sum: (senders, one, r) => (one
        ? _("{senders} sent its copy and rank {r} added it", { senders, r })
        : _("{senders} sent their copies and rank {r} added them", { senders, r })),
      prod: (senders, one, r) => (one
        ? _("{senders} sent its copy and rank {r} multiplied it in", { senders, r })
        : _("{senders} sent their copies and rank {r} multiplied them in", { senders, r })),
      max: (senders, one, r) => (one
        ? _("{senders} sent its copy and rank {r} took the maximum with it", { senders, r })
        : _("{senders} sent their copies and rank {r} took the maximum with them", { senders, r })),
      min: (senders, one, r) => (one
        ? _("{senders} sent its copy and rank {r} took the minimum with it", { senders, r })
        : _("{senders} sent their copies and rank {r} took the minimum with them", { senders, r })),
    },
    copied: (senders, one, r) => (one
      ? _("{senders} sent its copy and rank {r} stored it", { senders, r })
      : _("{senders} sent their copies and rank {r} stored them", { senders, r })),
    arrived: (senders, r, origin) => _("{senders} sent it and rank {r} now has it (rank {origin}'s data)", { senders, r, origin }),
    sentOn: (receivers) => _("it sent its copy to {receivers}", { receivers }),
    alsoSent: (receivers) => _("it also sent its copy to {receivers}", { receivers }),
    local: () => _("it changed without a transfer to it"),
    before: (name, what) => _("{name} before the first step: {what}.", { name, what }),
    unchanged: (name, what) => _("{name}: unchanged this step; {what}.", { name, what }),
    story: (name, parts) => _("{name}: {parts}.", { name, parts: parts.reduce(TEXT.then) }),
    then: (a, b) => _("{a}; {b}", { a, b }),
    holds: (k, p) => _("it now holds {k} of {p} contributions", { k, p }),
    held: (k, p) => _("it holds {k} of {p} contributions", { k, p }),
    has: (origin) => _("it holds rank {origin}'s data", { origin }),
    empty: (r) => _("rank {r} does not hold it yet", { r }),
    ownInput: (r, holding) => _("rank {r}'s own input ({holding})", { r, holding }),
    blocksArrived: (n, senders) => (n === 1
      ? _("{n} block arrived, from {senders}", { n, senders }) : _("{n} blocks arrived, from {senders}", { n, senders })),
    blocksSent: (n, receivers) => (n === 1
      ? _("it sent {n} block to {receivers}", { n, receivers }) : _("it sent {n} blocks to {receivers}", { n, receivers })),
    blocksHeld: (k, p) => _("it holds {k} of the {p} blocks", { k, p }),
  };
  TEXT.combined.avg = TEXT.combined.sum; // an average adds, and divides once at the end

  // "rank 3", "ranks 1 and 3", "ranks 1, 2, 3, 4 and 9 more".
  // Ranks as words; a switch that adds in the network (an id past the ranks) by its name.
  function rankList(ranks, run) {
    const unique = [...new Set(ranks)];
    const sw = run ? unique.filter((q) => q >= run.p) : [];
    if (sw.length) return sw.map((q) => run.nodeName(q)).reduce(TEXT.and);
    if (unique.length === 1) return TEXT.rank(unique[0]);
    const shown = unique.slice(0, 4).map(String);
    const rest = unique.length - shown.length;
    const last = rest > 0 ? TEXT.more(rest) : shown.pop();
    return TEXT.ranks(TEXT.and(shown.join(", "), last));
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
      const what = k === 1 && now.holders[0] === r && full > 1 ? TEXT.ownInput(r, holding) : holding;
      return TEXT.before(name, what);
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
      else if (reduced) parts.push((TEXT.combined[run.start.op] || TEXT.combined.sum)(senders, one, r));
      else parts.push(TEXT.copied(senders, one, r));
    } else if (changed) parts.push(TEXT.local());
    if (out.length) {
      const receivers = rankList(out.map((t) => t.dst), run);
      parts.push(parts.length ? TEXT.alsoSent(receivers) : TEXT.sentOn(receivers));
    }
    if (!parts.length) return TEXT.unchanged(name, holding);
    if (changed && full > 1 && k) parts.push(TEXT.holds(k, full));
    else if (!(into.length && full === 1)) parts.push(holding); // an arrival says whose data it is
    return TEXT.story(name, parts);
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
    if (run.cursor < 0) return TEXT.before(name, held);
    const step = run.steps[run.cursor];
    const into = step.transfers.filter((t) => t.dst === r && t.chunk % p === d);
    const out = step.transfers.filter((t) => t.src === r && t.chunk % p === d);
    const parts = [];
    if (into.length) parts.push(TEXT.blocksArrived(into.length, rankList(into.map((t) => t.src), run)));
    if (out.length) parts.push(TEXT.blocksSent(out.length, rankList(out.map((t) => t.dst), run)));
    if (!parts.length) return TEXT.unchanged(name, held);
    return TEXT.story(name, [...parts, held]);
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
