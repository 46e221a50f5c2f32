// Predict, then reveal: what is asked before each step, how an answer is graded, and the run's
// score. Pure functions of the steps already received (no DOM, no server): the step's `state`
// lists the cells it changes and its `transfers` who sends to whom, so the browser grades from the
// data it already holds.
//
// A step asks one of two questions:
// - "cells": which cells of the buffer grid will change (every collective can ask this);
// - "sender": which rank sends to rank k, when rank k receives from one rank only and that is
//   the natural question: its partner differs from the previous step's (recursive doubling and
//   halving, Bruck, pairwise, trees), or the step changes more than half the grid, where
//   clicking nearly every cell would teach nothing.
// Cells are in the grid's coordinates: (rank, chunk), or (rank, destination) for all_to_all,
// whose grid shows rank × destination (chunk s·p+d is a block for d).
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;

  // The grid cells step `i` changes, as keys rank * cols + column.
  function changedCells(run, i, grid) {
    const keys = new Set();
    for (const u of run.steps[i].state) {
      const col = grid.allToAll ? u.chunk % run.p : u.chunk;
      keys.add(u.rank * grid.cols + col);
    }
    return keys;
  }

  // Ranks that receive from exactly one other rank in step `i`: dst → src. A switch (an id
  // past the ranks) is no rank to ask about: its steps are asked as cells.
  function soleSenders(run, i) {
    const from = new Map();
    for (const t of run.steps[i].transfers) {
      if (t.src === t.dst || t.src >= run.p || t.dst >= run.p) continue;
      if (!from.has(t.dst)) from.set(t.dst, new Set());
      from.get(t.dst).add(t.src);
    }
    const out = new Map();
    for (const [dst, srcs] of from) if (srcs.size === 1) out.set(dst, srcs.values().next().value);
    return out;
  }

  // The question of step `i` (which must have arrived): {kind: "cells", index, changed} or
  // {kind: "sender", index, rank, sender}.
  function question(run, i, grid) {
    const changed = changedCells(run, i, grid);
    const cells = { kind: "cells", index: i, changed };
    const now = soleSenders(run, i);
    if (!now.size) return cells;
    const before = i > 0 ? soleSenders(run, i - 1) : new Map();
    let ranks = [...now.keys()].filter((k) => before.has(k) && before.get(k) !== now.get(k));
    if (!ranks.length && changed.size > (run.p * grid.cols) / 2) ranks = [...now.keys()];
    if (!ranks.length) return cells;
    ranks.sort((a, b) => a - b);
    const rank = ranks[i % ranks.length]; // a different rank from step to step
    return { kind: "sender", index: i, rank, sender: now.get(rank) };
  }

  // Grade an answer: `picks` (a Set of cell keys) for a cells question, `choice` (a rank or
  // null) for a sender question.
  function grade(q, answer) {
    if (q.kind === "sender") {
      const right = answer.choice === q.sender;
      return { kind: "sender", index: q.index, rank: q.rank, sender: q.sender, choice: answer.choice, right };
    }
    const hits = [], wrong = [], missed = [];
    for (const key of answer.picks) (q.changed.has(key) ? hits : wrong).push(key);
    for (const key of q.changed) if (!answer.picks.has(key)) missed.push(key);
    return {
      kind: "cells", index: q.index, hits, wrong, missed, changed: q.changed.size,
      right: wrong.length === 0 && missed.length === 0,
    };
  }

  // The score's phrases, in the page's language (static/js/i18n.js): a message per count form,
  // as the catalog's extractor reads only literal messages.
  const found = (k, n) => (n === 1 ? _("{k} of {n} changed cell found", { k, n }) : _("{k} of {n} changed cells found", { k, n }));
  const wrongPicks = (n) => (n === 1 ? _("{n} wrong pick", { n }) : _("{n} wrong picks", { n }));
  // "a, b, c": a list of phrases, joined as the language joins them.
  const listing = (parts) => parts.reduce((a, b) => _("{a}, {b}", { a, b }));

  // The run's score so far: one result per step graded.
  class Score {
    constructor() { this.results = []; }

    add(result) { this.results.push(result); }

    get graded() { return this.results.length; }

    text() {
      const rs = this.results;
      if (!rs.length) return "";
      const cells = rs.filter((r) => r.kind === "cells");
      const senders = rs.filter((r) => r.kind === "sender");
      const right = rs.filter((r) => r.right).length, n = rs.length;
      const parts = [n === 1 ? _("{k} of {n} step fully right", { k: right, n }) : _("{k} of {n} steps fully right", { k: right, n })];
      if (cells.length) {
        const hits = cells.reduce((sum, r) => sum + r.hits.length, 0);
        const changed = cells.reduce((sum, r) => sum + r.changed, 0);
        const wrong = cells.reduce((sum, r) => sum + r.wrong.length, 0);
        parts.push(found(hits, changed), wrongPicks(wrong));
      }
      if (senders.length) {
        const named = senders.filter((r) => r.right).length, m = senders.length;
        parts.push(m === 1 ? _("{k} of {n} sender named", { k: named, n: m }) : _("{k} of {n} senders named", { k: named, n: m }));
      }
      return parts.join(" · ");
    }
  }

  CL.predictRules = { changedCells, soleSenders, question, grade, Score, found, wrongPicks, listing };
})(window);
