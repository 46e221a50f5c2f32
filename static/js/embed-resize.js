// For a page that frames Collective Lab embeds (a wiki page, a slide, a lesson): sizes every
// <iframe data-collective-lab> to its content, so a calculator is never cut off inside its frame.
// Include it once, after or before the frames:
//   <script src="https://<the lab's address>/static/js/embed-resize.js" async></script>
// Each embed posts {type: "collective-lab:height", height} to its parent when its content
// changes size (static/js/embed-frame.js). Messages of another type, from a window that is not
// such a frame, from another origin than the frame's own, or without a sensible height are
// ignored.
(function (global) {
  "use strict";
  if (global.CollectiveLabResize) return; // included twice: one listener is enough
  global.CollectiveLabResize = true;
  const TYPE = "collective-lab:height";
  const LOWEST = 120; // px: a frame never collapses to nothing
  const HIGHEST = 20000; // px: nor grows without bound

  function frameOf(source) {
    for (const frame of document.querySelectorAll("iframe[data-collective-lab]")) {
      if (frame.contentWindow === source) return frame;
    }
    return null;
  }

  global.addEventListener("message", (event) => {
    const data = event.data;
    if (data === null || typeof data !== "object" || data.type !== TYPE) return;
    const height = Number(data.height);
    if (!Number.isFinite(height)) return;
    const frame = event.source && frameOf(event.source);
    if (!frame || new URL(frame.src, global.location.href).origin !== event.origin) return;
    const px = Math.ceil(Math.min(HIGHEST, Math.max(LOWEST, height)));
    // An embed that fills whatever it is given (the animation) reports the frame's own height:
    // leave such a frame to the page's CSS rather than pin it.
    if (Math.abs(px - frame.clientHeight) < 2) return;
    frame.style.height = `${px}px`;
    frame.style.maxHeight = "none"; // a page's max-height would cut the content off again
  });
})(window);
