// "Paste an NCCL log": with a script, one channel at a time through the picker; without one,
// every channel's ring and tree stay on the page as the server drew them.
(function () {
  "use strict";
  var picker = document.querySelector('[data-role="picker"]');
  var select = document.querySelector('[data-role="channel"]');
  var views = document.querySelectorAll('[data-role="channel-view"]');
  if (!picker || !select || views.length < 2) return;
  function show() {
    views.forEach(function (v) { v.hidden = v.getAttribute("data-channel") !== select.value; });
  }
  picker.hidden = false;
  select.addEventListener("change", show);
  show();
})();
