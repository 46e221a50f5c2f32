// The embed page: the lab's animation with minimal chrome, for an iframe.
//
// The page arrives with its first picture (step 0, drawn on the server) and loads this script
// after painting it (after-paint.js). Nothing more happens until the embed is seen: an iframe
// below the fold of a lesson or a wiki page neither connects nor plays (autoplay included)
// before the reader scrolls to it. Then it connects, asks for its simulation (autoplay decides
// whether it also plays), and the live views take over the picture in place. It resumes a run
// that a dropped connection cut off, loops on the steps it already has when asked to, and
// follows the page's theme. The views, player and client are wired as in the lab
// (lab-session.js).
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;
  const config = JSON.parse(document.getElementById("lab-config").textContent);
  const root = document.querySelector('[data-role="lab"]');
  const s = config.state;
  const entry = config.catalog.find((e) => e.collective === s.collective && e.algorithm === s.algorithm);
  const opts = config.embed;
  let requested = false;
  let session = null;

  function params() {
    const p = { collective: s.collective, algorithm: s.algorithm, ranks: s.ranks, elements: s.elements, seed: 0, interval_ms: 0 };
    if (entry.reduces) p.op = s.op;
    if (entry.uses_root) p.root = s.root;
    if (entry.needs_ranks_per_node) p.ranks_per_node = s.ranks_per_node;
    return p;
  }

  // The first connection asks for the run. After a drop the client asks for a cut-off run
  // again by itself (runs are deterministic), and the player says what happened.
  function connection(ok) {
    if (ok && !requested) {
      requested = true;
      global.labMetrics.markClick();
      session.client.simulate(params());
      return true;
    }
    if (ok) session.showError("");
    else if (!requested) {
      session.showError(_("Cannot reach the Collective Lab server."));
      return true;
    }
    return false;
  }

  function start() {
    session = CL.labSession(root, {
      catalog: config.catalog, speed: s.speed, loop: opts.loop, predict: config.predict,
      errorBox: root.querySelector('[data-role="error"]'),
      showing: () => ({ autoplay: opts.autoplay, step: 0 }),
      connection,
    });
    session.player.loading(_("loading…"));
  }

  // Run `begin` once `el` is in view. In an iframe the observer measures against the top
  // page's viewport, so a frame scrolled out of sight is not in view.
  function whenSeen(el, begin) {
    if (!("IntersectionObserver" in global)) return begin();
    const observer = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      observer.disconnect();
      begin();
    });
    observer.observe(el);
  }

  whenSeen(root, start);
})(window);
