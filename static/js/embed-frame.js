// Inside an embed (the animation or a calculator): tells the page that frames it how tall the
// content is, {type: "collective-lab:height", height} posted to the parent, whenever that
// changes. A page with static/js/embed-resize.js sizes the iframe to it; any other page ignores
// the message. The height is not a secret, so it goes to whatever origin the parent has.
(function (global) {
  "use strict";
  if (global.parent === global) return; // opened on its own, not in a frame
  const TYPE = "collective-lab:height";
  let posted = 0;

  function contentHeight() {
    return Math.ceil(document.body.getBoundingClientRect().height);
  }

  function post() {
    const height = contentHeight();
    if (Math.abs(height - posted) < 2) return; // sub-pixel jitter is not a change
    posted = height;
    global.parent.postMessage({ type: TYPE, height }, "*");
  }

  function start() {
    new ResizeObserver(post).observe(document.body);
    post();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})(window);
