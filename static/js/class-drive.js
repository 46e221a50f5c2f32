// A teacher's lab drives the room (CollectiveLab.ClassDrive): every run the teacher asks for
// (the lab's `lab:run`) and every move of the player (`player:control`: step, play / pause,
// speed) goes out as `room_drive` at once, with no debounce.
//
// One drive is in flight at a time; changes made meanwhile merge into the next one, so a dragged
// scrubber sends its latest step rather than a queue of old ones. While the teacher's player
// plays, nothing is sent: every student's player plays the same run on its own clock from the
// step and speed of the last drive.
//
// A room's state is the lab's parameters plus {step, playing, speed}; `step` numbers steps as
// the player's counter does (0: the initial state).
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const PLAYBACK = ["step", "playing", "speed"];
  const ECHOES_KEPT = 50;

  // A room state taken apart: the run's parameters, and how it is shown.
  function split(state) {
    const params = {};
    for (const [k, v] of Object.entries(state)) if (!PLAYBACK.includes(k) && v !== null) params[k] = v;
    return { params, how: { step: state.step || 0, playing: Boolean(state.playing), speed: state.speed || 1 } };
  }

  // One spelling of a state, whatever the parameters its algorithm ignores.
  function stateKey(lab, state) {
    const { params, how } = split(state);
    return `${lab.runKey(params)}|${how.step}|${how.playing}|${how.speed}`;
  }

  class ClassDrive {
    // lab: CollectiveLab.labPage; root: the lab's element; onError(text|"")
    constructor(link, lab, root, onError) {
      this.link = link;
      this.lab = lab;
      this.onError = onError;
      this.params = null;
      this.how = { step: 0, playing: false, speed: 1 };
      this.pending = false;
      this.inFlight = false;
      this.sent = []; // keys of recent drives: their room_state echoes change nothing here
      root.addEventListener("lab:run", (e) => {
        this.params = e.detail.params;
        this.how = Object.assign({}, this.how, { step: e.detail.how.step, playing: Boolean(e.detail.how.autoplay) });
        this.send();
      });
      root.addEventListener("player:control", (e) => {
        this.how = { step: e.detail.step, playing: e.detail.playing, speed: e.detail.speed };
        this.send();
      });
    }

    state() { return Object.assign({}, this.params, this.how); }

    send() {
      if (!this.params) return; // nothing on screen to follow yet
      this.pending = true;
      if (!this.inFlight) this._flush();
    }

    async _flush() {
      this.inFlight = true;
      while (this.pending) {
        this.pending = false;
        const state = this.state();
        this.sent.push(stateKey(this.lab, state));
        if (this.sent.length > ECHOES_KEPT) this.sent.shift();
        const ack = await this.link.teach("room_drive", { state });
        this.onError(ack.ok ? "" : _("The class did not follow that change: {error}", { error: ack.error }));
      }
      this.inFlight = false;
    }

    // Show the room's state on this teacher's lab (on joining, or driven from another teacher
    // device), without driving it again. A drive's own echo is left alone.
    adopt(state) {
      if (!state || this.sent.includes(stateKey(this.lab, state))) return;
      const { params, how } = split(state);
      this.params = params;
      this.how = how;
      this.lab.apply(params, how);
    }

    // A room that nobody has driven yet: show it the run on this teacher's screen.
    start() { this.lab.run({ autoplay: false, step: 0 }); }
  }

  CL.ClassDrive = ClassDrive;
  CL.classState = { split, stateKey };
})(window);
