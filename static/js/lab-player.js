// Playback of one run, shared by the lab and the embed: play, pause, step, restart, speed,
// the scrubber, the keyboard, and the status line (step k of n, phase, bytes, verified badge).
//
// The player owns the cursor. It plays only steps that have arrived (waiting when it catches up
// with the stream), and it renders through a queue that keeps only the latest request
// (CollectiveLab.views.RenderQueue), so fast playback or a dragged scrubber never piles up
// redraws.
//
// Playback keeps time with a clock, not with a chain of timeouts: step k is due a fixed
// interval after the step the clock was set at. A chain of setTimeout(stepMs) adds every
// redraw's time to every step (64 ranks at 8x played at about 5x); a tick that comes late
// instead moves the cursor, and the counter, straight to the step that is due and draws only
// that one.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const BASE_STEP_MS = 1000; // one step per second at 1×
  const REDUCED_MOTION = global.matchMedia ? global.matchMedia("(prefers-reduced-motion: reduce)") : null;
  const KEYS = { ArrowRight: (p) => p.step(1), ArrowLeft: (p) => p.step(-1), Home: (p) => p.restart(), End: (p) => p.end() };

  class Player {
    // options: {views, speed, loop, onSpeed(speed)}
    constructor(root, options) {
      this.root = root;
      this.views = options.views;
      this.speed = options.speed || 1;
      this.loop = !!options.loop;
      this.onSpeed = options.onSpeed || (() => {});
      this.run = null;
      this.playing = false;
      this.waiting = false;
      this.timer = null;
      this.loopTimer = null;
      this.clock = null; // {t, k}: step index k was due at performance.now() = t
      this.landing = null; // the step a new run should show once it has arrived
      this.limit = null; // optional () → the last step the page lets forward moves reach (predict mode)
      const q = (role) => root.querySelector(`[data-role="${role}"]`);
      this.ui = {
        restart: q("restart"), back: q("back"), play: q("play"), forward: q("forward"),
        playLabel: q("play-label"), playIcon: q("play-icon"), pauseIcon: q("pause-icon"),
        speed: q("speed"), scrubber: q("scrubber"), counter: q("counter"), phase: q("phase"),
        bytes: q("bytes"), badge: q("badge"), notice: q("notice"),
      };
      this.queue = new CL.views.RenderQueue((flightMs) => this._draw(flightMs));
      const u = this.ui;
      u.restart.addEventListener("click", () => this.restart());
      u.back.addEventListener("click", () => this.step(-1));
      u.forward.addEventListener("click", () => this.step(1));
      u.play.addEventListener("click", () => this.toggle());
      if (u.speed) {
        u.speed.addEventListener("change", () => {
          this.speed = Number(u.speed.value);
          this.onSpeed(this.speed);
          this._reclock();
          this._control();
        });
      }
      u.scrubber.addEventListener("input", () => {
        this.pause();
        this.seek(Math.min(Number(u.scrubber.value) - 1, this._last()), false);
        this._control();
      });
      document.addEventListener("keydown", (e) => this._key(e));
    }

    get stepMs() { return BASE_STEP_MS / this.speed; }

    // A new run: show its initial state; play as soon as steps arrive if `autoplay`, or else
    // land on step `step` (as the counter numbers it: 0 is the initial state) once it arrives,
    // and play on from there if `playing`.
    attach(run, autoplay, step, playing) {
      this._stop();
      this.notice("");
      this.run = run;
      this.views.reset(run);
      this.seek(-1, false);
      this._enable(true);
      if (autoplay) this.play();
      else if (step > 0 || playing) this.show(step, playing);
    }

    // Go to step `step` once it has arrived, then play on if `playing`, the next step one interval
    // later (as a teacher's player that has just shown it): a class page following its teacher.
    show(step, playing) {
      if (!this.run) return;
      this.pause();
      this.landing = Math.min(step, this.run.total);
      this.landPlay = Boolean(playing);
      this._land();
    }

    setSpeed(speed) {
      const option = this.ui.speed && Array.from(this.ui.speed.options).find((o) => Number(o.value) === speed);
      if (!option || speed === this.speed) return;
      this.ui.speed.value = option.value;
      this.speed = speed;
      this._reclock();
    }

    // While locked (a class page following its teacher) no button, key or scrubber moves it.
    setLocked(on) {
      this.locked = Boolean(on);
      if (this.ui.speed) this.ui.speed.disabled = this.locked;
      this._enable(Boolean(this.run));
      this._status();
    }

    loading(text) {
      this._stop();
      this.notice("");
      this.run = null;
      this._enable(false);
      this._badge("pending", text);
    }

    stepArrived() {
      this._status();
      this._land();
      this._resumeWaiting();
    }

    finished() { this.stepArrived(); }

    // A line under the player about the connection; "" hides it.
    notice(text) {
      const n = this.ui.notice;
      if (!n) return;
      n.textContent = text;
      n.hidden = !text;
    }

    // The connection dropped: say so, and whether the run in progress will be asked for again.
    connectionLost(willResume) {
      this.notice(willResume
        ? _("Connection lost — reconnecting… The run will be requested again when the server is back.")
        : _("Connection lost — reconnecting…"));
    }

    // The connection is back. `cut` ({received, total}) describes a run it had cut off and that
    // was requested again; the user stays on the step they were on.
    reconnected(cut) {
      if (!cut) { this.notice(""); return; }
      const said = cut.total
        ? _("Reconnected. The run was cut off at {received} of {total} steps, so it was re-requested with the same settings (runs are deterministic)",
          { received: cut.received, total: cut.total })
        : _("Reconnected. The run was cut off before its first step, so it was re-requested with the same settings (runs are deterministic)");
      this.notice(this.run ? _("{said}; you stay on step {k}.", { said, k: this.run.cursor + 1 }) : _("{said}.", { said }));
    }

    failed() {
      this.pause();
      if (this.run) this._status();
      this._badge("bad", _("simulation failed"));
    }

    play(delayMs = 0) {
      if (!this.run) return;
      clearTimeout(this.loopTimer);
      this.landing = null;
      if (this.run.atEnd() && this.run.complete) this.seek(-1, false);
      this.playing = true;
      this._playButton();
      this._setClock(performance.now() + delayMs); // the next step is due then
      this._tick();
    }

    pause() {
      this.playing = false;
      this.waiting = false;
      this.landing = null;
      this.landPlay = false;
      clearTimeout(this.timer);
      clearTimeout(this.loopTimer);
      this._playButton();
    }

    toggle() {
      if (this.playing) this.pause(); else this.play();
      this._control();
    }

    step(delta) {
      if (!this.run) return;
      this.pause();
      this.seek(Math.min(this.run.cursor + delta, this._last()), delta > 0);
      this._control();
    }

    restart() {
      if (!this.run) return;
      this.pause();
      this.root.dispatchEvent(new CustomEvent("player:restart", { bubbles: true }));
      this.seek(-1, false);
      this._control();
    }

    // Jump to the last step received so far (the last step, once the run is complete).
    end() {
      if (!this.run) return;
      this.pause();
      this.seek(this._last(), false);
      this._control();
    }

    // The last step forward moves may reach: the last received, or the step before one the page
    // holds back (predict mode holds each step until the learner has predicted it).
    _last() {
      const run = this.run, last = run.received - 1;
      return this.limit ? Math.max(run.cursor, Math.min(last, this.limit())) : last;
    }

    // Tell the page what the user did (a class's teacher drives the room with it).
    _control() {
      const detail = { step: this.run ? this.run.cursor + 1 : 0, playing: this.playing, speed: this.speed };
      this.root.dispatchEvent(new CustomEvent("player:control", { bubbles: true, detail }));
    }

    // After a change of speed, the next step is due one new interval from now.
    _reclock() {
      if (!this.playing || this.waiting) return;
      this._setClock(performance.now() + this.stepMs);
      this._tick();
    }

    seek(k, animate) {
      const run = this.run;
      const before = run.cursor;
      const changed = run.seek(k);
      this.views.invalidate(changed);
      this._status(); // before the redraw, which may take longer than a step at 64 ranks
      const flight = animate && run.cursor === before + 1 ? this._flightMs() : 0;
      this.queue.request(flight);
    }

    // How long the chunks of one step fly; 0 (no flight, the step just changes) for a reader
    // who asked for less motion.
    _flightMs() {
      if (REDUCED_MOTION && REDUCED_MOTION.matches) return 0;
      const ms = Math.min(650, this.stepMs * 0.55);
      return ms >= 90 ? ms : 0;
    }

    async _draw(flightMs) {
      const run = this.run;
      if (!run) return;
      await this.views.render(flightMs, (cursor) => {
        if (cursor >= 0) global.labMetrics.markFirstStep();
        this.root.dataset.drawnStep = String(cursor + 1);
      });
    }

    // Step index cursor+1 is due at time t; each later one a step interval after it.
    _setClock(t) { this.clock = { t, k: this.run.cursor + 1 }; }

    _due(now) { return this.clock.k + Math.floor((now - this.clock.t) / this.stepMs); }

    _tick() {
      clearTimeout(this.timer);
      const run = this.run;
      if (!this.playing || !run) return;
      const now = performance.now();
      const due = this._due(now);
      const target = Math.min(due, this._last());
      if (target > run.cursor) this.seek(target, target === run.cursor + 1);
      if (this._finish()) return;
      if (due > run.cursor) {
        if (this.limit && run.cursor >= this.limit()) this.pause(); // the page holds the next step
        else this.waiting = true; // the stream has not caught up: resume when the next step arrives
        return;
      }
      const next = this.clock.t + (run.cursor + 1 - this.clock.k) * this.stepMs;
      this.timer = setTimeout(() => this._tick(), Math.max(0, next - now));
    }

    // A step arrived while playback waited for it: show it now, and keep time from here.
    _resumeWaiting() {
      if (!this.playing || !this.waiting) return;
      this.waiting = false;
      this._setClock(performance.now());
      this._tick();
    }

    // Show the step a link asked for as soon as it (or the end of the run) has arrived.
    _land() {
      const run = this.run;
      if (this.landing === null || !run) return;
      if (run.received >= this.landing || run.complete || run.error) {
        const k = this.landing;
        this.landing = null;
        this.seek(k - 1, false);
        if (this.landPlay) this.play(this.stepMs);
      }
    }

    // Stop playing at the last step of a finished run (and come round again when looping).
    _finish() {
      const run = this.run;
      if (!run.atEnd() || !(run.complete || run.error)) return false;
      this.playing = false;
      this._playButton();
      this._status();
      if (this.loop && run.complete) {
        this.loopTimer = setTimeout(() => {
          this.seek(-1, false);
          this.loopTimer = setTimeout(() => this.play(), 800);
        }, 2500);
      }
      return true;
    }

    _stop() {
      this.pause();
      this.run = null;
    }

    _enable(on) {
      const u = this.ui;
      for (const b of [u.restart, u.back, u.play, u.forward, u.scrubber]) b.disabled = !on || this.locked;
    }

    _playButton() {
      const u = this.ui;
      u.play.setAttribute("aria-label", this.playing ? _("Pause (Space)") : _("Play (Space)"));
      u.play.setAttribute("aria-pressed", this.playing ? "true" : "false");
      if (u.playLabel) u.playLabel.textContent = this.playing ? _("Pause") : _("Play");
      if (u.playIcon) u.playIcon.toggleAttribute("hidden", this.playing); // SVG: no .hidden
      if (u.pauseIcon) u.pauseIcon.toggleAttribute("hidden", !this.playing);
    }

    _badge(kind, text) {
      const b = this.ui.badge;
      b.className = `badge ${kind}`;
      b.textContent = text;
      b.dataset.state = kind;
    }

    _status() {
      const run = this.run, u = this.ui;
      if (!run) return;
      const k = run.cursor + 1, n = run.total;
      u.counter.textContent = _("step {k} of {n}", { k, n });
      u.scrubber.max = String(n);
      u.scrubber.value = String(k);
      u.scrubber.setAttribute("aria-valuetext", _("step {k} of {n}", { k, n }));
      u.phase.textContent = k === 0 ? _("initial state") : run.phase(run.cursor);
      u.back.disabled = k === 0;
      u.restart.disabled = k === 0;
      u.forward.disabled = run.cursor >= this._last();
      if (this.locked) this._enable(false);
      if (u.bytes) {
        u.bytes.textContent = this._bytesText();
        const cost = run.start.cost;
        if (cost && cost.formula) u.bytes.title = _("cost model: {formula}", { formula: cost.formula });
      }
      if (run.error) this._badge("bad", _("simulation failed"));
      else if (run.atEnd() && run.done) {
        if (run.done.verified) this._badge("ok", _("✓ result verified against numpy"));
        else this._badge("bad", _("✗ result differs from numpy (max error {error})", { error: run.done.max_abs_error }));
      } else if (run.received < n) this._badge("pending", _("receiving… {received} of {n} steps", { received: run.received, n }));
      else this._badge("pending", _("checked against numpy at the end"));
      this.root.dispatchEvent(new CustomEvent("player:status", { bubbles: true }));
    }

    _bytesText() {
      const run = this.run, fmt = CL.formatBytes;
      const sent = Array.from(run.rankBytes);
      const lo = Math.min(...sent), hi = Math.max(...sent);
      const expected = run.start.expected_bytes_per_rank;
      const sentText = lo === hi ? _("{bytes} per rank", { bytes: fmt(hi) })
        : _("{low}–{high} per rank", { low: fmt(lo), high: fmt(hi) });
      if (typeof expected === "number") {
        return _("sent so far: {sent} of {total} (formula)", { sent: sentText, total: fmt(expected) });
      }
      if (Array.isArray(expected) && expected.length) {
        const flo = Math.min(...expected), fhi = Math.max(...expected);
        return flo === fhi ? _("sent so far: {sent} of {total} (formula)", { sent: sentText, total: fmt(fhi) })
          : _("sent so far: {sent} of up to {total} (formula)", { sent: sentText, total: fmt(fhi) });
      }
      return _("sent so far: {sent}", { sent: sentText });
    }

    _key(e) {
      if (!this.run || this.locked || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
      const el = e.target;
      const tag = el && el.tagName;
      if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || (el && el.isContentEditable)) return;
      if (document.querySelector("dialog[open]")) return;
      const space = e.key === " " || e.key === "Spacebar";
      if (space && (tag === "BUTTON" || tag === "A" || tag === "SUMMARY")) return; // the control's own action
      const action = space ? (p) => p.toggle() : KEYS[e.key];
      if (action) {
        e.preventDefault();
        action(this);
      }
    }
  }

  CL.Player = Player;
})(window);
