// The embed page: the lab's animation with minimal chrome, for an iframe.
//
// It asks for its simulation as soon as the socket connects (autoplay decides whether it also
// plays), resumes a run that a dropped connection cut off, loops on the steps it already has
// when asked to, and follows the page's theme.
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
    // The first connection asks for the run. After a drop the client asks for a cut-off run
    // again by itself (runs are deterministic), and the player says what happened.
    connection: (ok) => {
      if (ok && !requested) {
        requested = true;
        global.LabMetrics.markClick();
        client.simulate(params());
      } else if (ok) {
        showError("");
        if (!client.cut) player.notice("");
      } else if (!requested) {
        showError("Cannot reach the Collective Lab server.");
      } else if (client.cut || !(client.run && client.run.complete)) {
        player.connectionLost(Boolean(client.cut));
      }
    },
    resumed: (cut) => player.reconnected(cut),
  });
  player.loading("loading…");
})(window);
