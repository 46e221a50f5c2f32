// Loads a page's scripts once the browser has painted what its HTML holds (the embed's first
// picture, drawn on the server), so that no script delays that paint.
//
// <script src="after-paint.js" data-scripts='["/static/…", …]' defer>: the scripts run in the
// order listed, as plain <script> tags would. A frame's callback runs before its paint and a
// task queued from it after, so the scripts are fetched once the first frame is on screen. A
// hidden document paints nothing (no frames come), so it loads them at once.
(function () {
  "use strict";
  const me = document.currentScript;
  const urls = JSON.parse(me.dataset.scripts);
  let loaded = false;

  function load() {
    if (loaded) return;
    loaded = true;
    for (const src of urls) {
      const script = document.createElement("script");
      script.src = src;
      script.async = false; // run in the order listed
      document.body.appendChild(script);
    }
  }

  if (document.visibilityState === "hidden") load();
  else requestAnimationFrame(() => setTimeout(load, 0));
})();
