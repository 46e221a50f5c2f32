// Predict, then reveal (issue 15): in predict mode the player holds each step back until the
// learner has said what it will do, then Reveal plays it and marks the answer.
//
// Before step k plays, the panel under the player asks either which cells of the buffer grid will
// change (picked on the grid: lab-predict-grid.js) or which rank sends to rank j (a choice of
// ranks), as lab-predict-rules.js decides from the step's own data. The question appears once the
// step has arrived from the server, so Reveal can never run ahead of the data, and it is graded
// right there in the browser. Reveal (the button, or Enter) plays the step and shows the marks;
// Enter again (or "Next step") asks the next question. Stepping back and forward again replays
// steps already graded without asking twice. The score covers one attempt: Restart (Home), a new
// run or turning the mode on begins another; at the end of the run the panel sums it up.
//
// Hooks into the player: `player.limit()` (the last step it may move forward to), and its
// `player:status` and `player:restart` events. The toggle fires `predict:change` ({on}) on the
// lab's root, for the lab page to keep `predict=1` in its URL.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const R = CL.predictRules;
  const SELECT_ABOVE = 16; // ranks to choose from: radio buttons up to this many, then a select

  class Predict {
    // options: {views, player, on}
    constructor(root, options) {
      this.root = root;
      this.views = options.views;
      this.player = options.player;
      const q = (role) => root.querySelector(`[data-role="${role}"]`);
      this.ui = {
        toggle: q("predict-toggle"), panel: q("predict"), say: q("predict-say"), senders: q("predict-senders"),
        go: q("predict-go"), score: q("predict-score"), legend: q("predict-legend"),
      };
      if (!this.ui.toggle || !this.ui.panel) return;
      this.grid = new CL.PredictGrid(this.views.buffer, (key, on) => this._pick(key, on));
      this.loop = this.player.loop;
      this.run = null;
      this.frontier = -1;
      this.score = new R.Score();
      // A class page following its teacher (locked) is never held back.
      this.player.limit = () => (this.active && !this.player.locked ? this.frontier : Infinity);
      this.player.root.addEventListener("player:status", () => this.update());
      this.player.root.addEventListener("player:restart", () => { if (this.active) this._attempt(-1); });
      this.ui.toggle.addEventListener("change", () => this.set(this.ui.toggle.checked, true));
      // A mouse click leaves the focus on the switch, where Space and the arrows are its own; give
      // the player's keys back (as the lab's Run button does). The keyboard's focus stays.
      this.ui.toggle.addEventListener("click", (e) => { if (e.detail > 0) setTimeout(() => this.ui.toggle.blur(), 0); });
      this.ui.go.addEventListener("click", () => this.go());
      document.addEventListener("keydown", (e) => this._key(e));
      this.set(Boolean(options.on), false);
    }

    // Turn predict mode on or off; `told`: tell the page (the learner flipped the toggle).
    set(on, told) {
      this.active = on;
      this.ui.toggle.checked = on;
      this.player.loop = on ? false : this.loop; // a loop would wipe the summary at the end
      if (on && this.player.run) {
        this.player.pause();
        this._attempt(this.player.run.cursor); // steps already on screen are not graded
      }
      if (told) this.root.dispatchEvent(new CustomEvent("predict:change", { bubbles: true, detail: { on } }));
      this.update();
    }

    // A new attempt from step `from` (the steps up to it count as seen): score and answers cleared.
    _attempt(from) {
      this.run = this.player.run;
      this.frontier = from;
      this.score = new R.Score();
      this.shown = null; // the graded step whose marks are on screen
      this._clearAnswer();
      this.grid.hide();
      if (this.run) this.grid.build(this.run, this.views.facts.allToAll);
    }

    _clearAnswer() {
      this.asked = null;
      this.picks = new Set();
      this.choice = null;
    }

    // Bring the panel and the grid in line with the player (after every move and arrival).
    update() {
      const run = this.player.run, ui = this.ui;
      const on = this.active && run && !this.player.locked;
      ui.panel.hidden = !on;
      if (!on) { this.grid.hide(); return; }
      if (run !== this.run) this._attempt(run.cursor);
      if (run.cursor > this.frontier) this.frontier = run.cursor; // a link or a class moved it on
      if (this.shown && this.shown.index !== run.cursor) this.shown = null;
      const next = run.cursor + 1;
      if (this.shown) this._showResult(this.shown);
      else if (next >= run.total || (next >= run.received && run.error)) this._showEnd();
      else if (next <= this.frontier) this._showGraded();
      else if (next >= run.received) this._showWaiting(next);
      else this._ask(next);
      ui.score.textContent = this.score.graded ? _("Score: {score}", { score: this.score.text() }) : "";
    }

    _grid() { return { allToAll: this.views.facts.allToAll, cols: this.views.buffer.cols }; }

    _stepName(i) { return _("Step {k} of {total}", { k: i + 1, total: this.run.total }); }

    _ask(i) {
      if (!this.asked || this.asked.index !== i) {
        this._clearAnswer();
        this.asked = R.question(this.run, i, this._grid());
      }
      const q = this.asked;
      this._button("reveal", false);
      this.ui.legend.hidden = q.kind !== "cells";
      const step = this._stepName(i);
      if (q.kind === "cells") {
        this._say(_("{step}: which cells will change? Pick them on the buffer grid, then Reveal.", { step }));
        this._senders(null);
        this.grid.show("pick", this.picks, null, `pick ${i}`);
      } else {
        this._say(_("{step}: which rank sends to rank {rank}?", { step, rank: q.rank }));
        this._senders(q);
        this.grid.hide();
      }
    }

    _showWaiting(i) {
      this._say(_("{step}: waiting for it to arrive from the server…", { step: this._stepName(i) }));
      this._button("reveal", true);
      this._senders(null);
      this.grid.hide();
    }

    _showGraded() {
      this._say(_("You have predicted up to step {k}; step forward to come back to the next question.", { k: this.frontier + 1 }));
      this._button("reveal", true);
      this._senders(null);
      this.grid.hide();
    }

    _showResult(result) {
      const run = this.run, atEnd = result.index === run.total - 1;
      const verdict = this._verdict(result);
      let text = _("Step {k}: {verdict}", { k: result.index + 1, verdict });
      if (atEnd && run.complete) text = _("{verdict} {summary}", { verdict: text, summary: this._summary() });
      this._say(text);
      this._button(atEnd ? "restart" : "next-step", false);
      this._senders(null);
      this.ui.legend.hidden = result.kind !== "cells";
      if (result.kind === "cells") this.grid.show("marks", null, result, `marks ${result.index}`);
      else this.grid.hide();
    }

    _showEnd() {
      const run = this.run;
      this._say(run.complete ? this._summary() : _("The run stopped before this step: nothing more to predict."));
      this._button("restart", false);
      this._senders(null);
      this.grid.hide();
    }

    _summary() {
      if (!this.score.graded) return _("Run complete. Restart (Home) to predict its steps.");
      return _("Run complete: {score}. Restart (Home) to try again.", { score: this.score.text() });
    }

    // What a graded step says: the cells found, the wrong picks and the misses, by name.
    _verdict(r) {
      if (r.kind === "sender") {
        const who = _("rank {sender} sends to rank {rank}", { sender: r.sender, rank: r.rank });
        if (r.right) return _("right, {who}.", { who });
        if (r.choice === null) return _("{who} (no rank was picked).", { who });
        return _("{who}, not rank {choice}.", { who, choice: r.choice });
      }
      const n = r.changed;
      if (r.right) return n === 1 ? _("all {n} changed cell right.", { n }) : _("all {n} changed cells right.", { n });
      const name = (key) => {
        const cols = this.views.buffer.cols, c = key % cols;
        return `r${Math.floor(key / cols)}·${this.views.facts.allToAll ? `→r${c}` : CL.palette.chunkLabel(c)}`;
      };
      const list = (keys) => (keys.length <= 6 ? ` (${keys.map(name).join(", ")})` : "");
      const parts = [R.found(r.hits.length, n)];
      if (r.wrong.length) parts.push(`✗ ${R.wrongPicks(r.wrong.length)}${list(r.wrong)}`);
      const missed = _("{n} missed", { n: r.missed.length });
      if (r.missed.length) parts.push(`○ ${missed}${list(r.missed)}`);
      return _("{list}.", { list: R.listing(parts) });
    }

    // The choice of sender: radio buttons for a few ranks, a select for many; the rank asked about
    // is left out.
    _senders(q) {
      const box = this.ui.senders;
      box.hidden = !q;
      if (!q) { box.replaceChildren(); box.dataset.index = ""; return; }
      if (box.dataset.index === String(q.index)) return;
      box.dataset.index = String(q.index);
      const ranks = CL.views.range(this.run.p).filter((r) => r !== q.rank);
      const sender = _("Sender to rank {rank}", { rank: q.rank }), rank = _("Rank"), choose = _("choose…");
      const legend = `<legend>${sender}</legend>`;
      if (this.run.p > SELECT_ABOVE) {
        const options = ranks.map((r) => `<option value="${r}">rank ${r}</option>`).join("");
        box.innerHTML = `${legend}<label>${rank} <select data-role="predict-sender"><option value="">${choose}</option>${options}</select></label>`;
        box.querySelector("select").addEventListener("change", (e) => {
          this.choice = e.target.value === "" ? null : Number(e.target.value);
        });
      } else {
        box.innerHTML = legend + ranks.map((r) => `<label class="predict-rank"><input type="radio" name="predict-sender" value="${r}" data-role="predict-sender"> r${r}</label>`).join("");
        for (const input of box.querySelectorAll("input")) {
          input.addEventListener("change", () => { if (input.checked) this.choice = Number(input.value); });
        }
      }
    }

    _say(text) { if (this.ui.say.textContent !== text) this.ui.say.textContent = text; }

    // `action`: "reveal", "next-step" or "restart" (what `go` does), shown in the page's language.
    _button(action, disabled) {
      const go = this.ui.go;
      go.textContent = { reveal: _("Reveal"), "next-step": _("Next step"), restart: _("Restart") }[action];
      go.disabled = disabled;
      go.dataset.action = action;
    }

    _pick(key, on) {
      if (on) this.picks.add(key); else this.picks.delete(key);
    }

    // The panel's button (and Enter): reveal the step asked about, ask the next one, or restart.
    go() {
      const run = this.player.run;
      if (!this.active || !run || this.ui.go.disabled) return;
      const action = this.ui.go.dataset.action;
      if (action === "restart") { this.player.restart(); return; }
      if (action === "next-step") { this.shown = null; this.update(); return; }
      const q = this.asked;
      if (!q || q.index !== run.cursor + 1 || q.index >= run.received) return;
      const result = R.grade(q, { picks: this.picks, choice: this.choice });
      this.score.add(result);
      this.frontier = q.index;
      this.shown = result;
      this._clearAnswer();
      this.player.step(1); // plays the step; its status update shows the marks
    }

    // Enter reveals (or moves on) unless a control that has its own Enter has the focus.
    _key(e) {
      if (e.key !== "Enter" || !this.active || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
      if (this.ui.panel.hidden || document.querySelector("dialog[open]")) return;
      const el = e.target, tag = el && el.tagName;
      if (tag === "BUTTON" || tag === "A" || tag === "TEXTAREA" || tag === "SUMMARY" || (el && el.isContentEditable)) return;
      if (el && el.closest && el.closest("form")) return; // the lab's settings: Enter runs them
      e.preventDefault();
      this.go();
    }
  }

  CL.Predict = Predict;
})(window);
