// One run on screen, shared by the lab page (lab-controls.js) and the embed (embed.js): the
// views, the player and the Socket.IO client wired together, and the error line above them.
//
// CollectiveLab.labSession(root, options) → {views, player, client, showError, predict}. `root` is
// the page's [data-role="lab"]; options: {catalog, speed, loop, onSpeed, errorBox, showing, connection,
// predict} (`predict`: start in predict mode, lab-predict.js).
// `showing()` says how a run that starts is first shown, {autoplay, step, playing?}. `connection(ok)`, if
// given, sees every connect and disconnect first and returns true when it has handled it;
// otherwise a reconnect clears the notice, and a drop says whether the run will be re-requested.
(function (global) {
  "use strict";
  const CL = global.CollectiveLab;

  function labSession(root, options) {
    const views = new CL.views.Views(root, options.catalog);
    const player = new CL.Player(root.querySelector('[data-role="player"]'), {
      views, speed: options.speed, loop: options.loop, onSpeed: options.onSpeed,
    });
    const predict = new CL.Predict(root, { views, player, on: options.predict });
    const errorBox = options.errorBox;
    function showError(message) {
      errorBox.textContent = message || "";
      errorBox.hidden = !message;
    }
    const client = new CL.LabClient({
      start: (run) => {
        showError("");
        const how = options.showing();
        player.attach(run, how.autoplay, how.step, how.playing);
      },
      step: () => player.stepArrived(),
      done: () => player.finished(),
      error: (message, run) => {
        showError(_("The simulation could not run: {message}", { message }));
        if (run) player.failed(); else player.loading(_("not run"));
      },
      // A complete run needs nothing more from the server; the rest is said under the player.
      connection: (ok) => {
        if (options.connection && options.connection(ok)) return;
        if (ok) { if (!client.cut) player.notice(""); return; }
        if (client.cut || !(client.run && client.run.complete)) player.connectionLost(Boolean(client.cut));
      },
      resumed: (cut) => player.reconnected(cut),
    });
    return { views, player, client, showError, predict };
  }

  CL.labSession = labSession;
})(window);
