// A student's lab follows the room (CollectiveLab.ClassFollow). In Follow mode the controls are
// locked and every `room_state` is shown: a run with other parameters is asked for through the
// lab's own `simulate` (runs are deterministic, and the server's run cache makes it cheap), then
// the player lands on the teacher's step and mirrors playing and speed; a state of the same run
// only moves the step. In Explore mode the controls are the student's; states are kept, not
// shown, and "Back to the teacher" shows the latest one.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  // A collective's or algorithm's name as the lab's own menu shows it (in the page's language).
  function label(select, id) {
    const option = [...((document.getElementById(select) || {}).options || [])].find((o) => o.value === id);
    return option ? option.textContent.trim() : String(id).replace(/_/g, " ");
  }

  // What the teacher shows, one whole sentence per case (word order differs between languages).
  function shownRun(state) {
    const v = {
      collective: label("collective", state.collective), algorithm: label("algorithm", state.algorithm),
      ranks: state.ranks, step: state.step,
    };
    if (state.step === 0) {
      return state.playing ? _("The teacher shows {collective} ({algorithm}) on {ranks} ranks, the initial state, playing.", v)
        : _("The teacher shows {collective} ({algorithm}) on {ranks} ranks, the initial state.", v);
    }
    return state.playing ? _("The teacher shows {collective} ({algorithm}) on {ranks} ranks, step {step}, playing.", v)
      : _("The teacher shows {collective} ({algorithm}) on {ranks} ranks, step {step}.", v);
  }

  class ClassFollow {
    // lab: CollectiveLab.labPage; bar: the student bar's element
    constructor(lab, bar) {
      this.lab = lab;
      this.latest = null; // the newest room state: {state, seq}
      this.following = true;
      const q = (role) => bar.querySelector(`[data-role="${role}"]`);
      this.ui = { mode: q("follow-mode"), where: q("follow-where"), explore: q("explore"), back: q("back") };
      this.ui.explore.addEventListener("click", () => this.explore());
      this.ui.back.addEventListener("click", () => this.follow());
      lab.setLocked(true);
    }

    // A room state arrived (or came with a join's ack). Only a larger seq than the last one is
    // news: after a reconnect the ack and a broadcast may bring the same state in either order,
    // and two processes may deliver two drives out of order (docs/classroom.md).
    receive(state, seq) {
      if (this.latest && typeof seq === "number" && seq <= this.latest.seq) return;
      this.latest = { state, seq: typeof seq === "number" ? seq : -1 };
      if (this.following && state) this._show(state); // first: the lab's menus then name its run
      this._describe();
    }

    explore() {
      this.following = false;
      this.lab.setLocked(false);
      this._mode();
      this.ui.back.focus();
    }

    follow() {
      this.following = true;
      this.lab.setLocked(true);
      this._mode();
      if (this.latest && this.latest.state) this._show(this.latest.state);
      this.ui.explore.focus();
    }

    _show(state) {
      const { params, how } = CL.classState.split(state);
      this.lab.apply(params, how);
    }

    _mode() {
      const u = this.ui;
      u.mode.textContent = this.following ? _("Following the teacher") : _("Exploring on your own");
      u.explore.hidden = !this.following;
      u.back.hidden = this.following;
      this._describe();
    }

    // One sentence on what the teacher shows, so the screen says what it follows.
    _describe() {
      const state = this.latest && this.latest.state;
      if (!state) {
        this.ui.where.textContent = _("Waiting for the teacher to start a run.");
        return;
      }
      const where = shownRun(state);
      this.ui.where.textContent = this.following ? where
        : _("{where} Your controls are free; “Back to the teacher” shows the teacher's screen again.", { where });
    }
  }

  CL.ClassFollow = ClassFollow;
})(window);
