// The embed page: the lab's animation with minimal chrome, for an iframe.
//
// It asks for its simulation as soon as the socket connects (autoplay decides whether it also
// plays), loops on the steps it already has when asked to, and follows the page's theme.
(function (global) {
  "use strict";
  const config = JSON.parse(document.getElementById("lab-config").textContent);
  const root = document.querySelector('[data-role="lab"]');
  const errorBox = root.querySelector('[data-role="error"]');
  const s = config.state;
  const entry = config.catalog.find((e) => e.collective === s.collective && e.algorithm === s.algorithm);
  const opts = config.embed;

  const views = new global.LabViews.Views(root);
  const player = new global.LabPlayer(root.querySelector('[data-role="player"]'), {
    views, speed: s.speed, loop: opts.loop,
  });
  let requested = false;

  function params() {
    const p = { collective: s.collective, algorithm: s.algorithm, ranks: s.ranks, elements: s.elements, seed: 0, interval_ms: 0 };
    if (entry.reduces) p.op = s.op;
    if (entry.uses_root) p.root = s.root;
    if (entry.needs_ranks_per_node) p.ranks_per_node = s.ranks_per_node;
    return p;
  }

  function showError(message) {
    errorBox.textContent = message || "";
    errorBox.hidden = !message;
  }

  const client = new global.LabClient({
    start: (run) => { showError(""); player.attach(run, opts.autoplay); },
    step: () => player.stepArrived(),
    done: () => player.finished(),
    error: (message, run) => {
      showError(`The simulation could not run: ${message}`);
      if (run) player.failed(); else player.loading("not run");
    },
    connection: (ok) => {
      if (ok && (!requested || !(client.run && client.run.complete))) {
        requested = true; // first connection, or a reconnection that lost a run half-way
        global.LabMetrics.markClick();
        client.simulate(params());
      } else if (!ok && !(client.run && client.run.complete)) {
        showError("Cannot reach the Collective Lab server.");
      } else if (ok) {
        showError("");
      }
    },
  });
  player.loading("loading…");
})(window);
