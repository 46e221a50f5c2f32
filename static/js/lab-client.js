// The lab's connection to the engine: one Socket.IO client, and the state of one run.
//
// LabClient sends `simulate`, keeps only the events of the current run (an ack may arrive after
// the run's first events, so events are buffered until the ack names the run), and hands them to
// a LabRun. LabRun keeps every received step and moves a cursor over them: holdings, values and
// traffic are replayed from initial_state forward and undone backward, so stepping back never
// asks the server again. Cursor -1 is the state before the first step; cursor k is the state
// after step k, whose transfers are the ones drawn.
//
// A dropped connection ends the server's run (docs/lab.md). When the socket reconnects, the
// client asks for the same run again. The engine is deterministic, so the new stream repeats
// the old one: the LabRun already on screen is kept, the steps it has are skipped, and the
// rest are appended, so the viewer stays on the step it was on.
(function (global) {
  "use strict";

  const ITEMSIZE = {
    float16: 2, float32: 4, float64: 8, int8: 1, uint8: 1, int16: 2, uint16: 2,
    int32: 4, uint32: 4, int64: 8, uint64: 8,
  };

  const CL = global.CollectiveLab;

  // The socket's compact form (docs/lab.md, app/web/compact.py), expanded into the very objects
  // POST /api/simulate has, so every view reads {src, dst, chunk, elements, op} transfers and
  // {rank, chunk, holders, values} cells. A holders string ("0-3,60-63") is expanded once per
  // run: its array is shared by every cell that spells it, and no view changes it.
  const OPS = ["copy", "reduce"];

  class WireForm {
    constructor(chunks) {
      this.sizes = chunks.map(([start, stop]) => stop - start);
      this.holders = new Map();
    }

    _holders(text) {
      let out = this.holders.get(text);
      if (out) return out;
      out = [];
      for (const part of text ? text.split(",") : []) {
        const dash = part.indexOf("-");
        if (dash < 0) { out.push(Number(part)); continue; }
        for (let r = Number(part.slice(0, dash)), hi = Number(part.slice(dash + 1)); r <= hi; r++) out.push(r);
      }
      this.holders.set(text, out);
      return out;
    }

    cell(a) { return { rank: a[0], chunk: a[1], holders: this._holders(a[2]), values: a.slice(3) }; }

    start(payload) { return Object.assign({}, payload, { initial_state: payload.initial_state.map((a) => this.cell(a)) }); }

    step(payload) {
      const flat = payload.transfers, transfers = [];
      for (let i = 0; i < flat.length; i += 4) {
        const chunk = flat[i + 2];
        transfers.push({ src: flat[i], dst: flat[i + 1], chunk, elements: this.sizes[chunk], op: OPS[flat[i + 3]] });
      }
      return Object.assign({}, payload, { transfers, state: payload.state.map((a) => this.cell(a)) });
    }
  }
  // The one metrics global: timings the browser tests and bench/page.py read (Run click → first
  // step drawn), and the two marks that take them.
  const metrics = global.labMetrics || (global.labMetrics = {
    simulateEmits: 0, runs: [], last: null,
  });

  class LabRun {
    // `start` is sim_start expanded; `wire` expands this run's steps.
    constructor(start, wire) {
      this.start = start;
      this.wire = wire;
      this.id = start.run_id;
      this.p = start.ranks;
      // Switches that add in the network are nodes after the ranks (ids p, p+1, …): links are
      // counted over all of them, bytes sent over the ranks only (docs/design-notes.md).
      this.switches = (start.layout.topology && start.layout.topology.switches) || [];
      this.nodes = this.p + this.switches.length;
      this.chunks = start.layout.chunks;
      this.C = this.chunks.length;
      this.total = start.total_steps;
      this.itemsize = ITEMSIZE[start.dtype] || 4;
      this.steps = [];
      this.done = null;
      this.error = null;
      this.cursor = -1;
      this.initial = new Map();
      this.cells = new Map();
      for (const c of start.initial_state) {
        const cell = { holders: c.holders, values: c.values };
        this.initial.set(this.key(c.rank, c.chunk), cell);
        this.cells.set(this.key(c.rank, c.chunk), cell);
      }
      this.undo = [];
      this.linkBytes = new Float64Array(this.nodes * this.nodes); // cumulative through the cursor
      this.rankBytes = new Float64Array(this.p);
    }

    key(rank, chunk) { return rank * this.C + chunk; }
    cell(rank, chunk) { return this.cells.get(this.key(rank, chunk)); }
    get received() { return this.steps.length; }
    get complete() { return this.done !== null && this.received >= this.total; }
    atEnd() { return this.cursor >= this.total - 1; }

    // Whether `start` begins the same run again (the same parameters give the same steps).
    sameAs(start) {
      const a = this.start;
      return ["collective", "algorithm", "ranks", "elements", "op", "root", "ranks_per_node",
        "total_steps"].every((k) => a[k] === start[k]);
    }

    // Take over the id of the repeated run, whose steps will arrive again from step 0.
    adopt(start) { this.id = start.run_id; }

    addStep(step) {
      if (step.index !== this.steps.length) return false; // out of order: never from one run
      this.steps.push(step);
      return true;
    }

    // Move the cursor to k (clamped to what has arrived); return the keys of cells that changed.
    seek(k) {
      const target = Math.max(-1, Math.min(k, this.received - 1));
      const changed = new Set();
      while (this.cursor < target) this._apply(++this.cursor, changed);
      while (this.cursor > target) this._revert(this.cursor--, changed);
      return changed;
    }

    _traffic(step, sign) {
      const n = this.nodes;
      for (const t of step.transfers) {
        const bytes = sign * t.elements * this.itemsize;
        this.linkBytes[t.src * n + t.dst] += bytes;
        if (t.src < this.p) this.rankBytes[t.src] += bytes;
      }
    }

    _apply(i, changed) {
      const step = this.steps[i];
      const undo = [];
      for (const u of step.state) {
        const key = this.key(u.rank, u.chunk);
        undo.push([key, this.cells.get(key)]);
        this.cells.set(key, { holders: u.holders, values: u.values });
        changed.add(key);
      }
      this.undo[i] = undo;
      this._traffic(step, 1);
    }

    _revert(i, changed) {
      const undo = this.undo[i];
      for (let j = undo.length - 1; j >= 0; j--) {
        const [key, prev] = undo[j];
        if (prev === undefined) this.cells.delete(key);
        else this.cells.set(key, prev);
        changed.add(key);
      }
      this._traffic(this.steps[i], -1);
    }

    // A node's short name: r3 for a rank, the switch's name for a switch.
    nodeName(q) { return q < this.p ? `r${q}` : (this.switches[q - this.p] || {}).name || _("switch {n}", { n: q }); }

    // Bytes on each link in step i alone, as a sparse map src*nodes+dst → {bytes, chunks}.
    stepLinks(i) {
      const out = new Map();
      if (i < 0) return out;
      for (const t of this.steps[i].transfers) {
        const k = t.src * this.nodes + t.dst;
        const link = out.get(k) || { bytes: 0, chunks: 0 };
        link.bytes += t.elements * this.itemsize;
        link.chunks += 1;
        out.set(k, link);
      }
      return out;
    }

    phase(i) {
      if (i < 0) return _("before the first step");
      return (this.steps[i] && this.steps[i].phase) || (this.start.phases || [])[i] || "";
    }
  }

  class LabClient {
    // handlers: {start(run), step(run, step), done(run), error(message, run|null), connection(ok),
    //   resumed(cut)}. `connection(true)` comes first on a reconnect: a handler that calls
    //   simulate() there replaces the cut-off run; otherwise the client asks for that run again
    //   and calls `resumed({received, total})` (the steps it had when the connection dropped).
    constructor(handlers) {
      this.handlers = handlers;
      this.run = null;
      this.params = null; // the parameters of the latest simulate
      this.awaiting = null; // the ticket of a simulate whose ack has not arrived
      this.early = new Map(); // run_id → events that came before the ack
      this.cut = null; // {params, run, received, total}: a run the connection dropped half-way
      // WebSocket first (one round trip less before Run works); long-polling where a proxy
      // blocks WebSockets. After a drop, retry at least every 4 s, and give up on an attempt
      // after 5 s: a server that accepts connections but does not answer yet (one that is
      // starting, or stalled) held each attempt for the client's default 20 s. `lang`: the
      // runs are narrated in the page's language (app/web/live/language.py).
      this.socket = global.io({
        transports: ["websocket", "polling"], tryAllTransports: true,
        reconnectionDelayMax: 4000, randomizationFactor: 0.25, timeout: 5000,
        query: { lang: CL.lang || "en" },
      });
      const connection = (ok) => {
        document.documentElement.dataset.socket = ok ? "connected" : "disconnected";
        if (handlers.connection) handlers.connection(ok);
      };
      this.socket.on("connect", () => { connection(true); this._resume(); });
      this.socket.on("disconnect", () => { this._noteCut(); connection(false); });
      this.socket.on("connect_error", () => connection(false));
      for (const name of ["sim_start", "sim_step", "sim_done", "sim_error"]) {
        this.socket.on(name, (payload) => this._event(name, payload));
      }
    }

    // Whether a run was asked for and has not yet arrived in full.
    get pending() {
      return this.awaiting !== null || Boolean(this.run && !this.run.complete && !this.run.error);
    }

    simulate(params) {
      if (this.run && !this.run.complete && !this.run.error) {
        this.socket.emit("cancel", { run_id: this.run.id });
      }
      this.run = null;
      this.cut = null;
      metrics.last = { ranks: params.ranks, clickedAt: metrics.clickedAt || performance.now() };
      metrics.clickedAt = null;
      this._send(params);
    }

    // The connection dropped: remember the run it cut off, to ask for it again.
    _noteCut() {
      if (this.cut || !this.params || !this.pending) return;
      const run = this.run;
      this.cut = { params: this.params, run, received: run ? run.received : 0, total: run ? run.total : 0 };
    }

    // Reconnected: ask for the cut-off run again, unless a newer simulate replaced it.
    _resume() {
      const cut = this.cut;
      if (!cut) return;
      this.cut = null;
      this.run = cut.run; // kept on screen; the repeated stream fills in its missing steps
      this._send(cut.params);
      if (this.handlers.resumed) this.handlers.resumed({ received: cut.received, total: cut.total });
    }

    _send(params) {
      this.params = params;
      this.currentId = null;
      this.early.clear();
      const ticket = {};
      this.awaiting = ticket;
      metrics.simulateEmits += 1;
      this.socket.emit("simulate", params, (ack) => {
        if (this.awaiting !== ticket) return; // a newer simulate replaced this one
        this.awaiting = null;
        if (!ack || !ack.ok) {
          this.handlers.error((ack && ack.error) || _("the server refused the simulation"), null);
          return;
        }
        this.currentId = ack.run_id;
        const early = this.early.get(ack.run_id) || [];
        this.early.clear();
        for (const [name, payload] of early) this._dispatch(name, payload);
      });
    }

    cancel() {
      if (this.run && !this.run.complete) this.socket.emit("cancel", { run_id: this.run.id });
    }

    _event(name, payload) {
      if (!payload) return;
      if (this.currentId && payload.run_id === this.currentId) {
        this._dispatch(name, payload);
      } else if (this.awaiting) {
        const list = this.early.get(payload.run_id) || [];
        list.push([name, payload]);
        this.early.set(payload.run_id, list);
      } // else: an event of a cancelled run
    }

    _dispatch(name, payload) {
      const h = this.handlers;
      if (name === "sim_start") {
        if (this.run && this.run.sameAs(payload)) { // a cut-off run, asked for again
          this.run.adopt(payload);
          return;
        }
        const wire = new WireForm(payload.layout.chunks);
        this.run = new LabRun(wire.start(payload), wire);
        if (metrics.last) metrics.last.startAt = performance.now();
        h.start(this.run);
      } else if (!this.run) {
        if (name === "sim_error") h.error(payload.error, null);
      } else if (name === "sim_step") {
        const step = this.run.wire.step(payload);
        if (this.run.addStep(step)) h.step(this.run, step);
      } else if (name === "sim_done") {
        this.run.done = payload;
        h.done(this.run);
      } else if (name === "sim_error") {
        this.run.error = payload.error;
        h.error(payload.error, this.run);
      }
    }
  }

  // Record that the first step of the current run has been drawn (called by the player).
  function markFirstStep() {
    const m = metrics.last;
    if (!m || m.firstStepMs !== undefined) return;
    m.firstStepMs = performance.now() - m.clickedAt;
    metrics.runs.push(m);
    document.documentElement.dataset.firstStepMs = m.firstStepMs.toFixed(1);
  }

  // Record that the user asked for a run (Run, or an embed's first connection).
  function markClick() { metrics.clickedAt = performance.now(); }

  Object.assign(metrics, { markClick, markFirstStep });
  CL.LabClient = LabClient;
})(window);
